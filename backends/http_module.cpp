// strata-http.so: the S3, WebDAV and FTP backends, which need libcurl (and S3 and WebDAV
// QtCore: XML, HTTP dates). The command line loads it on the first URI of theirs (command_line_backends.cpp),
// so every other command starts without QtCore. Only strata_http_factory is exported; the
// core code inside is this module's own copy, hidden from the executable's.
#include "backends/ftp/ftp_factory.h"
#include "backends/s3/s3_factory.h"
#include "backends/webdav/webdav_factory.h"

#include <string_view>

extern "C" __attribute__((visibility("default"))) strata::BackendFactory *strata_http_factory(const char *scheme)
{
    const std::string_view s(scheme);
    if (s == "s3")
        return new strata::s3::S3Factory;
    if (s == "webdav" || s == "webdavs")
        return new strata::webdav::WebDavFactory(std::string(s));
    if (s == "ftp" || s == "ftps")
        return new strata::ftp::FtpFactory(std::string(s));
    return nullptr;
}

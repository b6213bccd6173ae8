#include "backends/builtin_backends.h"

#include "backends/fs/file_factory.h"
#include "backends/ftp/ftp_factory.h"
#include "backends/memory/memory_factory.h"
#include "backends/nbd/nbd_factory.h"
#include "backends/null/null_backend.h"
#include "backends/s3/s3_factory.h"
#include "backends/sftp/sftp_factory.h"
#include "backends/webdav/webdav_factory.h"

namespace strata {

void registerBuiltinBackends(Registry &registry)
{
    registry.add(std::make_unique<FileFactory>());
    registry.add(std::make_unique<MemoryFactory>());
    registry.add(std::make_unique<s3::S3Factory>());
    for (const char *scheme : {"webdav", "webdavs"})
        registry.add(std::make_unique<webdav::WebDavFactory>(scheme));
    for (const char *scheme : {"nbd", "nbds", "nbd+unix", "nbds+unix"})
        registry.add(std::make_unique<nbd::NbdFactory>(scheme));
    registry.add(std::make_unique<sftp::SftpFactory>());
    for (const char *scheme : {"ftp", "ftps"})
        registry.add(std::make_unique<ftp::FtpFactory>(scheme));
    registry.add(std::make_unique<NullFactory>());
}

} // namespace strata

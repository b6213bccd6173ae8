#include "backends/webdav/webdav_config.h"

#include "backends/http/uri_options.h"

namespace strata::webdav {

Result<Config> parseConfig(const Uri &uri)
{
    Config config;
    if (uri.scheme() != "webdav" && uri.scheme() != "webdavs")
        return Error(ErrorKind::InvalidInput, "a WebDAV URI starts with webdav:// or webdavs://");
    config.httpScheme = uri.scheme() == "webdavs" ? "https" : "http";
    if (uri.host().empty())
        return Error(ErrorKind::InvalidInput, "name the server, as in webdav://host:port/path");
    if (uri.userInfo().find(':') != std::string::npos)
        return Error(ErrorKind::InvalidInput,
                     "a password never goes in a webdav:// URI; set STRATA_WEBDAV_PASSWORD "
                     "(with STRATA_WEBDAV_HOST naming the server) or put it in ~/.netrc");
    config.insecure = http::truthy(uri.queryValue("insecure"));
    auto timeout = http::timeoutOption(uri, config.timeoutSeconds);
    if (!timeout)
        return std::move(timeout).error();
    config.timeoutSeconds = *timeout;
    // The URI keeps its host as written; an IPv6 literal keeps its brackets.
    config.hostPort = http::authority(uri);
    config.host = uri.host();
    auto login = http::loginOf(uri, "STRATA_WEBDAV_HOST", "STRATA_WEBDAV_USER", "STRATA_WEBDAV_PASSWORD");
    if (!login)
        return std::move(login).error();
    config.user = std::move(login->user);
    config.password = std::move(login->password);

    std::vector<Uri::QueryItem> options;
    if (config.insecure)
        options.emplace_back("insecure", "1");
    if (config.timeoutSeconds != 30)
        options.emplace_back("timeout", std::to_string(config.timeoutSeconds));
    config.base = uri.withPath("/");
    config.base.setQuery(std::move(options));
    return config;
}

} // namespace strata::webdav

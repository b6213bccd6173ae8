#include "backends/webdav/webdav_config.h"

#include "backends/http/uri_options.h"

#include <algorithm>
#include <cctype>

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
    for (const auto &[key, value] : uri.query()) {
        if (key != "insecure" && key != "timeout")
            return Error(ErrorKind::InvalidInput, "unknown webdav:// option '" + key + "' (known: insecure, timeout)");
        (void)value;
    }
    config.insecure = http::truthy(uri.queryValue("insecure"));
    auto timeout = http::timeoutOption(uri, config.timeoutSeconds);
    if (!timeout)
        return std::move(timeout).error();
    config.timeoutSeconds = *timeout;
    // The URI keeps its host as written; an IPv6 literal keeps its brackets.
    config.hostPort = uri.host();
    if (config.hostPort.find(':') != std::string::npos && !config.hostPort.starts_with('['))
        config.hostPort = "[" + config.hostPort + "]";
    if (auto port = uri.port())
        config.hostPort += ":" + std::to_string(*port);

    config.host = uri.host();

    // The environment's credentials are for the host STRATA_WEBDAV_HOST names only.
    const bool environmentsHost = [&] {
        std::string named = http::environment("STRATA_WEBDAV_HOST");
        std::transform(named.begin(), named.end(), named.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        std::string host = config.hostPort;
        std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        std::string bare = uri.host();
        std::transform(bare.begin(), bare.end(), bare.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return !named.empty() && (named == host || named == bare || named == "[" + bare + "]");
    }();
    if (uri.hasUserInfo()) {
        auto user = percentDecode(uri.userInfo());
        if (!user)
            return Error(ErrorKind::InvalidInput, "the user name in the URI has a bad percent escape");
        config.user = std::move(*user);
    } else if (environmentsHost) {
        config.user = http::environment("STRATA_WEBDAV_USER");
    }
    if (environmentsHost)
        config.password = http::environment("STRATA_WEBDAV_PASSWORD");

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

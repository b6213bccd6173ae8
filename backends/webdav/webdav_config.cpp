#include "backends/webdav/webdav_config.h"

#include <QString>

#include <algorithm>
#include <cstdlib>

namespace strata::webdav {

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool truthy(const std::optional<std::string> &v)
{
    return v && (v->empty() || *v == "1" || *v == "true" || *v == "yes");
}

} // namespace

Result<Config> parseConfig(const Uri &uri)
{
    Config config;
    if (uri.scheme() != "webdav" && uri.scheme() != "webdavs")
        return Error(ErrorKind::InvalidInput, "a WebDAV URI starts with webdav:// or webdavs://");
    config.httpScheme = uri.scheme() == "webdavs" ? "https" : "http";
    if (uri.host().empty())
        return Error(ErrorKind::InvalidInput, "name the server, as in webdav://host:port/path");
    if (uri.userInfo().find(':') != std::string::npos)
        return Error(ErrorKind::InvalidInput, "a password never goes in a webdav:// URI; set STRATA_WEBDAV_PASSWORD "
                                              "or put it in ~/.netrc");
    for (const auto &[key, value] : uri.query()) {
        if (key != "insecure" && key != "timeout")
            return Error(ErrorKind::InvalidInput, "unknown webdav:// option '" + key + "' (known: insecure, timeout)");
        (void)value;
    }
    config.insecure = truthy(uri.queryValue("insecure"));
    if (auto timeout = uri.queryValue("timeout")) {
        bool ok = false;
        config.timeoutSeconds = QString::fromStdString(*timeout).toInt(&ok);
        if (!ok || config.timeoutSeconds < 1 || config.timeoutSeconds > 3600)
            return Error(ErrorKind::InvalidInput, "timeout must be a number of seconds from 1 to 3600");
    }
    // The URI keeps its host as written; an IPv6 literal keeps its brackets.
    config.hostPort = uri.host();
    if (config.hostPort.find(':') != std::string::npos && !config.hostPort.starts_with('['))
        config.hostPort = "[" + config.hostPort + "]";
    if (auto port = uri.port())
        config.hostPort += ":" + std::to_string(*port);

    if (uri.hasUserInfo()) {
        auto user = percentDecode(uri.userInfo());
        if (!user)
            return Error(ErrorKind::InvalidInput, "the user name in the URI has a bad percent escape");
        config.user = std::move(*user);
    } else {
        config.user = env("STRATA_WEBDAV_USER");
    }
    config.password = env("STRATA_WEBDAV_PASSWORD");

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

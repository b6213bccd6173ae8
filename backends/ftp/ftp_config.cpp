#include "backends/ftp/ftp_config.h"

#include "backends/http/uri_options.h"

#include <charconv>

namespace strata::ftp {

Result<Config> parseConfig(const Uri &uri)
{
    Config config;
    if (uri.scheme() != "ftp" && uri.scheme() != "ftps")
        return Error(ErrorKind::InvalidInput, "an FTP URI starts with ftp:// or ftps://");
    config.tls = uri.scheme() == "ftps";
    if (uri.host().empty())
        return Error(ErrorKind::InvalidInput, "name the server, as in " + uri.scheme() + "://user@host:port/path");
    if (uri.userInfo().find(':') != std::string::npos)
        return Error(ErrorKind::InvalidInput,
                     "a password never goes in an " + uri.scheme()
                         + ":// URI; save it with the connection, set STRATA_FTP_PASSWORD "
                           "(with STRATA_FTP_HOST naming the server) or put it in ~/.netrc");
    config.insecure = http::truthy(uri.queryValue("insecure"));
    auto timeout = http::timeoutOption(uri, config.timeoutSeconds);
    if (!timeout)
        return std::move(timeout).error();
    config.timeoutSeconds = *timeout;
    if (auto ca = uri.queryValue("ca")) {
        if (ca->empty() || ca->front() != '/')
            return Error(ErrorKind::InvalidInput, "?ca= names a PEM file by its absolute path");
        config.caFile = *ca;
    }
    if (auto n = uri.queryValue("connections")) {
        unsigned value = 0;
        auto [end, ec] = std::from_chars(n->data(), n->data() + n->size(), value);
        if (ec != std::errc() || end != n->data() + n->size() || value < 1 || value > 16)
            return Error(ErrorKind::InvalidInput, "?connections= is a number from 1 to 16");
        config.connections = value;
        config.connectionsGiven = true;
    }
    if ((config.insecure || !config.caFile.empty()) && !config.tls)
        return Error(ErrorKind::InvalidInput, "?ca= and ?insecure= are for ftps:// (plain ftp:// has no TLS)");
    config.host = uri.host();
    config.hostPort = http::authority(uri);
    auto login = http::loginOf(uri, "STRATA_FTP_HOST", "STRATA_FTP_USER", "STRATA_FTP_PASSWORD");
    if (!login)
        return std::move(login).error();
    config.user = std::move(login->user);
    config.password = std::move(login->password);
    config.netrc = http::netrcNamesHost(config.host);

    std::vector<Uri::QueryItem> options;
    if (!config.caFile.empty())
        options.emplace_back("ca", config.caFile);
    if (config.insecure)
        options.emplace_back("insecure", "1");
    if (config.timeoutSeconds != 30)
        options.emplace_back("timeout", std::to_string(config.timeoutSeconds));
    if (config.connectionsGiven)
        options.emplace_back("connections", std::to_string(config.connections));
    config.base = uri.withPath("/");
    config.base.setQuery(std::move(options));
    return config;
}

} // namespace strata::ftp

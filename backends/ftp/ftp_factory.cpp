#include "backends/ftp/ftp_factory.h"

#include "backends/ftp/ftp_backend.h"

#include <cstdio>

namespace strata::ftp {

BackendDescription FtpFactory::describe() const
{
    return {"FTP / FTPS",
            {"ftp://[USER@]HOST[:PORT]/PATH", "ftps://… (explicit TLS)"},
            "An FTP server, or FTPS with explicit TLS; the path is below the login folder. Passwords "
            "come from a saved connection, STRATA_FTP_PASSWORD or ~/.netrc.",
            {{"ca", "FILE", "Trust the certificates of this PEM file (FTPS)."},
             {"connections", "N", "At most N connections to the server at once (default 8, 16 far away)."},
             insecureOption(),
             timeoutOption()}};
}

Result<Target> FtpFactory::resolve(const Uri &uri)
{
    if (auto known = checkOptions(uri, describe()); !known)
        return std::move(known).error();
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    // One instance per login and options: the same server as another user is another.
    return Target{config->base.toString(), uri.path().empty() ? "/" : uri.path()};
}

Result<std::shared_ptr<Backend>> FtpFactory::create(const Uri &uri, const Target &target)
{
    return create(uri, target, ConnectionSecret{});
}

Result<std::shared_ptr<Backend>> FtpFactory::create(const Uri &uri, const Target &, const ConnectionSecret &secret)
{
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    if (!secret.secret.empty())
        config->password = secret.secret;
    if (!secret.user.empty() && !uri.hasUserInfo())
        config->user = secret.user;
    if (!config->tls && (!config->password.empty() || config->netrc) && !isLoopbackHost(config->host))
        std::fprintf(stderr,
                     "strata: warning: the password for %s goes over plain FTP (ftp://); anyone on the path can read "
                     "it; use ftps:// if the server offers TLS\n",
                     config->hostPort.c_str());
    if (config->insecure)
        std::fprintf(stderr,
                     "strata: warning: TLS certificates of %s are NOT verified (?insecure=1); anyone on the path can "
                     "read and change the data\n",
                     config->hostPort.c_str());
    auto backend = FtpBackend::open(std::move(*config));
    if (!backend)
        return std::move(backend).error();
    return std::shared_ptr<Backend>(std::move(*backend));
}

} // namespace strata::ftp

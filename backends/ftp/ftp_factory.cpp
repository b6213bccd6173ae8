#include "backends/ftp/ftp_factory.h"

#include "backends/ftp/ftp_backend.h"

#include <cstdio>

namespace strata::ftp {

Result<Target> FtpFactory::resolve(const Uri &uri)
{
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

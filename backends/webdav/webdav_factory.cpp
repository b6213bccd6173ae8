#include "backends/webdav/webdav_factory.h"

#include "backends/webdav/webdav_backend.h"

#include <QtGlobal>

namespace strata::webdav {

Result<Target> WebDavFactory::resolve(const Uri &uri)
{
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    return Target{config->base.toString(), uri.path()};
}

Result<std::shared_ptr<Backend>> WebDavFactory::create(const Uri &uri, const Target &target)
{
    return create(uri, target, ConnectionSecret{});
}

Result<std::shared_ptr<Backend>> WebDavFactory::create(const Uri &uri, const Target &, const ConnectionSecret &secret)
{
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    if (!secret.user.empty())
        config->user = secret.user;
    if (!secret.secret.empty())
        config->password = secret.secret;
    http::ClientOptions options;
    options.insecure = config->insecure;
    options.stallTimeout = std::chrono::seconds(config->timeoutSeconds);
    options.connectTimeout = std::chrono::seconds(std::min(config->timeoutSeconds, 10));
    options.user = config->user;
    options.password = config->password;
    options.netrc = true; // ~/.netrc, when it has the host, fills in what the environment did not
    if (config->insecure)
        qWarning("strata: warning: TLS certificates of %s are NOT verified (?insecure=1); anyone on the path can read and change the data",
                 config->hostPort.c_str());
    auto client = std::make_shared<http::Client>(options);
    return std::shared_ptr<Backend>(std::make_shared<WebDavBackend>(std::move(*config), std::move(client)));
}

} // namespace strata::webdav

#include "backends/webdav/webdav_factory.h"

#include "backends/http/uri_options.h"
#include "backends/webdav/webdav_backend.h"
#include "core/storage/uri.h"

#include <cstdio>

namespace strata::webdav {

BackendDescription WebDavFactory::describe() const
{
    return {"WebDAV",
            {"webdav://HOST[:PORT]/PATH", "webdavs://HOST[:PORT]/PATH (TLS)"},
            "A WebDAV server. Credentials come from a saved connection, STRATA_WEBDAV_USER and "
            "STRATA_WEBDAV_PASSWORD, or ~/.netrc.",
            {insecureOption(), timeoutOption()},
            {{"url", "&URL:", FormField::Kind::Text, "https://cloud.example.com/remote.php/dav/files/me", {}},
             {"user", "&User:", FormField::Kind::Text, {}, {}, true},
             {"password", "&Password:", FormField::Kind::Secret, {}, {}}}};
}

Result<FormConnection> WebDavFactory::fromForm(const FormAnswers &answers) const
{
    auto url = form::httpUrl(form::answer(answers, "url"), "The URL");
    if (!url)
        return std::move(url).error();
    if (url->hasUserInfo())
        return Error(ErrorKind::InvalidInput, "Put the user name in the User field, not in the URL");
    url->setScheme(url->scheme() == "https" ? "webdavs" : "webdav");
    // The password as typed: spaces may be part of it.
    auto password = answers.find("password");
    return FormConnection{*url, form::answer(answers, "user"), password == answers.end() ? "" : password->second};
}

FormAnswers WebDavFactory::toForm(const Uri &uri) const
{
    Uri http = uri;
    http.setScheme(uri.scheme() == "webdavs" ? "https" : "http");
    return {{"url", http.toString()}};
}

Result<Target> WebDavFactory::resolve(const Uri &uri)
{
    if (auto known = checkOptions(uri, describe()); !known)
        return std::move(known).error();
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
    // ~/.netrc fills in what the environment did not, when it names the host ("default"
    // credentials are for no server in particular: never sent).
    options.netrc = http::netrcNamesHost(config->host);
    if (config->insecure)
        std::fprintf(
            stderr,
            "strata: warning: TLS certificates of %s are NOT verified (?insecure=1); anyone on the path can read "
            "and change the data\n",
            config->hostPort.c_str());
    if (config->httpScheme == "http" && (!config->password.empty() || options.netrc) && !isLoopbackHost(config->host))
        std::fprintf(
            stderr,
            "strata: warning: the password for %s goes over plain HTTP (webdav://); if the server asks for Basic "
            "authentication, anyone on the path can read it; use webdavs://\n",
            config->hostPort.c_str());
    auto client = std::make_shared<http::Client>(options);
    return std::shared_ptr<Backend>(std::make_shared<WebDavBackend>(std::move(*config), std::move(client)));
}

} // namespace strata::webdav

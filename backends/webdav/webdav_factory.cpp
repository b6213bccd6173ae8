#include "backends/webdav/webdav_factory.h"

#include "backends/http/uri_options.h"
#include "backends/webdav/webdav_backend.h"
#include "core/storage/uri.h"

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

Target WebDavFactory::target(const Config &config, const Uri &uri) const
{
    return Target{config.base.toString(), uri.path()};
}

Result<std::shared_ptr<Backend>> WebDavFactory::open(Config config, const Uri &, const ConnectionSecret &secret)
{
    if (!secret.user.empty())
        config.user = secret.user;
    if (!secret.secret.empty())
        config.password = secret.secret;
    if (config.insecure)
        warnUnverifiedTls(config.hostPort);
    auto options = http::ClientOptions::forUri(config.insecure, config.timeoutSeconds);
    options.user = config.user;
    options.password = config.password;
    // ~/.netrc fills in what the environment did not, when it names the host ("default"
    // credentials are for no server in particular: never sent).
    options.netrc = http::netrcNamesHost(config.host);
    if (config.httpScheme == "http" && (!config.password.empty() || options.netrc) && !isLoopbackHost(config.host))
        warnPlainPassword(
            config.hostPort, "HTTP (webdav://)",
            "if the server asks for Basic authentication, anyone on the path can read it; use webdavs://");
    auto client = std::make_shared<http::Client>(options);
    return std::shared_ptr<Backend>(std::make_shared<WebDavBackend>(std::move(config), std::move(client)));
}

} // namespace strata::webdav

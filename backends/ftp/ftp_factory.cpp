#include "backends/ftp/ftp_factory.h"

#include "backends/ftp/ftp_backend.h"

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
             timeoutOption()},
            {{"ftpHost", "&Host:", FormField::Kind::Text, "ftp.example.org", {}},
             {"ftpPort", "&Port:", FormField::Kind::Text, "21", {}},
             {"ftpUser", "&User:", FormField::Kind::Text, "empty: anonymous", {}, true},
             {"ftpFolder", "&Folder:", FormField::Kind::Text, "empty: the login folder", {}},
             {"ftpPassword", "Pass&word:", FormField::Kind::Secret, "empty: ~/.netrc", {}},
             {"ftpTls", "&Encrypt (FTPS, explicit TLS)", FormField::Kind::Flag, {}, "1"},
             {"ftpCa", "&CA file:", FormField::Kind::Text, "optional: a PEM file to trust", {}},
             form::timeoutField("ftpTimeout")}};
}

Result<FormConnection> FtpFactory::fromForm(const FormAnswers &answers) const
{
    const bool tls = !form::answer(answers, "ftpTls").empty();
    std::string user;
    auto uri = form::server(answers, tls ? "ftps" : "ftp",
                            {"ftpHost", "ftpPort", "ftpUser", ":/", "Give the server's host name or address"}, user);
    if (!uri)
        return std::move(uri).error();
    const std::string ca = form::answer(answers, "ftpCa");
    if (!ca.empty() && !tls)
        return Error(ErrorKind::InvalidInput, "A CA file is for encrypted connections (FTPS)");
    // The folder is below the login folder, as FTP URLs have it.
    std::string folder = form::answer(answers, "ftpFolder");
    folder.erase(0, std::min(folder.find_first_not_of('/'), folder.size()));
    uri->setPath('/' + folder);
    if (auto st = form::serverOptions(answers, *uri, {"ftpCa", "ca", "The CA file"}, "ftpTimeout"); !st)
        return std::move(st).error();
    return FormConnection{*uri, user, form::answer(answers, "ftpPassword")};
}

FormAnswers FtpFactory::toForm(const Uri &uri) const
{
    return {{"ftpHost", form::hostOf(uri)},
            {"ftpPort", form::portOf(uri)},
            {"ftpUser", form::userOf(uri)},
            {"ftpFolder", uri.path().empty() ? std::string() : uri.path().substr(1)},
            {"ftpCa", uri.queryValue("ca").value_or("")},
            {"ftpTimeout", uri.queryValue("timeout").value_or("")},
            {"ftpTls", uri.scheme() == "ftps" ? "1" : ""}};
}

// One instance per login and options: the same server as another user is another.
Target FtpFactory::target(const Config &config, const Uri &uri) const
{
    return Target{config.base.toString(), uri.path().empty() ? "/" : uri.path()};
}

Result<std::shared_ptr<Backend>> FtpFactory::open(Config config, const Uri &uri, const ConnectionSecret &secret)
{
    if (!secret.secret.empty())
        config.password = secret.secret;
    if (!secret.user.empty() && !uri.hasUserInfo())
        config.user = secret.user;
    if (!config.tls && (!config.password.empty() || config.netrc) && !isLoopbackHost(config.host))
        warnPlainPassword(config.hostPort, "FTP (ftp://)",
                          "anyone on the path can read it; use ftps:// if the server offers TLS");
    if (config.insecure)
        warnUnverifiedTls(config.hostPort);
    return sharedBackend(FtpBackend::open(std::move(config)));
}

} // namespace strata::ftp

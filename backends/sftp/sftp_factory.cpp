#include "backends/sftp/sftp_factory.h"

#include "backends/sftp/sftp_backend.h"

namespace strata::sftp {

BackendDescription SftpFactory::describe() const
{
    return {"SFTP (SSH)",
            {"sftp://[USER@]HOST[:PORT]/PATH", "USER@HOST:PATH (as scp takes it)"},
            "An SSH server's files. /~ is the login folder; ~/.ssh/config, ssh-agent and known_hosts "
            "are read as OpenSSH reads them.",
            {{"identity", "FILE", "The private key to log in with."},
             {"known-hosts", "FILE", "The known_hosts file to check the server's key against."},
             {"ssh-config", "FILE", "The ssh_config file to read instead of ~/.ssh/config."},
             {"connections", "N", "Keep up to N connections open for reuse (1 to 64; default 8)."},
             timeoutOption()},
            {{"sshHost", "&Host:", FormField::Kind::Text, "server.example.org, or a Host of ~/.ssh/config", {}},
             {"sshPort", "&Port:", FormField::Kind::Text, "22, or as ~/.ssh/config says", {}},
             {"sshUser", "&User:", FormField::Kind::Text, "empty: ~/.ssh/config or your login", {}, true},
             {"sshFolder", "&Folder:", FormField::Kind::Text, "empty: the login folder", {}},
             {"sshKey",
              "&Key file:",
              FormField::Kind::Text,
              "empty: ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa",
              {}},
             {"sshPassword", "Pass&word:", FormField::Kind::Secret, "the password, or the key's passphrase", {}},
             form::timeoutField("sshTimeout")}};
}

Result<FormConnection> SftpFactory::fromForm(const FormAnswers &answers) const
{
    std::string user;
    auto uri = form::server(
        answers, "sftp",
        {"sshHost", "sshPort", "sshUser", "@:/", "Give the server's host name or address, or a Host of ~/.ssh/config"},
        user);
    if (!uri)
        return std::move(uri).error();
    // Empty: the login folder; "~/x" and "x" below it; "/x" from the server's root.
    const std::string folder = form::answer(answers, "sshFolder");
    uri->setPath(folder.starts_with('/')        ? folder
                     : folder.starts_with("~/") ? "/" + folder
                     : folder.empty()           ? "/~"
                                                : "/~/" + folder);
    if (auto st = form::serverOptions(answers, *uri, {"sshKey", "identity", "The key file"}, "sshTimeout"); !st)
        return std::move(st).error();
    return FormConnection{*uri, user, form::answer(answers, "sshPassword")};
}

FormAnswers SftpFactory::toForm(const Uri &uri) const
{
    const std::string &path = uri.path();
    return {{"sshHost", form::hostOf(uri)},
            {"sshPort", form::portOf(uri)},
            {"sshUser", form::userOf(uri)},
            {"sshFolder",
             path == "/~"                  ? std::string()
                 : path.starts_with("/~/") ? path.substr(3)
                                           : path},
            {"sshKey", uri.queryValue("identity").value_or("")},
            {"sshTimeout", uri.queryValue("timeout").value_or("")}};
}

// One instance per login and options: the same server as another user is another.
Target SftpFactory::target(const Config &config, const Uri &uri) const
{
    Uri key = uri.withPath(config.home ? "/~" : "/");
    std::string path = uri.path().empty() ? "/" : uri.path();
    if (config.home)
        path = path.size() > 2 ? path.substr(2) : "/";
    return Target{key.toString(), path};
}

Result<std::shared_ptr<Backend>> SftpFactory::open(Config config, const Uri &uri, const ConnectionSecret &secret)
{
    if (!secret.secret.empty())
        config.password = secret.secret;
    if (!secret.user.empty() && uri.userInfo().empty())
        config.user = secret.user;
    ConnectionPrompts prompts;
    {
        std::lock_guard lock(m_mutex);
        prompts = m_prompts;
    }
    return sharedBackend(SftpBackend::open(std::move(config), std::move(prompts)));
}

void SftpFactory::setPrompts(const ConnectionPrompts &prompts)
{
    std::lock_guard lock(m_mutex);
    m_prompts = prompts;
}

} // namespace strata::sftp

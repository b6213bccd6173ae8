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
             timeoutOption()}};
}

Result<Target> SftpFactory::resolve(const Uri &uri)
{
    if (auto known = checkOptions(uri, describe()); !known)
        return std::move(known).error();
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    // One instance per login and options: the same server as another user is another.
    Uri key = uri.withPath(config->home ? "/~" : "/");
    std::string path = uri.path().empty() ? "/" : uri.path();
    if (config->home)
        path = path.size() > 2 ? path.substr(2) : "/";
    return Target{key.toString(), path};
}

Result<std::shared_ptr<Backend>> SftpFactory::create(const Uri &uri, const Target &target)
{
    return create(uri, target, ConnectionSecret{});
}

Result<std::shared_ptr<Backend>> SftpFactory::create(const Uri &uri, const Target &, const ConnectionSecret &secret)
{
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    if (!secret.secret.empty())
        config->password = secret.secret;
    if (!secret.user.empty() && uri.userInfo().empty())
        config->user = secret.user;
    ConnectionPrompts prompts;
    {
        std::lock_guard lock(m_mutex);
        prompts = m_prompts;
    }
    auto backend = SftpBackend::open(std::move(*config), std::move(prompts));
    if (!backend)
        return std::move(backend).error();
    return std::shared_ptr<Backend>(std::move(*backend));
}

void SftpFactory::setPrompts(const ConnectionPrompts &prompts)
{
    std::lock_guard lock(m_mutex);
    m_prompts = prompts;
}

} // namespace strata::sftp

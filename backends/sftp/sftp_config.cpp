#include "backends/sftp/sftp_config.h"

#include "backends/sftp/ssh_config.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <pwd.h>
#include <unistd.h>

namespace strata::sftp {

namespace {

std::string homeFolder()
{
    if (const char *home = std::getenv("HOME"); home && *home)
        return home;
    const passwd *pw = ::getpwuid(::getuid());
    return pw && pw->pw_dir ? pw->pw_dir : "/";
}

std::string localUser()
{
    const passwd *pw = ::getpwuid(::getuid());
    return pw && pw->pw_name ? pw->pw_name : "";
}

Result<unsigned> number(std::string_view text, unsigned lo, unsigned hi, std::string_view key)
{
    unsigned value = 0;
    const auto *end = text.data() + text.size();
    if (auto [p, ec] = std::from_chars(text.data(), end, value);
        ec != std::errc() || p != end || value < lo || value > hi)
        return Error(ErrorKind::InvalidInput,
                     std::string(key) + " must be a number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return value;
}

} // namespace

Result<Config> parseConfig(const Uri &uri)
{
    Config config;
    config.uri = uri;
    if (!uri.hasAuthority() || uri.host().empty())
        return Error(ErrorKind::InvalidInput, "an sftp:// URI names a server: sftp://user@host[:port]/path");
    if (uri.userInfo().find(':') != std::string::npos)
        return Error(ErrorKind::InvalidInput,
                     "a password never goes in an sftp:// URI; save it with the connection "
                     "(desktop app) or set STRATA_SFTP_PASSWORD (with STRATA_SFTP_HOST naming the server)");
    config.alias = uri.host();
    const std::string &path = uri.path();
    config.home = path == "/~" || path.starts_with("/~/");

    std::string sshConfig = homeFolder() + "/.ssh/config";
    std::string identity, knownHosts;
    for (const auto &[key, value] : uri.query()) {
        if (key == "identity") {
            identity = value;
        } else if (key == "known-hosts") {
            knownHosts = value;
        } else if (key == "ssh-config") {
            sshConfig = value;
        } else if (key == "connections") {
            auto n = number(value, 1, 64, "connections");
            if (!n)
                return std::move(n).error();
            config.connections = *n;
        } else if (key == "timeout") {
            auto n = number(value, 1, 3600, "timeout");
            if (!n) // said as every backend says it (http::timeoutOption)
                return Error(ErrorKind::InvalidInput, "timeout must be a number of seconds from 1 to 3600");
            config.timeoutMs = int(*n) * 1000;
            config.connectTimeoutMs = std::min(config.timeoutMs, 10000);
        } // any other: refused by BackendFactory::resolve (checkOptions)
    }
    const SshConfigContext context{homeFolder(), localUser()};
    const SshHostConfig host = readSshConfig(sshConfig, config.alias, context);
    config.host = host.hostName.empty() ? config.alias : host.hostName;
    config.user = !uri.userInfo().empty() ? uri.userInfo() : !host.user.empty() ? host.user : context.localUser;
    config.port = uri.port().value_or(host.port.value_or(22));
    if (host.connectTimeout)
        config.connectTimeoutMs = *host.connectTimeout * 1000;
    if (!identity.empty())
        config.identityFiles.push_back(identity);
    config.identityFiles.insert(config.identityFiles.end(), host.identityFiles.begin(), host.identityFiles.end());
    config.identitiesOnly = !identity.empty() || host.identitiesOnly.value_or(false);
    if (!config.identitiesOnly)
        for (const char *name : {"id_ed25519", "id_ecdsa", "id_rsa"})
            config.identityFiles.push_back(context.home + "/.ssh/" + name);
    if (!knownHosts.empty())
        config.knownHostsFiles = {knownHosts};
    else if (!host.knownHostsFiles.empty())
        config.knownHostsFiles = host.knownHostsFiles;
    else
        config.knownHostsFiles = {context.home + "/.ssh/known_hosts", context.home + "/.ssh/known_hosts2"};
    if (knownHosts.empty())
        config.knownHostsFiles.push_back("/etc/ssh/ssh_known_hosts"); // read, never written
    // As for FTP and WebDAV: the environment's password (or key passphrase) goes only to
    // the server STRATA_SFTP_HOST names, never to the other servers of the same command.
    const char *password = std::getenv("STRATA_SFTP_PASSWORD");
    const char *forHost = std::getenv("STRATA_SFTP_HOST");
    if (password && *password && namesHost(forHost ? forHost : "", uri))
        config.password = password;
    return config;
}

} // namespace strata::sftp

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::sftp {

// What OpenSSH's client configuration (~/.ssh/config) says about one host, as ssh reads
// it: the first value of each keyword wins, IdentityFile and UserKnownHostsFile add up.
struct SshHostConfig {
    std::string hostName; // empty: the name as given
    std::string user;
    std::optional<std::uint16_t> port;
    std::vector<std::string> identityFiles;   // ~ and %d %u %h %r %% expanded
    std::vector<std::string> knownHostsFiles; // UserKnownHostsFile, expanded
    std::optional<bool> identitiesOnly;
    std::optional<int> connectTimeout; // seconds
};

struct SshConfigContext {
    std::string home;      // the local user's home folder
    std::string localUser; // %u
};

// Reads the config file at `path` (and the files it Includes) for `alias`: Host blocks
// whose patterns match it (* and ?, ! negates; no match once a negation matches). Match
// blocks are skipped: their conditions need the connection. A missing file is no config.
SshHostConfig readSshConfig(const std::string &path, std::string_view alias, const SshConfigContext &context);

// Whether `host` matches one ssh_config pattern list ("*.example.org !secret.example.org").
bool hostMatches(std::string_view patterns, std::string_view host);

} // namespace strata::sftp

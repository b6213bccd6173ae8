#pragma once

#include "core/storage/result.h"
#include "core/storage/uri.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace strata::sftp {

// How a server is reached and who logs in: the URI, then ~/.ssh/config, then defaults.
struct Config {
    Uri uri;           // as given, for display (redacted)
    std::string alias; // the host as the URI names it (a ~/.ssh/config Host alias, maybe)
    std::string host;  // what is connected to (HostName)
    std::uint16_t port = 22;
    std::string user;
    bool home = false; // the backend's root is the login folder (sftp://host/~/…), not "/"
    std::vector<std::string> identityFiles;
    bool identitiesOnly = false;              // only identityFiles: no agent, no default keys
    std::vector<std::string> knownHostsFiles; // the first one receives accepted keys
    std::size_t connections = 8;              // kept open for reuse when idle
    int timeoutMs = 30000;                    // a request that moves no byte for this long fails (?timeout=)
    int connectTimeoutMs = 10000;             // ConnectTimeout, else the timeout up to 10 s
    std::string password;                     // a password or a key's passphrase, for this server only; never printed
    std::string passphrase;                   // a key's, as a person answered it; never sent as a password
};

// Checks an sftp:// URI and reads what ~/.ssh/config says about its host. Query keys:
// identity=PATH, known-hosts=PATH, ssh-config=PATH (instead of ~/.ssh/config),
// connections=N (1..64), timeout=SECONDS (1..3600: how long a request may move no byte;
// the TCP connect waits as long, up to 10 s, unless ~/.ssh/config's ConnectTimeout says
// otherwise). The password is STRATA_SFTP_PASSWORD when STRATA_SFTP_HOST names the URI's
// server ("host" or "host:port"), else none.
Result<Config> parseConfig(const Uri &uri);

} // namespace strata::sftp

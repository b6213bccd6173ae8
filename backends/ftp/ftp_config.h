#pragma once

#include "core/storage/result.h"
#include "core/storage/uri.h"

#include <string>

namespace strata::ftp {

// Where an FTP server is and who we are to it, from an ftp:// or ftps:// URI and the
// environment. ftps:// is explicit TLS (AUTH TLS on the usual port, then every command
// and every transfer encrypted), not the implicit TLS of port 990. The password never
// comes from the URI and is never printed.
struct Config {
    bool tls = false;     // ftps://
    std::string hostPort; // "127.0.0.1:2121", "[::1]:21", "example.org"
    std::string host;     // the host alone, as in the URI
    std::string user;     // from the URI's user@ or STRATA_FTP_USER; empty: anonymous
    // STRATA_FTP_PASSWORD, taken only when STRATA_FTP_HOST names this host (or host:port),
    // or the keychain's secret; ~/.netrc fills in what is missing.
    std::string password;
    bool netrc = false;      // ~/.netrc names the host
    std::string caFile;      // ?ca=FILE: trust the certificates in this PEM file
    bool insecure = false;   // ?insecure=1: TLS certificates not verified
    int timeoutSeconds = 30; // ?timeout=: a request that moves nothing for this long fails
    // ?connections=N (1 to 16): control connections in use at once. Not given: 8, or 16 for
    // a server at least 5 ms away (ConnectionPool::learnRoundTrip).
    unsigned connections = 8;
    bool connectionsGiven = false;
    Uri base; // the URI people see, at the server's root, no secret

    // "ftp://host:port": what every request URL starts with (TLS is asked for by option).
    std::string origin() const { return "ftp://" + hostPort; }
};

// Reads the URI (scheme, user, host, port; options ca, insecure, timeout, connections) and
// the credentials of the environment. A password in the URI is refused, as is any
// unknown option.
Result<Config> parseConfig(const Uri &uri);

} // namespace strata::ftp

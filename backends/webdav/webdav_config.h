#pragma once

#include "core/storage/result.h"
#include "core/storage/uri.h"

#include <string>

namespace strata::webdav {

// Where a WebDAV server is and who we are to it, from a webdav:// or webdavs:// URI and the
// environment. The password never comes from the URI and is never printed.
struct Config {
    std::string httpScheme = "http"; // http for webdav://, https for webdavs://
    std::string hostPort;            // "127.0.0.1:8080", "[::1]:8080", "example.org"
    std::string host;                // the host alone, as in the URI ("127.0.0.1", "::1")
    std::string user;                // from the URI's user@, else STRATA_WEBDAV_USER
    // STRATA_WEBDAV_PASSWORD, taken only when STRATA_WEBDAV_HOST names this host (or
    // host:port): a password given for one server is never sent to another.
    std::string password;
    bool insecure = false;   // TLS verification off (asked for with ?insecure=1)
    int timeoutSeconds = 30; // a request that moves no byte for this long fails (?timeout=)
    Uri base;                // the URI people see, at the server's root, without any secret

    // "http://host:port": what every request URL starts with.
    std::string origin() const { return httpScheme + "://" + hostPort; }
    // Whether credentials were given explicitly (not only through ~/.netrc).
    bool hasCredentials() const { return !user.empty() || !password.empty(); }
};

// Reads the URI (scheme, user, host, port, options insecure and timeout) and the credentials
// of the environment. A password in the URI is refused, as is any unknown option.
Result<Config> parseConfig(const Uri &uri);

} // namespace strata::webdav

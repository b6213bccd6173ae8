#pragma once

#include "core/storage/result.h"
#include "core/storage/uri.h"

#include <optional>
#include <string>

namespace strata::http {

// What the URIs of the HTTP backends (s3://, webdav://) share.

// The value of an environment variable; empty when unset.
std::string environment(const char *name);
// Whether a flag option is on: present without a value, or "1", "true", "yes".
bool truthy(const std::optional<std::string> &value);
// host[:port] as a URL wants it: "127.0.0.1:8080", "[::1]:8080" for an IPv6 literal.
std::string authority(const Uri &uri);

// Who we are to a server: the URI's user (user@, percent-decoded), else the environment's
// `userVariable`; the password of `passwordVariable`. The environment's only when
// `hostVariable` names the URI's server (see environmentNamesHost).
struct Login {
    std::string user;
    std::string password;
};
Result<Login> loginOf(const Uri &uri, const char *hostVariable, const char *userVariable, const char *passwordVariable);

// Whether the environment variable `variable` names the URI's server, as "host" or
// "host:port" ("[::1]:8080" for an IPv6 literal), in any case: a password given in the
// environment for one server is never sent to another.
bool environmentNamesHost(const char *variable, const Uri &uri);
// ?timeout=SECONDS (1 to 3600): how long a request may move no byte; `fallback` without it.
Result<int> timeoutOption(const Uri &uri, int fallback);

// Whether the user's ~/.netrc has a "machine" entry for `host` (a name or address, no port).
// libcurl also sends a "default" entry's credentials to every other host: they are only
// ever given to libcurl where this holds.
bool netrcNamesHost(std::string_view host);

} // namespace strata::http

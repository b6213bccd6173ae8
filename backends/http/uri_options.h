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
// ?timeout=SECONDS (1 to 3600): how long a request may move no byte; `fallback` without it.
Result<int> timeoutOption(const Uri &uri, int fallback);

// Whether the user's ~/.netrc has a "machine" entry for `host` (a name or address, no port).
// libcurl also sends a "default" entry's credentials to every other host: they are only
// ever given to libcurl where this holds.
bool netrcNamesHost(std::string_view host);

} // namespace strata::http

#pragma once

#include "backends/http/http_client.h"
#include "core/storage/error.h"

#include <string_view>

namespace strata::webdav {

// What was asked when an answer went wrong, for the sentence that explains it.
struct ErrorContext {
    std::string_view method;  // "PROPFIND", "PUT", …
    std::string_view host;    // "127.0.0.1:8080"
    bool credentials = false; // a user name or password was given (not only ~/.netrc)
};

// The one place WebDAV answers become errors: HTTP statuses mapped to kinds (temporary for
// 5xx, throttling and timeouts), redirects named, HTML pages recognised as such, and a
// multistatus that is malformed or cut short (xmlProblem) reported as Corrupt.
Error webdavError(const http::Response &response, const ErrorContext &context, std::string_view xmlProblem = {});

// A member of a 207 Multi-Status that failed (`status`, 0 when its answer gave none): the
// request failed there, said with the member's path (`where`, as it may be printed), its
// status and how many `others` failed too, of the kind the status alone would have had
// (Unexpected for a 412 or 404: not news of the request's own destination or source).
Error memberError(long status, std::string_view where, std::size_t others, const ErrorContext &context);

} // namespace strata::webdav

#pragma once

#include "backends/http/http_client.h"
#include "core/storage/error.h"

#include <string_view>

namespace strata::http {

// What an HTTP answer that is no success means, whatever protocol runs over HTTP: the one
// mapping of statuses to error kinds (temporary for throttling, timeouts and 5xx),
// redirects named, and HTML pages (a proxy's, a login page) recognised as such. S3 and
// WebDAV first map what their own protocol says (an S3 error code, a WebDAV status of
// their own meaning) and leave the rest to this.
struct StatusContext {
    std::string_view method;   // "PUT", "PROPFIND", or "the request"
    std::string_view protocol; // what a page should have been: "S3 XML", "WebDAV"
    std::string_view detail;   // the server's own words ("SlowDown: Please reduce…"); "" for none
};
Error statusError(const Response &response, const StatusContext &context);

// Where a redirect points, without a query (it could hold a token) or user info.
std::string redirectTarget(const Response &response);

} // namespace strata::http

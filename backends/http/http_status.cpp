#include "backends/http/http_status.h"

#include <string>

namespace strata::http {

namespace {

Error make(ErrorKind kind, std::string why, bool temporary)
{
    return Error(kind, std::move(why)).setTemporary(temporary);
}

} // namespace

std::string redirectTarget(const Response &response)
{
    std::string location(response.header("location"));
    location = location.substr(0, location.find('?'));
    if (auto scheme = location.find("://"); scheme != std::string::npos)
        if (auto at = location.find('@', scheme); at != std::string::npos && at < location.find('/', scheme + 3))
            location.erase(scheme + 3, at - scheme - 2);
    return location.empty() ? std::string("another address") : location;
}

Error statusError(const Response &response, const StatusContext &context)
{
    const long status = response.status;
    const std::string code = "HTTP " + std::to_string(status);
    const std::string detail = context.detail.empty() ? code : std::string(context.detail);
    const std::string method(context.method);
    switch (status) {
    case 401:
    case 403: return make(ErrorKind::PermissionDenied, "the server refused " + method + " (" + detail + ")", false);
    case 404:
    case 410: return make(ErrorKind::NotFound, detail, false);
    case 408: return make(ErrorKind::Timeout, "the server gave up waiting for the request (" + detail + ")", true);
    case 412: return make(ErrorKind::AlreadyExists, "the destination already exists (" + detail + ")", false);
    case 413: return make(ErrorKind::InvalidInput, "the server refuses a body this large (" + detail + ")", false);
    case 414: return make(ErrorKind::InvalidInput, "the path is too long for the server (" + detail + ")", false);
    case 423: return make(ErrorKind::Busy, "it is locked by another client (" + detail + ")", false);
    case 429: return make(ErrorKind::RateLimited, "the server asks to slow down (" + detail + ")", true);
    case 501: return make(ErrorKind::Unsupported, "the server does not implement this (" + detail + ")", false);
    case 503: return make(ErrorKind::RateLimited, "the server is unavailable for now (" + detail + ")", true);
    case 507: return make(ErrorKind::NoSpace, "the server has no room left (" + detail + ")", false);
    default: break;
    }
    if (status >= 300 && status < 400)
        return make(ErrorKind::InvalidInput,
                    "the server redirects " + method + " to " + redirectTarget(response) + " (" + code
                        + "); use that address",
                    false);
    const bool html = response.htmlBody() || response.header("content-type").starts_with("text/html");
    if (html)
        return make(ErrorKind::Network,
                    "the server answered with an HTML page (" + code + "), not " + std::string(context.protocol)
                        + "; is the address right, or is a proxy in the way?",
                    status >= 500);
    if (status >= 500)
        return make(ErrorKind::Network, "the server failed (" + detail + ")", true);
    return make(ErrorKind::Unexpected, "unexpected answer to " + method + " (" + detail + ")", false);
}

} // namespace strata::http

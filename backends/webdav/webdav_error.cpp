#include "backends/webdav/webdav_error.h"

#include <string>

namespace strata::webdav {

namespace {

Error make(ErrorKind kind, std::string why, bool temporary)
{
    return Error(kind, std::move(why)).setTemporary(temporary);
}

// Where a redirect points, without a query (it could hold a token) or user info.
std::string redirectTarget(const http::Response &response)
{
    std::string location(response.header("location"));
    location = location.substr(0, location.find('?'));
    if (auto scheme = location.find("://"); scheme != std::string::npos)
        if (auto at = location.find('@', scheme); at != std::string::npos && at < location.find('/', scheme + 3))
            location.erase(scheme + 3, at - scheme - 2);
    return location.empty() ? std::string("another address") : location;
}

} // namespace

Error webdavError(const http::Response &response, const ErrorContext &context, std::string_view xmlProblem)
{
    const long status = response.status;
    const std::string code = "HTTP " + std::to_string(status);
    const std::string method(context.method);
    const std::string host(context.host);
    if (!xmlProblem.empty())
        return make(ErrorKind::Corrupt, "the server's " + method + " answer is malformed or cut short ("
                                            + std::string(xmlProblem) + ")", false);
    const bool html = response.htmlBody() || response.header("content-type").starts_with("text/html");
    if (status >= 200 && status < 300) // a success of the wrong kind, such as 200 to a PROPFIND
        return make(ErrorKind::Unsupported, "the server answered " + method + " with " + code
                                                + (html ? " and an HTML page" : "")
                                                + ", not a WebDAV multistatus (207); is WebDAV enabled at this address?",
                    false);
    switch (status) {
    case 401: {
        const std::string what = context.credentials
            ? "the server refused the user name or password; check STRATA_WEBDAV_USER, STRATA_WEBDAV_PASSWORD or ~/.netrc"
            : "the server wants a user name and password; set STRATA_WEBDAV_HOST (this server), STRATA_WEBDAV_USER and "
              "STRATA_WEBDAV_PASSWORD, or add the host to ~/.netrc";
        return make(ErrorKind::PermissionDenied, "authentication failed at " + host + " (HTTP 401): " + what, false);
    }
    case 403:
        return make(ErrorKind::PermissionDenied, "the server forbids " + method + " here (HTTP 403 Forbidden)", false);
    case 404:
    case 410:
        return make(ErrorKind::NotFound, code, false);
    case 405:
        if (method == "MKCOL")
            return make(ErrorKind::AlreadyExists, "something already has that name (HTTP 405)", false);
        return make(ErrorKind::Unsupported, "the server does not allow " + method + " here (HTTP 405 Method Not Allowed)", false);
    case 408:
        return make(ErrorKind::Timeout, "the server gave up waiting for the request (HTTP 408)", true);
    case 409:
        return make(ErrorKind::NotFound, "the parent directory does not exist (HTTP 409 Conflict)", false);
    case 412:
        return make(ErrorKind::AlreadyExists, "the destination already exists (HTTP 412 Precondition Failed)", false);
    case 413:
        return make(ErrorKind::InvalidInput, "the server refuses a body this large (HTTP 413)", false);
    case 414:
        return make(ErrorKind::InvalidInput, "the path is too long for the server (HTTP 414)", false);
    case 423:
        return make(ErrorKind::Busy, "it is locked by another client (HTTP 423 Locked)", false);
    case 429:
        return make(ErrorKind::RateLimited, "the server asks to slow down (HTTP 429)", true);
    case 503:
        return make(ErrorKind::RateLimited, "the server is unavailable for now (HTTP 503)", true);
    case 507:
        return make(ErrorKind::NoSpace, "the server has no room left (HTTP 507 Insufficient Storage)", false);
    default:
        break;
    }
    if (status >= 300 && status < 400)
        return make(ErrorKind::InvalidInput, "the server redirects " + method + " to " + redirectTarget(response) + " ("
                                                 + code + "); use that address",
                    false);
    if (html)
        return make(ErrorKind::Network, "the server answered with an HTML page (" + code
                                            + "), not WebDAV; is the address right, or is a proxy in the way?",
                    status >= 500);
    if (status >= 500)
        return make(ErrorKind::Network, "the server failed (" + code + ")", true);
    return make(ErrorKind::Unexpected, "unexpected answer to " + method + " (" + code + ")", false);
}

} // namespace strata::webdav

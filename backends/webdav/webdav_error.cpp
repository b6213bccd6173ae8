#include "backends/webdav/webdav_error.h"

#include "backends/http/http_status.h"

#include <string>

namespace strata::webdav {

namespace {

Error make(ErrorKind kind, std::string why, bool temporary)
{
    return Error(kind, std::move(why)).setTemporary(temporary);
}

} // namespace

Error webdavError(const http::Response &response, const ErrorContext &context, std::string_view xmlProblem)
{
    const long status = response.status;
    const std::string code = "HTTP " + std::to_string(status);
    const std::string method(context.method);
    const std::string host(context.host);
    if (!xmlProblem.empty())
        return make(ErrorKind::Corrupt,
                    "the server's " + method + " answer is malformed or cut short (" + std::string(xmlProblem) + ")",
                    false);
    const bool html = response.htmlBody() || response.header("content-type").starts_with("text/html");
    if (status >= 200 && status < 300) // a success of the wrong kind, such as 200 to a PROPFIND
        return make(ErrorKind::Unsupported,
                    "the server answered " + method + " with " + code + (html ? " and an HTML page" : "")
                        + ", not a WebDAV multistatus (207); is WebDAV enabled at this address?",
                    false);
    // What a status means in WebDAV (RFC 4918) where it says more than HTTP's meaning;
    // everything else as for any HTTP server.
    switch (status) {
    case 401: {
        const std::string what = context.credentials
            ? "the server refused the user name or password; check STRATA_WEBDAV_USER, STRATA_WEBDAV_PASSWORD or "
              "~/.netrc"
            : "the server wants a user name and password; set STRATA_WEBDAV_HOST (this server), STRATA_WEBDAV_USER and "
              "STRATA_WEBDAV_PASSWORD, or add the host to ~/.netrc";
        return make(ErrorKind::PermissionDenied, "authentication failed at " + host + " (HTTP 401): " + what, false);
    }
    case 403:
        return make(ErrorKind::PermissionDenied, "the server forbids " + method + " here (HTTP 403 Forbidden)", false);
    case 405:
        if (method == "MKCOL")
            return make(ErrorKind::AlreadyExists, "something already has that name (HTTP 405)", false);
        return make(ErrorKind::Unsupported,
                    "the server does not allow " + method + " here (HTTP 405 Method Not Allowed)", false);
    case 409: return make(ErrorKind::NotFound, "the parent directory does not exist (HTTP 409 Conflict)", false);
    default: return http::statusError(response, {context.method, "WebDAV", {}});
    }
}

Error memberError(long status, std::string_view where, std::size_t others, const ErrorContext &context)
{
    const std::string method(context.method);
    const std::string said = " (in the server's 207 Multi-Status"
        + (others ? ", with " + std::to_string(others) + (others == 1 ? " other failure)" : " other failures)")
                  : std::string(")"));
    if (status == 0)
        return make(ErrorKind::Corrupt, method + " did not say what became of " + std::string(where) + said, false);
    http::Response member;
    member.status = status;
    Error e = webdavError(member, context);
    // Callers read AlreadyExists and NotFound as news of the request's own destination or
    // source ("nothing was moved"): a member's 412 or 404 says neither, and part of the
    // request may have been done.
    const bool misleading = e.kind() == ErrorKind::AlreadyExists || e.kind() == ErrorKind::NotFound;
    return make(misleading ? ErrorKind::Unexpected : e.kind(),
                method + " failed for " + std::string(where) + " with HTTP " + std::to_string(status) + said + ": "
                    + e.cause(),
                e.temporary());
}

} // namespace strata::webdav

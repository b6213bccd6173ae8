#include "core/storage/error.h"

#include <cerrno>
#include <cstring>

namespace strata {

std::string_view describe(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::Unexpected: return "an unexpected error occurred";
    case ErrorKind::NotFound: return "it does not exist";
    case ErrorKind::AlreadyExists: return "it already exists";
    case ErrorKind::PermissionDenied: return "permission denied";
    case ErrorKind::IsDirectory: return "it is a directory";
    case ErrorKind::NotDirectory: return "it is not a directory";
    case ErrorKind::DirectoryNotEmpty: return "the directory is not empty";
    case ErrorKind::InvalidInput: return "invalid input";
    case ErrorKind::Unsupported: return "this storage does not support it";
    case ErrorKind::RateLimited: return "the server is throttling requests";
    case ErrorKind::Timeout: return "the operation timed out";
    case ErrorKind::Network: return "a network error occurred";
    case ErrorKind::Corrupt: return "the data is corrupt";
    case ErrorKind::NoSpace: return "no space left on the destination";
    case ErrorKind::Cancelled: return "it was cancelled";
    case ErrorKind::Busy: return "it is busy";
    }
    return "an unexpected error occurred";
}

std::string_view identifier(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::Unexpected: return "unexpected";
    case ErrorKind::NotFound: return "not-found";
    case ErrorKind::AlreadyExists: return "already-exists";
    case ErrorKind::PermissionDenied: return "permission-denied";
    case ErrorKind::IsDirectory: return "is-directory";
    case ErrorKind::NotDirectory: return "not-directory";
    case ErrorKind::DirectoryNotEmpty: return "directory-not-empty";
    case ErrorKind::InvalidInput: return "invalid-input";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::RateLimited: return "rate-limited";
    case ErrorKind::Timeout: return "timeout";
    case ErrorKind::Network: return "network";
    case ErrorKind::Corrupt: return "corrupt";
    case ErrorKind::NoSpace: return "no-space";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::Busy: return "busy";
    }
    return "unexpected";
}

bool isTemporaryByDefault(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::RateLimited:
    case ErrorKind::Timeout:
    case ErrorKind::Network:
    case ErrorKind::Busy: return true;
    default: return false;
    }
}

Error::Error(ErrorKind kind, std::string cause)
    : m_kind(kind), m_temporary(isTemporaryByDefault(kind)), m_cause(std::move(cause))
{
}

Error &Error::withContext(std::string_view operation, std::string_view redactedUri)
{
    if (m_operation.empty())
        m_operation = operation;
    if (m_uri.empty())
        m_uri = redactedUri;
    return *this;
}

std::string Error::message() const
{
    std::string out;
    if (!m_operation.empty()) {
        out += "cannot ";
        out += m_operation;
        if (!m_uri.empty()) {
            out += ' ';
            out += m_uri;
        }
        out += ": ";
    } else if (!m_uri.empty()) {
        out += m_uri;
        out += ": ";
    }
    // For these kinds the cause is the explanation; for the others it is the detail.
    if ((m_kind == ErrorKind::InvalidInput || m_kind == ErrorKind::Unexpected) && !m_cause.empty()) {
        out += m_cause;
    } else {
        out += describe(m_kind);
        if (!m_cause.empty()) {
            out += " (";
            out += m_cause;
            out += ')';
        }
    }
    if (m_temporary)
        out += "; this may be temporary, try again";
    return out;
}

Error errorFromErrno(int err, std::string_view detail)
{
    ErrorKind kind = ErrorKind::Unexpected;
    switch (err) {
    case ENOENT: kind = ErrorKind::NotFound; break;
    case EEXIST: kind = ErrorKind::AlreadyExists; break;
    case EACCES:
    case EPERM:
    case EROFS: kind = ErrorKind::PermissionDenied; break;
    case EISDIR: kind = ErrorKind::IsDirectory; break;
    case ENOTDIR: kind = ErrorKind::NotDirectory; break;
    case ENOTEMPTY: kind = ErrorKind::DirectoryNotEmpty; break;
    case ENOSPC:
    case EDQUOT:
    case EFBIG: kind = ErrorKind::NoSpace; break;
    case EINVAL:
    case ENAMETOOLONG:
    case ELOOP:
    case EXDEV: kind = ErrorKind::InvalidInput; break;
    case ENOSYS:
    case EOPNOTSUPP: kind = ErrorKind::Unsupported; break;
    case ETIMEDOUT: kind = ErrorKind::Timeout; break;
    case EBUSY:
    case EAGAIN:
    case EINTR: kind = ErrorKind::Busy; break;
    case EIO: kind = ErrorKind::Unexpected; break;
    default: break;
    }
    std::string cause = std::strerror(err);
    if (!detail.empty()) {
        cause += ", ";
        cause += detail;
    }
    return Error(kind, std::move(cause));
}

Error noAnswer(std::string_view server, std::chrono::milliseconds timeout)
{
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout + std::chrono::milliseconds(500));
    return Error(ErrorKind::Timeout,
                 "no answer from " + std::string(server) + " for " + std::to_string(seconds.count()) + " s")
        .setTemporary(true);
}

Error interrupted()
{
    return Error(ErrorKind::Cancelled, "interrupted");
}

} // namespace strata

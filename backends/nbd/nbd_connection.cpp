#include "backends/nbd/nbd_connection.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace strata::nbd {

namespace {

ErrorKind kindOfErrno(int err)
{
    switch (err) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return ErrorKind::NoSpace;
    case EPERM:
    case EACCES:
    case EROFS:
        return ErrorKind::PermissionDenied;
    case EINVAL:
    case EOVERFLOW:
        return ErrorKind::InvalidInput;
    case ENOENT:
        return ErrorKind::NotFound;
    case ENOTSUP:
        return ErrorKind::Unsupported;
    case ETIMEDOUT:
        return ErrorKind::Timeout;
    case ENOTCONN:
    case ESHUTDOWN:
    case ECONNRESET:
    case ECONNREFUSED:
    case EPIPE:
        return ErrorKind::Network;
    default:
        return ErrorKind::Unexpected;
    }
}

} // namespace

Error commandError(int err, std::string_view what)
{
    Error error(kindOfErrno(err), std::string(what) + ": " + std::strerror(err));
    error.setTemporary(err == EIO || err == ETIMEDOUT || err == ECONNRESET || err == ENOTCONN || err == ESHUTDOWN
                       || err == EPIPE);
    return error;
}

Error libraryError(std::string_view what)
{
    const int err = nbd_get_errno();
    const char *message = nbd_get_error();
    std::string cause = std::string(what) + ": " + (message && *message ? message : std::strerror(err ? err : EIO));
    Error error(err ? kindOfErrno(err) : ErrorKind::Unexpected, std::move(cause));
    error.setTemporary(err == ENOTCONN || err == ESHUTDOWN || err == ECONNRESET || err == EPIPE);
    return error;
}

} // namespace strata::nbd

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
    case EFBIG: return ErrorKind::NoSpace;
    case EPERM:
    case EACCES:
    case EROFS: return ErrorKind::PermissionDenied;
    case EINVAL:
    case EOVERFLOW: return ErrorKind::InvalidInput;
    case ENOENT: return ErrorKind::NotFound;
    case ENOTSUP: return ErrorKind::Unsupported;
    case ETIMEDOUT: return ErrorKind::Timeout;
    case ENOTCONN:
    case ESHUTDOWN:
    case ECONNRESET:
    case ECONNREFUSED:
    case EPIPE: return ErrorKind::Network;
    default: return ErrorKind::Unexpected;
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

int Connection::extentsFound(void *user, const char *context, std::uint64_t offset, std::uint32_t *entries,
                             std::size_t count, int *error)
{
    (void)offset;
    (void)error;
    if (std::strcmp(context, LIBNBD_CONTEXT_BASE_ALLOCATION) != 0)
        return 0;
    auto *command = static_cast<Command *>(user);
    std::uint64_t pos = command->offset;
    for (std::size_t i = 0; i + 1 < count; i += 2) {
        const std::uint64_t length = entries[i];
        const std::uint32_t flags = entries[i + 1];
        ExtentKind kind = ExtentKind::Data;
        if (flags & LIBNBD_STATE_ZERO)
            kind = (flags & LIBNBD_STATE_HOLE) ? ExtentKind::Hole : ExtentKind::Zero;
        command->extents->push_back({pos, length, kind});
        pos += length;
    }
    return 0;
}

} // namespace strata::nbd

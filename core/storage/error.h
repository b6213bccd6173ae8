#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

enum class ErrorKind : std::uint8_t {
    Unexpected,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    IsDirectory,
    NotDirectory,
    DirectoryNotEmpty,
    InvalidInput,
    Unsupported,
    RateLimited,
    Timeout,
    Network,
    Corrupt,
    NoSpace,
    Cancelled,
    Busy,
};

// A short user-facing phrase ("does not exist") and a stable identifier ("not-found").
std::string_view describe(ErrorKind kind);
std::string_view identifier(ErrorKind kind);

// Whether a kind is usually worth retrying; a backend may still mark any error either way.
bool isTemporaryByDefault(ErrorKind kind);

// An error as a value: what kind, whether retrying may help, which operation on which
// (already redacted) URI, and the underlying cause in words.
class Error {
public:
    Error() = default;
    Error(ErrorKind kind, std::string cause = {});

    ErrorKind kind() const { return m_kind; }
    bool temporary() const { return m_temporary; }
    const std::string &operation() const { return m_operation; }
    const std::string &uri() const { return m_uri; }
    const std::string &cause() const { return m_cause; }

    Error &setTemporary(bool temporary)
    {
        m_temporary = temporary;
        return *this;
    }
    Error &setOperation(std::string operation)
    {
        m_operation = std::move(operation);
        return *this;
    }
    // The caller passes a redacted URI; Error never sees a secret.
    Error &setUri(std::string redactedUri)
    {
        m_uri = std::move(redactedUri);
        return *this;
    }
    Error &setCause(std::string cause)
    {
        m_cause = std::move(cause);
        return *this;
    }
    // Fills operation and URI only when a deeper layer has not already set them.
    Error &withContext(std::string_view operation, std::string_view redactedUri);

    // One sentence: "cannot read memory://demo/a.txt: it does not exist (no such object)".
    std::string message() const;

private:
    ErrorKind m_kind = ErrorKind::Unexpected;
    bool m_temporary = false;
    std::string m_operation;
    std::string m_uri;
    std::string m_cause;
};

// Maps an errno value to an error (kind, temporary flag, strerror as cause).
Error errorFromErrno(int err, std::string_view detail = {});

// How a request that moved no byte for `timeout` fails, whatever the protocol: a temporary
// Timeout ("no answer from HOST for 30 s").
Error noAnswer(std::string_view server, std::chrono::milliseconds timeout);
// How a request cut by SocketWatch::hangUp() (or a library's own stop) fails: Cancelled.
Error interrupted();

} // namespace strata

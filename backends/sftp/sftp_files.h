#pragma once

// What the SFTP backend's parts share: a file's attributes as Strata reads them, an open
// file's handle, and the requests every part makes (each says what failed through `what`).
#include "backends/sftp/sftp_session.h"
#include "core/storage/entry.h"

#include <libssh/sftp.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace strata::sftp {

// What Strata reads of a file's attributes (libssh's own struct is freed at once).
struct Attributes {
    std::uint32_t flags = 0;
    std::uint64_t size = 0;
    std::uint32_t permissions = 0;
    std::uint32_t mtime = 0;
    std::uint32_t uid = 0; // with SSH_FILEXFER_ATTR_UIDGID
};

// Copies what Strata reads and frees libssh's struct.
Attributes taken(sftp_attributes a);

constexpr std::uint32_t kTypeBits = 0170000, kFolder = 0040000, kLink = 0120000, kRegular = 0100000;

// An open file, closed when it goes.
class Handle {
public:
    Handle() = default;
    explicit Handle(sftp_file file) : m_file(file) {}
    Handle(Handle &&other) noexcept : m_file(std::exchange(other.m_file, nullptr)) {}
    Handle &operator=(Handle &&other) noexcept
    {
        reset();
        m_file = std::exchange(other.m_file, nullptr);
        return *this;
    }
    ~Handle() { reset(); }
    sftp_file get() const { return m_file; }
    explicit operator bool() const { return m_file != nullptr; }
    // Closing waits for the server's answer: its result matters after writes.
    int close() { return m_file ? sftp_close(std::exchange(m_file, nullptr)) : 0; }
    void reset() { (void)close(); }
    sftp_file release() { return std::exchange(m_file, nullptr); }

private:
    sftp_file m_file = nullptr;
};

Result<Attributes> lstatOn(Session &s, const std::string &path, std::string_view what);
Result<Handle> openOn(Session &s, const std::string &path, int access, mode_t mode, std::string_view what);
Result<Attributes> fstatOn(Session &s, sftp_file file, std::string_view what);
Status setAttributes(Session &s, const std::string &path, sftp_attributes_struct &attrs, std::string_view what);
EntryKind kindOf(const Attributes &a);
bool exists(const Result<Attributes> &attrs);
Entry entryOf(std::string name, std::string path, const Attributes &a);
std::string readlinkOn(Session &s, const std::string &path); // empty when it cannot be read
// The server's realpath of `path` (every symlink on the way resolved).
Result<std::string> realpathOn(Session &s, const std::string &path, std::string_view what);
std::string dirOf(const std::string &serverPath);
bool removeFile(Session &s, const std::string &path);
// Renames; replaces a file only when `replace` (see sftp_files.cpp).
Status renameOn(Session &s, const std::string &from, const std::string &to, bool replace, std::string_view what);
// Writes all of `data` at the file's position, in requests as large as the server takes.
Status writeAll(Session &s, sftp_file file, std::span<const std::byte> data, std::string_view what);

} // namespace strata::sftp

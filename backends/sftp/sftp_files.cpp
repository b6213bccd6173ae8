#include "backends/sftp/sftp_files.h"

#include "core/storage/random.h"

#include <algorithm>
#include <fcntl.h>

namespace strata::sftp {

Attributes taken(sftp_attributes a)
{
    Attributes out{a->flags, a->size, a->permissions, a->mtime, a->uid};
    sftp_attributes_free(a);
    return out;
}

Result<Attributes> lstatOn(Session &s, const std::string &path, std::string_view what)
{
    sftp_attributes a = sftp_lstat(s.sftp(), path.c_str());
    if (!a)
        return s.error(what);
    return taken(a);
}

Result<Handle> openOn(Session &s, const std::string &path, int access, mode_t mode, std::string_view what)
{
    sftp_file file = sftp_open(s.sftp(), path.c_str(), access, mode);
    if (!file)
        return s.error(what);
    return Handle(file);
}

Result<Attributes> fstatOn(Session &s, sftp_file file, std::string_view what)
{
    sftp_attributes a = sftp_fstat(file);
    if (!a)
        return s.error(what);
    return taken(a);
}

Status setAttributes(Session &s, const std::string &path, sftp_attributes_struct &attrs, std::string_view what)
{
    if (sftp_setstat(s.sftp(), path.c_str(), &attrs) < 0)
        return s.error(what);
    return {};
}

EntryKind kindOf(const Attributes &a)
{
    if (!(a.flags & SSH_FILEXFER_ATTR_PERMISSIONS))
        return EntryKind::File;
    switch (a.permissions & kTypeBits) {
    case kFolder: return EntryKind::Directory;
    case kLink: return EntryKind::Symlink;
    case kRegular: return EntryKind::File;
    default: return EntryKind::Other;
    }
}

bool exists(const Result<Attributes> &attrs)
{
    return attrs.ok();
}

Entry entryOf(std::string name, std::string path, const Attributes &a)
{
    Entry e;
    e.name = std::move(name);
    e.path = std::move(path);
    e.kind = kindOf(a);
    if (a.flags & SSH_FILEXFER_ATTR_SIZE && e.kind != EntryKind::Directory)
        e.size = a.size;
    if (a.flags & SSH_FILEXFER_ATTR_ACMODTIME)
        e.mtimeNs = std::int64_t(a.mtime) * 1'000'000'000;
    if (a.flags & SSH_FILEXFER_ATTR_PERMISSIONS)
        e.mode = std::uint32_t(a.permissions & 07777);
    return e;
}

std::string readlinkOn(Session &s, const std::string &path)
{
    char *target = sftp_readlink(s.sftp(), path.c_str());
    if (!target)
        return {};
    std::string text = target;
    ssh_string_free_char(target);
    return text;
}

std::string dirOf(const std::string &serverPath)
{
    const auto slash = serverPath.rfind('/');
    return slash == 0 ? "/" : serverPath.substr(0, slash);
}

Result<std::string> realpathOn(Session &s, const std::string &path, std::string_view what)
{
    char *real = sftp_canonicalize_path(s.sftp(), path.c_str());
    if (!real)
        return s.error(what);
    std::string result(real);
    ssh_string_free_char(real);
    return result;
}

bool removeFile(Session &s, const std::string &path)
{
    return sftp_unlink(s.sftp(), path.c_str()) == 0;
}

// Renames, and where the server will not replace (libssh 0.10 sends SFTP v3's rename,
// which refuses an existing name, OpenSSH's by link and unlink: atomic, never replacing),
// replaces a file in three steps: the old one aside, the new one in, the old one gone. A
// failure puts the old one back.
Status renameOn(Session &s, const std::string &from, const std::string &to, bool replace, std::string_view what)
{
    if (sftp_rename(s.sftp(), from.c_str(), to.c_str()) == 0)
        return {};
    Error first = s.error(what);
    if (s.broken())
        return first;
    auto there = lstatOn(s, to, what);
    if (!exists(there))
        return first;
    if (!replace)
        return Error(ErrorKind::AlreadyExists, std::string(what) + ": something is there");
    if (kindOf(*there) == EntryKind::Directory)
        return Error(ErrorKind::IsDirectory, std::string(what) + ": a folder is there");
    const std::string aside = dirOf(to) + "/.strata-old-" + std::to_string(randomU64()) + ".part";
    if (sftp_rename(s.sftp(), to.c_str(), aside.c_str()) != 0)
        return s.error(what);
    if (sftp_rename(s.sftp(), from.c_str(), to.c_str()) != 0) {
        Error failed = s.error(what);
        if (!s.broken())
            (void)sftp_rename(s.sftp(), aside.c_str(), to.c_str());
        return failed;
    }
    (void)removeFile(s, aside);
    return {};
}

// Writes all of `data` at the file's position, in requests as large as the server takes
// (each one answered before the next: libssh 0.10 has no writes in flight).
Status writeAll(Session &s, sftp_file file, std::span<const std::byte> data, std::string_view what)
{
    while (!data.empty()) {
        const std::size_t n = std::min(data.size(), s.writeChunk());
        if (sftp_write(file, data.data(), n) != ssize_t(n))
            return s.error(what);
        data = data.subspan(n);
    }
    return {};
}

} // namespace strata::sftp

#include "backends/fs/file_backend.h"

#include "backends/fs/file_writer.h"
#include "core/io/file_mode.h"
#include "core/storage/confinement.h"
#include "core/storage/path.h"
#include "core/storage/random.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace strata {

namespace {

bool g_noOpenat2 = false; // set once when the kernel lacks openat2 (before 5.6)

long openat2(int dirfd, const char *path, int flags, unsigned mode,
             std::uint64_t resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
{
    open_how how{};
    how.flags = std::uint64_t(flags);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
    how.resolve = resolve;
    for (;;) {
        long fd = ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
        if (fd >= 0 || errno != EAGAIN)
            return fd;
    }
}

Entry entryFromStat(const struct stat &st, std::string_view path)
{
    Entry e;
    e.path = std::string(path);
    e.name = std::string(baseName(path));
    switch (st.st_mode & S_IFMT) {
    case S_IFREG: e.kind = EntryKind::File; break;
    case S_IFDIR: e.kind = EntryKind::Directory; break;
    case S_IFLNK: e.kind = EntryKind::Symlink; break;
    default: e.kind = EntryKind::Other; break;
    }
    e.size = e.kind == EntryKind::Directory ? 0 : std::uint64_t(st.st_size);
    e.allocated = std::uint64_t(st.st_blocks) * 512;
    e.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    e.mode = st.st_mode & 07777;
    e.device = std::uint64_t(st.st_dev);
    e.inode = std::uint64_t(st.st_ino);
    e.links = std::uint32_t(st.st_nlink);
    return e;
}

std::string readLink(int dirfd, const char *name)
{
    char buf[4096];
    ssize_t n = ::readlinkat(dirfd, name, buf, sizeof buf);
    return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

// The bits a new file gets (see WriteOptions::mode); `existing` is the mode of the file it
// replaces, if it replaces one.
mode_t finalMode(const WriteOptions &options, std::optional<mode_t> existing)
{
    if (options.mode && options.exactMode)
        return mode_t(copyMode(*options.mode, true));
    if (existing)
        return *existing & 07777; // replacing a file keeps its permissions: a private file stays private
    return mode_t(copyMode(options.mode.value_or(0666), false));
}

// Copies [offset, offset + length) of `in` to the same place of `out` in the kernel.
Status copyFdRange(int in, std::uint64_t offset, std::uint64_t length, int out)
{
    // copy_file_range reads through splice, which gets no readahead: on a cold cache it
    // fetches page by page. Asking for the whole range first makes it one large read.
    // The range after this one is asked for too: sequential callers find it on its way.
    ::posix_fadvise(in, off_t(offset), off_t(2 * length), POSIX_FADV_WILLNEED);
    loff_t inOff = loff_t(offset), outOff = loff_t(offset);
    std::uint64_t left = length;
    while (left > 0) {
        ssize_t n =
            ::copy_file_range(in, &inOff, out, &outOff, std::size_t(std::min<std::uint64_t>(left, 1u << 30)), 0);
        if (n > 0) {
            left -= std::uint64_t(n);
            continue;
        }
        if (n == 0)
            return Error(ErrorKind::Corrupt, "the source ended early; it may have changed during the copy");
        if (errno == EINTR)
            continue;
        if (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP || errno == EBADF)
            return unsupported("an in-kernel copy between these file systems");
        return errorFromErrno(errno);
    }
    return {};
}

Result<std::size_t> preadAll(int fd, std::uint64_t offset, std::span<std::byte> buffer)
{
    std::size_t done = 0;
    while (done < buffer.size()) {
        ssize_t n = ::pread(fd, buffer.data() + done, buffer.size() - done, off_t(offset + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errorFromErrno(errno);
        }
        if (n == 0)
            break;
        done += std::size_t(n);
    }
    return done;
}

// A local file held open: reads and in-kernel copies come from it, whatever is renamed
// over its name meanwhile.
class FileReader final : public Reader {
    static constexpr std::size_t kAheadFrom = 1u << 20;

public:
    explicit FileReader(UniqueFd fd) : m_fd(std::move(fd)) {}
    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        // A copy's large reads: this range and the next one are asked for first, so that
        // the disk fetches the next while this one is being sent (the kernel's own
        // readahead is far smaller than a copy's buffer, and a cold read then waits for
        // the disk at every buffer: 200 MiB to FTP took 0.85 s cold, 0.30 s warm).
        if (buffer.size() >= kAheadFrom)
            ::posix_fadvise(m_fd.get(), off_t(offset), off_t(2 * buffer.size()), POSIX_FADV_WILLNEED);
        return preadAll(m_fd.get(), offset, buffer);
    }
    Status copyRangeTo(std::uint64_t offset, std::uint64_t length, Writer &to) override
    {
        const int out = to.nativeHandle();
        if (out < 0)
            return unsupported("copying into this writer inside the file system");
        return copyFdRange(m_fd.get(), offset, length, out);
    }

private:
    UniqueFd m_fd;
};

// A sentence for the cases where errno alone would mislead.
Error fsError(int err)
{
    if (err == ELOOP)
        return Error(ErrorKind::InvalidInput, "too many levels of symbolic links, or a link that is not followed here");
    return errorFromErrno(err);
}

} // namespace

Result<std::shared_ptr<FileBackend>> FileBackend::open(std::string rootPath, FileBackendOptions options)
{
    int fd = ::open(rootPath.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errorFromErrno(errno, "while opening the root directory");
    return std::make_shared<FileBackend>(UniqueFd(fd), std::move(rootPath), options);
}

FileBackend::FileBackend(UniqueFd root, std::string rootPath, FileBackendOptions options)
    : m_root(std::move(root)), m_rootPath(std::move(rootPath)), m_options(options)
{
    while (m_rootPath.size() > 1 && m_rootPath.back() == '/')
        m_rootPath.pop_back();
}

Capabilities FileBackend::capabilities() const
{
    return {Capability::Stat,
            Capability::List,
            Capability::Read,
            Capability::Write,
            Capability::Remove,
            Capability::CreateDir,
            Capability::Rename,
            Capability::Copy,
            Capability::Extents,
            Capability::RangedRead,
            Capability::PositionalWrite,
            Capability::Symlinks,
            Capability::RealDirectories,
            Capability::KeepsModifiedTime};
}

Uri FileBackend::uriFor(std::string_view path) const
{
    std::string full = m_rootPath == "/" ? std::string(path) : m_rootPath + std::string(path == "/" ? "" : path);
    return Uri::fromLocalPath(full.empty() ? "/" : full);
}

Result<UniqueFd> FileBackend::openBeneath(std::string_view path, int flags, unsigned mode) const
{
    // Paths are normalised and absolute; beneath the root they are relative. Short paths
    // are built on the stack: reads on the copy hot path allocate nothing.
    char stackPath[512];
    std::string heapPath;
    const char *rel = ".";
    if (path != "/") {
        auto tail = path.substr(1);
        if (tail.size() < sizeof stackPath) {
            std::memcpy(stackPath, tail.data(), tail.size());
            stackPath[tail.size()] = '\0';
            rel = stackPath;
        } else {
            heapPath = std::string(tail);
            rel = heapPath.c_str();
        }
    }
    flags |= O_CLOEXEC;
    if (!g_noOpenat2) {
        long fd = openat2(m_root.get(), rel, flags, mode);
        if (fd >= 0)
            return UniqueFd(int(fd));
        if (errno != ENOSYS)
            return fsError(errno);
        g_noOpenat2 = true;
    }
    // Old kernels: walk the segments without following any symlink, so nothing escapes.
    UniqueFd dir(::openat(m_root.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir)
        return fsError(errno);
    const std::string relative(rel);
    std::size_t pos = 0;
    while (true) {
        std::size_t slash = relative.find('/', pos);
        std::string seg = relative.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
        if (slash == std::string::npos) {
            int fd = ::openat(dir.get(), seg.c_str(), flags | O_NOFOLLOW, mode);
            if (fd < 0)
                return fsError(errno);
            return UniqueFd(fd);
        }
        int next = ::openat(dir.get(), seg.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0)
            return fsError(errno);
        dir.reset(next);
        pos = slash + 1;
    }
}

Result<std::pair<UniqueFd, std::string>> FileBackend::openParent(std::string_view path) const
{
    if (path == "/")
        return Error(ErrorKind::InvalidInput, "the root has no parent");
    auto dir = openBeneath(parentPath(path), O_PATH | O_DIRECTORY);
    if (!dir) {
        if (dir.error().kind() == ErrorKind::NotFound)
            dir.error().setCause("the parent directory does not exist");
        return std::move(dir).error();
    }
    return std::pair{std::move(*dir), std::string(baseName(path))};
}

Result<std::pair<UniqueFd, std::string>> FileBackend::openParentConfined(std::string_view path,
                                                                         std::string_view confineBelow) const
{
    const std::string_view parent = parentPath(path);
    if (confineBelow.empty() || m_options.followSymlinks
        || (parent != confineBelow && !isStrictlyBelow(parent, confineBelow)))
        return openParent(path);
    // What the user named is taken as it resolves (links included); below it, none.
    auto top = openBeneath(confineBelow, O_PATH | O_DIRECTORY);
    if (!top)
        return std::move(top).error();
    if (parent == confineBelow)
        return std::pair{std::move(*top), std::string(baseName(path))};
    const std::string rel(parent.substr(confineBelow == "/" ? 1 : confineBelow.size() + 1));
    const auto planted = [] { return plantedLinkError(); };
    if (!g_noOpenat2) {
        long fd = openat2(top->get(), rel.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
                          RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        if (fd >= 0)
            return std::pair{UniqueFd(int(fd)), std::string(baseName(path))};
        if (errno == ELOOP || errno == EXDEV)
            return planted();
        if (errno != ENOSYS)
            return fsError(errno);
    }
    // Old kernels: one segment at a time, none followed.
    UniqueFd dir = std::move(*top);
    for (std::size_t pos = 0; pos <= rel.size();) {
        const std::size_t slash = std::min(rel.find('/', pos), rel.size());
        const std::string seg = rel.substr(pos, slash - pos);
        int next = ::openat(dir.get(), seg.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0)
            return errno == ELOOP || errno == ENOTDIR ? Result<std::pair<UniqueFd, std::string>>(planted())
                                                      : Result<std::pair<UniqueFd, std::string>>(fsError(errno));
        dir.reset(next);
        pos = slash + 1;
    }
    return std::pair{std::move(dir), std::string(baseName(path))};
}

Result<UniqueFd> FileBackend::openFile(std::string_view path, int flags, struct stat &st) const
{
    auto fd = openBeneath(path, flags);
    if (!fd)
        return fd;
    if (::fstat(fd->get(), &st) != 0)
        return errorFromErrno(errno);
    if (S_ISDIR(st.st_mode))
        return Error(ErrorKind::IsDirectory);
    return fd;
}

Result<std::unique_ptr<Reader>> FileBackend::openReader(std::string_view path, const Entry &expected)
{
    // Opened once, never through a symlink at the name (unless links are followed), and
    // only if it is the file that was listed.
    struct stat st {};
    auto fd = openFile(path, O_RDONLY | (m_options.followSymlinks ? 0 : O_NOFOLLOW), st);
    if (!fd) {
        if (fd.error().kind() == ErrorKind::InvalidInput)
            return Error(ErrorKind::InvalidInput,
                         "it is a symbolic link now (a file when listed); links are not followed");
        return std::move(fd).error();
    }
    if (expected.device && expected.inode
        && (std::uint64_t(st.st_dev) != *expected.device || std::uint64_t(st.st_ino) != *expected.inode))
        return Error(ErrorKind::Corrupt, "another file is at its name since it was listed; not read");
    return std::unique_ptr<Reader>(std::make_unique<FileReader>(std::move(*fd)));
}

Result<Entry> FileBackend::stat(std::string_view path)
{
    struct stat st {};
    if (path == "/" || m_options.followSymlinks) {
        auto fd = openBeneath(path, O_PATH);
        if (!fd)
            return std::move(fd).error();
        if (::fstat(fd->get(), &st) != 0)
            return errorFromErrno(errno);
        return entryFromStat(st, path);
    }
    auto parent = openParent(path);
    if (!parent)
        return std::move(parent).error();
    auto &[dir, leaf] = *parent;
    if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errorFromErrno(errno);
    Entry e = entryFromStat(st, path);
    if (e.kind == EntryKind::Symlink)
        e.symlinkTarget = readLink(dir.get(), leaf.c_str());
    return e;
}

Result<ListPage> FileBackend::list(std::string_view dirPath, const ListOptions &options)
{
    auto fd = openBeneath(dirPath, O_RDONLY | O_DIRECTORY);
    if (!fd)
        return std::move(fd).error();
    const int dirFd = fd->get();
    DIR *dir = ::fdopendir(fd->release());
    if (!dir)
        return errorFromErrno(errno);
    struct Closer {
        DIR *d;
        ~Closer() { ::closedir(d); }
    } closer{dir};

    // The page token is the directory position after the last entry returned (a
    // telldir cookie, stable across opens as NFS relies on), so pages never overlap.
    if (!options.pageToken.empty()) {
        long pos = 0;
        auto [ptr, ec] =
            std::from_chars(options.pageToken.data(), options.pageToken.data() + options.pageToken.size(), pos);
        if (ec != std::errc())
            return Error(ErrorKind::InvalidInput, "the listing page token is not valid");
        ::seekdir(dir, pos);
    }
    ListPage page;
    const std::size_t limit = std::max<std::size_t>(1, options.pageSize);
    page.entries.reserve(std::min<std::size_t>(limit, 4096));
    bool more = false;
    for (;;) {
        errno = 0;
        const dirent *d = ::readdir(dir);
        if (!d) {
            if (errno != 0)
                return errorFromErrno(errno);
            break;
        }
        std::string_view name(d->d_name);
        if (name == "." || name == "..")
            continue;
        if (page.entries.size() == limit) {
            more = true;
            break;
        }
        std::string childPath = joinPath(dirPath, name);
        struct stat st {};
        const int flags = m_options.followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW;
        if (::fstatat(dirFd, d->d_name, &st, flags) != 0) {
            if (errno == ENOENT)
                continue; // removed meanwhile
            // A dangling or looping symlink when following: report the link itself.
            if (::fstatat(dirFd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
        }
        Entry e = entryFromStat(st, childPath);
        if (e.kind == EntryKind::Symlink)
            e.symlinkTarget = readLink(dirFd, d->d_name);
        page.entries.push_back(std::move(e));
        page.nextPageToken = std::to_string(::telldir(dir));
    }
    if (!more)
        page.nextPageToken.clear();
    return page;
}

Result<std::size_t> FileBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    auto fd = openBeneath(path, O_RDONLY);
    if (!fd)
        return std::move(fd).error();
    return preadAll(fd->get(), offset, buffer);
}

Result<std::unique_ptr<FileWriter>> FileBackend::makeWriter(std::string_view path, const WriteOptions &options)
{
    auto parent = openParentConfined(path, options.confineBelow);
    if (!parent)
        return std::move(parent).error();
    auto &[dir, leaf] = *parent;
    // O_PATH descriptors cannot create files; reopen the directory for that.
    UniqueFd dirFd(::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dirFd)
        return errorFromErrno(errno);

    struct stat existing {};
    const bool exists = ::fstatat(dirFd.get(), leaf.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
    if (exists && S_ISDIR(existing.st_mode))
        return Error(ErrorKind::IsDirectory);
    if (exists && !options.overwrite)
        return Error(ErrorKind::AlreadyExists);

    std::string tmpName;
    if (!options.resumeKey.empty()) {
        // A named, stable temporary file: what was written survives a crash or a pause.
        tmpName = resumePartName(options.resumeKey);
        // Private while written; never through a symlink. What is there is trusted only when
        // it is ours: a regular file of this user with no other name (a hard link planted
        // under the name would make us write into another file). Else its name goes.
        int fd = ::openat(dirFd.get(), tmpName.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != ELOOP)
            return errorFromErrno(errno);
        UniqueFd file(fd);
        struct stat partial {};
        const bool ours = file && ::fstat(file.get(), &partial) == 0 && S_ISREG(partial.st_mode)
            && partial.st_uid == ::geteuid() && partial.st_nlink == 1;
        if (!ours) {
            file.reset();
            if (::unlinkat(dirFd.get(), tmpName.c_str(), 0) != 0 && errno != ENOENT)
                return Error(ErrorKind::PermissionDenied,
                             "the partial file of an earlier transfer is not this user's and "
                             "cannot be removed: "
                                 + tmpName);
            fd = ::openat(dirFd.get(), tmpName.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (fd < 0)
                return errorFromErrno(errno);
            file.reset(fd);
            partial = {};
        }
        const auto mode =
            finalMode(options, exists && S_ISREG(existing.st_mode) ? std::optional(existing.st_mode) : std::nullopt);
        return std::make_unique<FileWriter>(std::move(dirFd), leaf, std::move(file), std::move(tmpName), options, mode,
                                            true, std::uint64_t(partial.st_size));
    }
    int fd = ::openat(dirFd.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT)) {
        // No O_TMPFILE here: a hidden name that a crash could leave, but never the real one.
        for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
            tmpName = temporaryPartName();
            fd = ::openat(dirFd.get(), tmpName.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (fd < 0 && errno != EEXIST)
                break;
        }
    }
    if (fd < 0)
        return errorFromErrno(errno);
    UniqueFd file(fd);
    if (options.sizeHint && *options.sizeHint > 0)
        ::posix_fadvise(file.get(), 0, off_t(*options.sizeHint), POSIX_FADV_SEQUENTIAL);
    const auto mode =
        finalMode(options, exists && S_ISREG(existing.st_mode) ? std::optional(existing.st_mode) : std::nullopt);
    return std::make_unique<FileWriter>(std::move(dirFd), leaf, std::move(file), std::move(tmpName), options, mode);
}

Result<std::unique_ptr<Writer>> FileBackend::write(std::string_view path, const WriteOptions &options)
{
    auto writer = makeWriter(path, options);
    if (!writer)
        return std::move(writer).error();
    return std::unique_ptr<Writer>(std::move(*writer));
}

Status FileBackend::remove(std::string_view path, std::string_view within)
{
    auto parent = openParentConfined(path, within);
    if (!parent)
        return parent.error().kind() == ErrorKind::NotFound ? Status{} : Status(std::move(parent).error());
    auto &[dir, leaf] = *parent;
    if (::unlinkat(dir.get(), leaf.c_str(), 0) == 0)
        return {};
    if (errno == EISDIR && ::unlinkat(dir.get(), leaf.c_str(), AT_REMOVEDIR) == 0)
        return {};
    if (errno == ENOENT)
        return {};
    if (errno == EEXIST)
        errno = ENOTEMPTY;
    return errorFromErrno(errno);
}

Status FileBackend::createDir(std::string_view path)
{
    auto parent = openParent(path);
    if (!parent)
        return std::move(parent).error();
    if (::mkdirat(parent->first.get(), parent->second.c_str(), 0777) != 0)
        return errorFromErrno(errno);
    return {};
}

Status FileBackend::rename(std::string_view from, std::string_view to, bool replace)
{
    if (to.starts_with(from) && to.size() > from.size() && to[from.size()] == '/')
        return Error(ErrorKind::InvalidInput, "a directory cannot be moved into itself");
    auto src = openParent(from);
    if (!src)
        return std::move(src).error();
    auto dst = openParent(to);
    if (!dst)
        return std::move(dst).error();
    const int from_ = src->first.get(), to_ = dst->first.get();
    const char *fromName = src->second.c_str(), *toName = dst->second.c_str();
    int rc = ::renameat2(from_, fromName, to_, toName, replace ? 0 : RENAME_NOREPLACE);
    if (rc != 0 && !replace && errno == EINVAL) {
        // No RENAME_NOREPLACE on this file system: look first (a narrow race, as mv -n).
        struct stat there {};
        if (::fstatat(to_, toName, &there, AT_SYMLINK_NOFOLLOW) == 0)
            return Error(ErrorKind::AlreadyExists);
        rc = ::renameat(from_, fromName, to_, toName);
    }
    if (rc != 0) {
        if (errno == EXDEV)
            return Error(ErrorKind::Unsupported, "renaming across file systems");
        return errorFromErrno(errno);
    }
    return {};
}

Status FileBackend::setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow)
{
    // Through an O_PATH descriptor of the name itself (never a symlink's target): chmod of
    // its /proc/self/fd link; fchmodat has no AT_SYMLINK_NOFOLLOW.
    if (path == "/")
        return Error(ErrorKind::InvalidInput, "the root's permissions are not changed");
    auto parent = openParentConfined(path, confineBelow);
    if (!parent)
        return std::move(parent).error();
    UniqueFd fd(::openat(parent->first.get(), parent->second.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd)
        return errorFromErrno(errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return errorFromErrno(errno);
    if (S_ISLNK(st.st_mode))
        return Error(ErrorKind::InvalidInput, "it is a symbolic link; its permissions are not set");
    char proc[64];
    std::snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd.get());
    if (::chmod(proc, mode_t(mode & 07777)) != 0)
        return errorFromErrno(errno);
    return {};
}

Status FileBackend::copy(std::string_view from, std::string_view to)
{
    auto src = openBeneath(from, O_RDONLY);
    if (!src)
        return std::move(src).error();
    struct stat st {};
    if (::fstat(src->get(), &st) != 0)
        return errorFromErrno(errno);
    if (S_ISDIR(st.st_mode))
        return Error(ErrorKind::IsDirectory, "server-side copy takes files only");
    WriteOptions options;
    options.sizeHint = std::uint64_t(st.st_size);
    options.mode = std::uint32_t(st.st_mode & 07777);
    auto writer = makeWriter(to, options);
    if (!writer)
        return std::move(writer).error();
    const int in = src->get();
    const int out = (*writer)->fd();
    const std::uint64_t size = std::uint64_t(st.st_size);

    // Copies [pos, end) in the kernel where it can (copy_file_range: no bytes through
    // user space, reflinks on file systems that share blocks), else through a buffer.
    bool kernelCopy = true;
    std::vector<std::byte> buffer;
    auto copyRange = [&](std::uint64_t pos, std::uint64_t end) -> Status {
        while (pos < end) {
            if (kernelCopy) {
                loff_t inOff = loff_t(pos), outOff = loff_t(pos);
                ssize_t n = ::copy_file_range(in, &inOff, out, &outOff,
                                              std::size_t(std::min<std::uint64_t>(end - pos, 1u << 30)), 0);
                if (n > 0) {
                    pos += std::uint64_t(n);
                    continue;
                }
                if (n == 0)
                    return {}; // source shrank
                if (errno == EINTR)
                    continue;
                if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP && errno != EBADF)
                    return errorFromErrno(errno);
                kernelCopy = false;
                buffer.resize(1u << 20);
            }
            ssize_t n =
                ::pread(in, buffer.data(), std::size_t(std::min<std::uint64_t>(end - pos, buffer.size())), off_t(pos));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return errorFromErrno(errno);
            }
            if (n == 0)
                return {};
            if (auto wst = (*writer)->writeAt(pos, std::span(buffer.data(), std::size_t(n))); !wst)
                return wst;
            pos += std::uint64_t(n);
        }
        return {};
    };

    // Only data ranges are copied; holes stay holes.
    std::uint64_t pos = 0;
    while (pos < size) {
        off_t data = ::lseek(in, off_t(pos), SEEK_DATA);
        if (data < 0) {
            if (errno == ENXIO)
                break;         // a hole to the end
            data = off_t(pos); // no SEEK_DATA here: copy everything
        }
        off_t hole = ::lseek(in, data, SEEK_HOLE);
        if (hole < 0)
            hole = off_t(size);
        if (auto cst = copyRange(std::uint64_t(data), std::uint64_t(hole)); !cst)
            return cst;
        pos = std::uint64_t(hole);
    }
    (*writer)->noteWritten(size);
    if (auto lst = (*writer)->setLength(size); !lst)
        return lst;
    return (*writer)->commit();
}

namespace {

// Whether the file system at `path` (or its nearest existing parent) takes names that
// differ only in case for the same name: FAT, exFAT, NTFS, SMB, casefold folders.
bool localNamesIgnoreCase(const std::string &path)
{
    // The nearest folder that exists (the destination may be created by the copy).
    std::string at = path;
    struct statfs fs {};
    while (::statfs(at.c_str(), &fs) != 0) {
        if (at.empty() || at == "/")
            return false;
        const auto slash = at.find_last_of('/');
        at = slash == 0 || slash == std::string::npos ? "/" : at.substr(0, slash);
    }
    switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x4d44:     // MSDOS_SUPER_MAGIC: FAT
    case 0x2011BAB0: // exFAT
    case 0x7366746e: // ntfs3
    case 0xFF534D42: // CIFS
    case 0xFE534D42: // SMB2
        return true;
    default: break;
    }
    // ext4, f2fs and tmpfs folders marked casefold (chattr +F).
    const int fd = ::open(at.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    int flags = 0;
    const bool folded = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_CASEFOLD_FL) != 0;
    ::close(fd);
    return folded;
}

} // namespace

bool FileBackend::namesIgnoreCase(std::string_view path) const
{
    std::string local = m_rootPath;
    if (local.empty() || local.back() != '/')
        local += '/';
    while (path.starts_with('/'))
        path.remove_prefix(1);
    return localNamesIgnoreCase(local + std::string(path));
}

std::optional<std::string> FileBackend::localPath(std::string_view path) const
{
    if (m_options.followSymlinks)
        return std::nullopt; // a view that follows links: the generic walk shows what it shows
    std::string out = m_rootPath;
    if (out.empty() || out.back() != '/')
        out += '/';
    while (path.starts_with('/'))
        path.remove_prefix(1);
    out += path;
    return out;
}

void FileBackend::willRead(std::string_view path, std::span<const Extent> ranges)
{
    auto fd = openBeneath(path, O_RDONLY);
    if (!fd)
        return;
    // Asynchronous: the kernel queues the reads (up to what memory allows) and returns.
    std::uint64_t budget = 512u << 20;
    for (const auto &r : ranges) {
        if (r.kind != ExtentKind::Data || budget == 0)
            continue;
        const std::uint64_t n = std::min(r.length, budget);
        ::posix_fadvise(fd->get(), off_t(r.offset), off_t(n), POSIX_FADV_WILLNEED);
        budget -= n;
    }
}

Status FileBackend::copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to)
{
    const int out = to.nativeHandle();
    if (out < 0)
        return unsupported("copying into this writer inside the file system");
    auto src = openBeneath(from, O_RDONLY);
    if (!src)
        return std::move(src).error();
    return copyFdRange(src->get(), offset, length, out);
}

Result<std::vector<Extent>> FileBackend::extents(std::string_view path)
{
    struct stat st {};
    auto fd = openFile(path, O_RDONLY, st);
    if (!fd)
        return std::move(fd).error();
    const std::uint64_t size = std::uint64_t(st.st_size);
    std::vector<Extent> out;
    std::uint64_t pos = 0;
    while (pos < size) {
        off_t data = ::lseek(fd->get(), off_t(pos), SEEK_DATA);
        if (data < 0) {
            if (errno == ENXIO) {
                out.push_back({pos, size - pos, ExtentKind::Hole});
                break;
            }
            out.push_back({pos, size - pos, ExtentKind::Data}); // no SEEK_DATA: all data
            break;
        }
        if (std::uint64_t(data) > pos)
            out.push_back({pos, std::uint64_t(data) - pos, ExtentKind::Hole});
        off_t hole = ::lseek(fd->get(), data, SEEK_HOLE);
        std::uint64_t end = hole < 0 ? size : std::min<std::uint64_t>(std::uint64_t(hole), size);
        out.push_back({std::uint64_t(data), end - std::uint64_t(data), ExtentKind::Data});
        pos = end;
    }
    return coalesce(std::move(out));
}

} // namespace strata

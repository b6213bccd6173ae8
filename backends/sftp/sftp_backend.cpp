#include "backends/sftp/sftp_backend.h"

#include "core/io/file_mode.h"
#include "core/storage/path.h"
#include "core/storage/random.h"

#include <libssh2.h>
#include <libssh2_sftp.h>

#include <algorithm>
#include <mutex>
#include <optional>

namespace strata::sftp {

namespace {

using Attributes = LIBSSH2_SFTP_ATTRIBUTES;

// An open file or folder handle, closed when it goes.
class Handle {
public:
    Handle() = default;
    explicit Handle(LIBSSH2_SFTP_HANDLE *handle) : m_handle(handle) {}
    Handle(Handle &&other) noexcept : m_handle(std::exchange(other.m_handle, nullptr)) {}
    Handle &operator=(Handle &&other) noexcept
    {
        reset();
        m_handle = std::exchange(other.m_handle, nullptr);
        return *this;
    }
    ~Handle() { reset(); }
    LIBSSH2_SFTP_HANDLE *get() const { return m_handle; }
    explicit operator bool() const { return m_handle != nullptr; }
    // Closing waits for the server's answers to writes still in flight: its result matters.
    int close() { return m_handle ? libssh2_sftp_close_handle(std::exchange(m_handle, nullptr)) : 0; }
    void reset() { (void)close(); }
    LIBSSH2_SFTP_HANDLE *release() { return std::exchange(m_handle, nullptr); }

private:
    LIBSSH2_SFTP_HANDLE *m_handle = nullptr;
};

Result<Attributes> lstatOn(Session &s, const std::string &path, std::string_view what)
{
    Attributes attrs{};
    const int rc = libssh2_sftp_stat_ex(s.sftp(), path.data(), unsigned(path.size()), LIBSSH2_SFTP_LSTAT, &attrs);
    if (rc < 0)
        return s.error(rc, what);
    return attrs;
}

Result<Handle> openOn(Session &s, const std::string &path, unsigned long flags, long mode, int type,
                      std::string_view what)
{
    LIBSSH2_SFTP_HANDLE *h = libssh2_sftp_open_ex(s.sftp(), path.data(), unsigned(path.size()), flags, mode, type);
    if (!h)
        return s.error(libssh2_session_last_errno(s.ssh()), what);
    return Handle(h);
}

EntryKind kindOf(const Attributes &a)
{
    if (!(a.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS))
        return EntryKind::File;
    switch (a.permissions & LIBSSH2_SFTP_S_IFMT) {
    case LIBSSH2_SFTP_S_IFDIR: return EntryKind::Directory;
    case LIBSSH2_SFTP_S_IFLNK: return EntryKind::Symlink;
    case LIBSSH2_SFTP_S_IFREG: return EntryKind::File;
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
    if (a.flags & LIBSSH2_SFTP_ATTR_SIZE && e.kind != EntryKind::Directory)
        e.size = a.filesize;
    if (a.flags & LIBSSH2_SFTP_ATTR_ACMODTIME)
        e.mtimeNs = std::int64_t(a.mtime) * 1'000'000'000;
    if (a.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS)
        e.mode = std::uint32_t(a.permissions & 07777);
    return e;
}

std::string readlinkOn(Session &s, const std::string &path)
{
    char target[4096];
    const int rc = libssh2_sftp_symlink_ex(s.sftp(), path.data(), unsigned(path.size()), target, sizeof target,
                                           LIBSSH2_SFTP_READLINK);
    return rc > 0 ? std::string(target, std::size_t(rc)) : std::string();
}

std::string dirOf(const std::string &serverPath)
{
    const auto slash = serverPath.rfind('/');
    return slash == 0 ? "/" : serverPath.substr(0, slash);
}

// Renames, and where the server will not replace (SFTP v3 renames refuse an existing name,
// OpenSSH's too, and libssh2 1.10 has no posix-rename), replaces a file in three steps:
// the old one aside, the new one in, the old one gone. A failure puts the old one back.
Status renameOn(Session &s, const std::string &from, const std::string &to, bool replace, std::string_view what)
{
    const long flags = LIBSSH2_SFTP_RENAME_OVERWRITE | LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE;
    int rc =
        libssh2_sftp_rename_ex(s.sftp(), from.data(), unsigned(from.size()), to.data(), unsigned(to.size()), flags);
    if (rc == 0)
        return {};
    Error first = s.error(rc, what);
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
    if (rc = libssh2_sftp_rename_ex(s.sftp(), to.data(), unsigned(to.size()), aside.data(), unsigned(aside.size()),
                                    flags);
        rc != 0)
        return s.error(rc, what);
    rc = libssh2_sftp_rename_ex(s.sftp(), from.data(), unsigned(from.size()), to.data(), unsigned(to.size()), flags);
    if (rc != 0) {
        Error failed = s.error(rc, what);
        if (!s.broken())
            (void)libssh2_sftp_rename_ex(s.sftp(), aside.data(), unsigned(aside.size()), to.data(), unsigned(to.size()),
                                         flags);
        return failed;
    }
    (void)libssh2_sftp_unlink_ex(s.sftp(), aside.data(), unsigned(aside.size()));
    return {};
}

// Writes all of `data` at the handle's position; libssh2 keeps the pieces in flight.
Status writeAll(Session &s, LIBSSH2_SFTP_HANDLE *h, std::span<const std::byte> data, std::string_view what)
{
    while (!data.empty()) {
        const ssize_t n = libssh2_sftp_write(h, reinterpret_cast<const char *>(data.data()), data.size());
        if (n < 0)
            return s.error(int(n), what);
        data = data.subspan(std::size_t(n));
    }
    return {};
}

class SftpWriter final : public Writer {
public:
    // `lease` and `handle`: the connection that made the temporary file and the file still
    // open on it, for the writes in order (two round trips less than opening it again).
    SftpWriter(std::shared_ptr<SftpBackend> backend, std::string path, std::string temp, WriteOptions options,
               std::uint32_t mode, bool resumable, std::uint64_t length, SessionPool::Lease lease, Handle handle)
        : m_backend(std::move(backend)), m_path(std::move(path)), m_temp(std::move(temp)),
          m_options(std::move(options)), m_mode(mode), m_resumable(resumable), m_partial(length), m_appendAt(length),
          m_lease(std::move(lease)), m_handle(std::move(handle))
    {
        libssh2_sftp_seek64(m_handle.get(), m_appendAt);
    }
    ~SftpWriter() override
    {
        if (!m_finished)
            abort();
    }

    Status write(std::span<const std::byte> data) override
    {
        std::lock_guard lock(m_mutex);
        if (!m_lease || !m_handle) {
            m_handle.reset();
            auto lease = m_backend->pool().lease();
            if (!lease)
                return std::move(lease).error();
            m_lease.emplace(std::move(*lease));
            auto h = openOn(**m_lease, m_temp, LIBSSH2_FXF_WRITE, 0, LIBSSH2_SFTP_OPENFILE, "cannot write");
            if (!h)
                return std::move(h).error();
            m_handle = std::move(*h);
            libssh2_sftp_seek64(m_handle.get(), m_appendAt);
        }
        if (auto st = writeAll(**m_lease, m_handle.get(), data, "cannot write"); !st)
            return st;
        m_appendAt += data.size();
        return {};
    }

    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        // The handle that made the file, where no other part is using it (one part at a
        // time, as a small file is written: no second connection, no second open).
        if (std::unique_lock lock(m_mutex, std::try_to_lock); lock.owns_lock() && m_lease && m_handle) {
            libssh2_sftp_seek64(m_handle.get(), offset);
            return writeAll(**m_lease, m_handle.get(), data, "cannot write");
        }
        // Else its own connection: parts written from several threads go out side by side.
        auto lease = m_backend->pool().lease();
        if (!lease)
            return std::move(lease).error();
        auto h = openOn(**lease, m_temp, LIBSSH2_FXF_WRITE, 0, LIBSSH2_SFTP_OPENFILE, "cannot write");
        if (!h)
            return std::move(h).error();
        libssh2_sftp_seek64(h->get(), offset);
        if (auto st = writeAll(**lease, h->get(), data, "cannot write"); !st)
            return st;
        if (int rc = h->close(); rc < 0)
            return (*lease)->error(rc, "cannot write");
        return {};
    }

    Status setLength(std::uint64_t length) override
    {
        {
            // Set with the mode and time at commit, on the open handle: one request.
            std::lock_guard lock(m_mutex);
            if (m_lease && m_handle) {
                m_length = length;
                return {};
            }
        }
        auto lease = m_backend->pool().lease();
        if (!lease)
            return std::move(lease).error();
        Attributes attrs{};
        attrs.flags = LIBSSH2_SFTP_ATTR_SIZE;
        attrs.filesize = length;
        const int rc = libssh2_sftp_stat_ex((*lease)->sftp(), m_temp.data(), unsigned(m_temp.size()),
                                            LIBSSH2_SFTP_SETSTAT, &attrs);
        return rc < 0 ? Status((*lease)->error(rc, "cannot set the length")) : Status{};
    }

    Status commit() override
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return Error(ErrorKind::InvalidInput, "the write was already finished");
        std::optional<SessionPool::Lease> lease = std::move(m_lease);
        m_lease.reset();
        if (!lease) {
            auto fresh = m_backend->pool().lease();
            if (!fresh)
                return fail(std::move(fresh).error());
            lease.emplace(std::move(*fresh));
        }
        Session &s = **lease;
        if (m_options.sync) {
            if (!m_handle) {
                auto h = openOn(s, m_temp, LIBSSH2_FXF_WRITE, 0, LIBSSH2_SFTP_OPENFILE, "cannot sync");
                if (!h)
                    return fail(std::move(h).error());
                m_handle = std::move(*h);
            }
            // fsync@openssh.com; a server without it has nothing to offer instead.
            (void)libssh2_sftp_fsync(m_handle.get());
        }
        Attributes attrs{};
        attrs.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
        attrs.permissions = m_mode;
        if (m_options.mtimeNs) {
            attrs.flags |= LIBSSH2_SFTP_ATTR_ACMODTIME;
            attrs.mtime = attrs.atime = static_cast<unsigned long>(*m_options.mtimeNs / 1'000'000'000);
        }
        // On the open file where there is one (no path to look up again), then closed.
        const bool open = bool(m_handle);
        if (open && m_length) {
            attrs.flags |= LIBSSH2_SFTP_ATTR_SIZE;
            attrs.filesize = *m_length;
        }
        if (open)
            if (int rc = libssh2_sftp_fstat_ex(m_handle.get(), &attrs, 1); rc < 0)
                return fail(s.error(rc, "cannot set the permissions"));
        if (int rc = m_handle.close(); rc < 0)
            return fail(s.error(rc, "cannot write"));
        if (!open)
            if (int rc = libssh2_sftp_stat_ex(s.sftp(), m_temp.data(), unsigned(m_temp.size()), LIBSSH2_SFTP_SETSTAT,
                                              &attrs);
                rc < 0)
                return fail(s.error(rc, "cannot set the permissions"));
        m_backend->pool().changed();
        if (auto st = renameOn(s, m_temp, m_backend->serverPath(m_path), m_options.overwrite, "cannot publish"); !st)
            return fail(std::move(st).error(), &s);
        m_finished = true;
        return {};
    }

    void abort() override
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return;
        m_finished = true;
        m_handle.reset();
        auto lease = m_lease ? std::move(m_lease) : std::optional<SessionPool::Lease>();
        m_lease.reset();
        if (!lease)
            if (auto fresh = m_backend->pool().lease())
                lease.emplace(std::move(*fresh));
        if (lease && !(*lease)->broken())
            (void)libssh2_sftp_unlink_ex((*lease)->sftp(), m_temp.data(), unsigned(m_temp.size()));
    }

    void suspend() override
    {
        if (!m_resumable)
            return abort();
        std::lock_guard lock(m_mutex);
        m_finished = true;
        m_handle.reset();
        m_lease.reset();
    }

    bool keepsPartialState() const override { return m_resumable; }
    std::optional<std::uint64_t> partialLength() const override
    {
        return m_resumable ? std::optional(m_partial) : std::nullopt;
    }

private:
    // A failed commit leaves no temporary file (a resumable one stays for the next try).
    Status fail(Error error, Session *s = nullptr)
    {
        m_handle.reset();
        if (!m_resumable && s && !s->broken())
            (void)libssh2_sftp_unlink_ex(s->sftp(), m_temp.data(), unsigned(m_temp.size()));
        m_finished = m_finished || !m_resumable;
        return error;
    }

    std::shared_ptr<SftpBackend> m_backend;
    std::string m_path; // backend path of the destination
    std::string m_temp; // server path of the temporary file
    WriteOptions m_options;
    std::uint32_t m_mode;
    bool m_resumable;
    std::uint64_t m_partial;
    std::uint64_t m_appendAt;
    std::mutex m_mutex;
    std::optional<SessionPool::Lease> m_lease; // the sequential writes' connection and handle
    Handle m_handle;
    std::optional<std::uint64_t> m_length; // setLength's, for commit to set on m_handle
    bool m_finished = false;
};

} // namespace

Result<std::shared_ptr<SftpBackend>> SftpBackend::open(Config config, ConnectionPrompts prompts)
{
    const bool home = config.home;
    std::shared_ptr<SftpBackend> backend(new SftpBackend(std::move(config), std::move(prompts)));
    auto lease = backend->m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    if (home) {
        auto folder = (*lease)->home();
        if (!folder)
            return std::move(folder).error();
        backend->m_root = *folder == "/" ? std::string() : *folder;
    }
    return backend;
}

Capabilities SftpBackend::capabilities() const
{
    return {Capability::Stat,
            Capability::List,
            Capability::Read,
            Capability::Write,
            Capability::Remove,
            Capability::CreateDir,
            Capability::Rename,
            Capability::RangedRead,
            Capability::PositionalWrite,
            Capability::Symlinks,
            Capability::RealDirectories,
            Capability::KeepsModifiedTime};
}

Uri SftpBackend::uriFor(std::string_view path) const
{
    const Config &config = m_pool.config();
    return config.uri.withPath((config.home ? "/~" : "") + std::string(path == "/" && config.home ? "" : path));
}

std::string SftpBackend::serverPath(std::string_view path) const
{
    if (m_root.empty())
        return std::string(path);
    return path == "/" ? m_root : m_root + std::string(path);
}

Result<Entry> SftpBackend::stat(std::string_view path)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    const std::string where = serverPath(path);
    auto attrs = lstatOn(**lease, where, "cannot look at it");
    if (!attrs)
        return std::move(attrs).error();
    Entry e = entryOf(std::string(baseName(path)), std::string(path), *attrs);
    if (e.kind == EntryKind::Symlink)
        e.symlinkTarget = readlinkOn(**lease, where);
    return e;
}

Result<ListingCache::Listing> SftpBackend::listAll(std::string_view dir, std::vector<std::string> &skipped)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(dir);
    auto handle = openOn(s, where, 0, 0, LIBSSH2_SFTP_OPENDIR, "cannot list");
    if (!handle) {
        // Say what is there instead: a file is no folder.
        if (auto attrs = lstatOn(s, where, "cannot list"); attrs && kindOf(*attrs) != EntryKind::Directory)
            return Error(ErrorKind::NotDirectory, "cannot list: not a folder");
        return std::move(handle).error();
    }
    std::vector<Entry> entries;
    std::vector<char> name(64 * 1024);
    for (;;) {
        Attributes attrs{};
        const int n = libssh2_sftp_readdir_ex(handle->get(), name.data(), name.size(), nullptr, 0, &attrs);
        if (n == 0)
            break;
        if (n < 0)
            return s.error(n, "cannot list");
        std::string leaf(name.data(), std::size_t(n));
        if (leaf == "." || leaf == "..")
            continue;
        // A name is data: one that would be another path is reported, never followed.
        if (leaf.empty() || leaf.find('/') != std::string::npos || leaf.find('\0') != std::string::npos) {
            skipped.push_back(std::move(leaf));
            continue;
        }
        std::string path = joinPath(dir, leaf);
        Entry e = entryOf(std::move(leaf), std::move(path), attrs);
        entries.push_back(std::move(e));
    }
    handle->reset();
    for (auto &e : entries)
        if (e.kind == EntryKind::Symlink)
            e.symlinkTarget = readlinkOn(s, serverPath(e.path));
    std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.name < b.name; });
    return ListingCache::Listing(std::make_shared<const std::vector<Entry>>(std::move(entries)));
}

Result<ListPage> SftpBackend::list(std::string_view dir, const ListOptions &options)
{
    return m_listings.page(options, [&](std::vector<std::string> &skipped) { return listAll(dir, skipped); });
}

Result<std::size_t> SftpBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    const std::string where = serverPath(path);
    auto lease = m_pool.lease(where, offset);
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    // Where this connection read last time, and a moment ago, and nothing changed through
    // us since: on from there with the same handle and what libssh2 read ahead.
    auto &open = s.openRead();
    const auto now = std::chrono::steady_clock::now();
    if (open.handle
        && (open.path != where || open.next != offset || open.generation != m_pool.generation()
            || now - open.used > std::chrono::seconds(1)))
        s.closeRead();
    // A folder opens (open(2) allows it) and fails at the first read: said as what it is.
    auto isFolder = [&] {
        auto attrs = s.broken() ? Result<Attributes>(Error()) : lstatOn(s, serverPath(path), "cannot read");
        return attrs && kindOf(*attrs) == EntryKind::Directory;
    };
    if (!open.handle) {
        const std::uint64_t generation = m_pool.generation();
        auto handle = openOn(s, where, LIBSSH2_FXF_READ, 0, LIBSSH2_SFTP_OPENFILE, "cannot read");
        if (!handle) {
            Error failed = std::move(handle).error();
            return isFolder() ? Error(ErrorKind::IsDirectory, "cannot read: it is a folder") : failed;
        }
        libssh2_sftp_seek64(handle->get(), offset);
        open.handle = handle->release();
        open.path = where;
        open.generation = generation;
    }
    std::size_t got = 0;
    while (got < buffer.size()) {
        const ssize_t n =
            libssh2_sftp_read(open.handle, reinterpret_cast<char *>(buffer.data() + got), buffer.size() - got);
        if (n < 0) {
            Error failed = s.error(int(n), "cannot read");
            if (!s.broken())
                s.closeRead();
            return isFolder() ? Error(ErrorKind::IsDirectory, "cannot read: it is a folder") : failed;
        }
        if (n == 0)
            break;
        got += std::size_t(n);
    }
    open.next = offset + got;
    open.used = now;
    return got;
}

namespace {

class SftpReader final : public Reader {
public:
    SftpReader(SessionPool::Lease lease, Handle handle, std::string path)
        : m_lease(std::move(lease)), m_handle(std::move(handle)), m_path(std::move(path))
    {
    }
    ~SftpReader() override { m_handle.reset(); } // before the connection goes back

    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        std::lock_guard lock(m_mutex);
        if (offset != m_next)
            libssh2_sftp_seek64(m_handle.get(), offset);
        std::size_t got = 0;
        while (got < buffer.size()) {
            const ssize_t n =
                libssh2_sftp_read(m_handle.get(), reinterpret_cast<char *>(buffer.data() + got), buffer.size() - got);
            if (n < 0)
                return m_lease->error(int(n), "cannot read");
            if (n == 0)
                break;
            got += std::size_t(n);
        }
        m_next = offset + got;
        return got;
    }
    Status copyRangeTo(std::uint64_t, std::uint64_t, Writer &) override
    {
        return unsupported("in-kernel copies from an SFTP server");
    }
    Result<Entry> stat() override
    {
        std::lock_guard lock(m_mutex);
        Attributes attrs{};
        if (int rc = libssh2_sftp_fstat_ex(m_handle.get(), &attrs, 0); rc < 0)
            return m_lease->error(rc, "cannot stat");
        return entryOf(std::string(baseName(m_path)), m_path, attrs);
    }

private:
    std::mutex m_mutex;
    SessionPool::Lease m_lease;
    Handle m_handle;
    std::string m_path; // the backend path it was opened as
    std::uint64_t m_next = 0;
};

} // namespace

Result<std::unique_ptr<Reader>> SftpBackend::openReader(std::string_view path, const Entry &expected)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    auto handle = openOn(s, serverPath(path), LIBSSH2_FXF_READ, 0, LIBSSH2_SFTP_OPENFILE, "cannot read");
    if (!handle)
        return std::move(handle).error();
    Attributes attrs{};
    if (int rc = libssh2_sftp_fstat_ex(handle->get(), &attrs, 0); rc < 0)
        return s.error(rc, "cannot read");
    if (kindOf(attrs) == EntryKind::Directory)
        return Error(ErrorKind::IsDirectory, "cannot read: it is a folder");
    const bool sameSize = !(attrs.flags & LIBSSH2_SFTP_ATTR_SIZE) || attrs.filesize == expected.size;
    const bool sameTime = !(attrs.flags & LIBSSH2_SFTP_ATTR_ACMODTIME) || !expected.mtimeNs
        || std::int64_t(attrs.mtime) == *expected.mtimeNs / 1'000'000'000;
    if (expected.isFile() && (!sameSize || !sameTime))
        return Error(ErrorKind::Corrupt, "the source changed since it was listed; it was not copied, try again");
    return std::unique_ptr<Reader>(
        std::make_unique<SftpReader>(std::move(*lease), std::move(*handle), std::string(path)));
}

Result<std::unique_ptr<Writer>> SftpBackend::write(std::string_view path, const WriteOptions &options)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(path);
    // A round trip per file saved where nothing is expected (a fresh folder): the rename
    // on commit still never replaces what appeared meanwhile unless overwrite is set.
    auto existing = options.fresh ? Result<Attributes>(Error(ErrorKind::NotFound)) : lstatOn(s, where, "cannot write");
    if (!existing && existing.error().kind() != ErrorKind::NotFound)
        return std::move(existing).error();
    if (existing && kindOf(*existing) == EntryKind::Directory)
        return Error(ErrorKind::IsDirectory, "cannot write: a folder has that name");
    if (existing && !options.overwrite)
        return Error(ErrorKind::AlreadyExists, "cannot write: it exists");

    std::uint32_t mode = 0;
    if (options.mode && options.exactMode)
        mode = copyMode(*options.mode, true);
    else if (existing && kindOf(*existing) == EntryKind::File && (existing->flags & LIBSSH2_SFTP_ATTR_PERMISSIONS))
        mode = std::uint32_t(existing->permissions & 07777); // a replaced file keeps its permissions
    else
        mode = copyMode(options.mode.value_or(0666), false);

    const std::string dir = dirOf(where);
    std::string temp;
    Handle handle;
    std::uint64_t length = 0;
    const bool resumable = !options.resumeKey.empty();
    if (resumable) {
        // A stable name: what was written survives a crash or a pause for the next writer.
        temp = dir + (dir == "/" ? "" : "/") + resumePartName(options.resumeKey);
        auto partial = lstatOn(s, temp, "cannot write");
        if (partial && kindOf(*partial) != EntryKind::File) // not ours to write into
            return Error(ErrorKind::AlreadyExists, "cannot write: the partial file's name is taken by another kind");
        auto h = openOn(s, temp, LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT, 0600, LIBSSH2_SFTP_OPENFILE, "cannot write");
        if (!h)
            return std::move(h).error();
        Attributes attrs{};
        if (libssh2_sftp_fstat_ex(h->get(), &attrs, 0) == 0 && (attrs.flags & LIBSSH2_SFTP_ATTR_SIZE))
            length = attrs.filesize;
        handle = std::move(*h);
    } else {
        for (int attempt = 0; attempt < 16 && temp.empty(); ++attempt) {
            std::string name = dir + (dir == "/" ? "" : "/") + temporaryPartName();
            auto h = openOn(s, name, LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_EXCL, 0600,
                            LIBSSH2_SFTP_OPENFILE, "cannot write");
            if (h) {
                temp = std::move(name);
                handle = std::move(*h);
            } else if (s.broken() || !exists(lstatOn(s, name, "cannot write")))
                return std::move(h).error(); // a real failure, not a name taken
        }
        if (temp.empty())
            return Error(ErrorKind::Unexpected, "cannot write: no free temporary name");
        // A process killed before commit leaves it: the journal keeps the name for the rerun.
        if (options.onPending)
            options.onPending(std::string(baseName(temp)));
    }
    return std::unique_ptr<Writer>(std::make_unique<SftpWriter>(shared_from_this(), std::string(path), std::move(temp),
                                                                options, mode, resumable, length, std::move(*lease),
                                                                std::move(handle)));
}

Status SftpBackend::remove(std::string_view path, std::string_view within)
{
    (void)within; // the server resolves names; it never follows a symlink to remove one
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(path);
    m_pool.changed();
    auto attrs = lstatOn(s, where, "cannot remove");
    if (!attrs)
        return attrs.error().kind() == ErrorKind::NotFound ? Status{} : Status(std::move(attrs).error());
    if (kindOf(*attrs) == EntryKind::Directory) {
        if (int rc = libssh2_sftp_rmdir_ex(s.sftp(), where.data(), unsigned(where.size())); rc < 0) {
            Error failed = s.error(rc, "cannot remove");
            if (s.broken())
                return failed;
            // SFTP v3 says only "failure" for a folder that is not empty: look.
            auto h = openOn(s, where, 0, 0, LIBSSH2_SFTP_OPENDIR, "cannot remove");
            char name[512];
            Attributes child{};
            while (h) {
                const int n = libssh2_sftp_readdir_ex(h->get(), name, sizeof name, nullptr, 0, &child);
                if (n <= 0)
                    break;
                const std::string_view leaf(name, std::size_t(n));
                if (leaf != "." && leaf != "..")
                    return Error(ErrorKind::DirectoryNotEmpty, "cannot remove: the folder is not empty");
            }
            return failed;
        }
        return {};
    }
    if (int rc = libssh2_sftp_unlink_ex(s.sftp(), where.data(), unsigned(where.size())); rc < 0) {
        Error failed = s.error(rc, "cannot remove");
        return failed.kind() == ErrorKind::NotFound ? Status{} : Status(std::move(failed));
    }
    return {};
}

Status SftpBackend::createDir(std::string_view path)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(path);
    if (int rc = libssh2_sftp_mkdir_ex(s.sftp(), where.data(), unsigned(where.size()), 0777); rc < 0) {
        Error failed = s.error(rc, "cannot create the folder");
        if (!s.broken() && exists(lstatOn(s, where, "cannot create the folder")))
            return Error(ErrorKind::AlreadyExists, "cannot create the folder: something has that name");
        return failed;
    }
    return {};
}

Status SftpBackend::rename(std::string_view from, std::string_view to, bool replace)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string source = serverPath(from), target = serverPath(to);
    if (target.starts_with(source + "/"))
        return Error(ErrorKind::InvalidInput, "cannot rename: a folder cannot go inside itself");
    auto attrs = lstatOn(s, source, "cannot rename");
    if (!attrs)
        return std::move(attrs).error();
    if (auto there = lstatOn(s, target, "cannot rename"); exists(there)) {
        if (!replace)
            return Error(ErrorKind::AlreadyExists, "cannot rename: something has the new name");
        if (kindOf(*there) == EntryKind::Directory || kindOf(*attrs) == EntryKind::Directory)
            return Error(kindOf(*there) == EntryKind::Directory ? ErrorKind::IsDirectory : ErrorKind::NotDirectory,
                         "cannot rename: only a file replaces a file");
    }
    m_pool.changed();
    return renameOn(s, source, target, replace, "cannot rename");
}

Status SftpBackend::setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow)
{
    (void)confineBelow;
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(path);
    auto attrs = lstatOn(s, where, "cannot change the permissions");
    if (!attrs)
        return std::move(attrs).error();
    // SETSTAT follows a symlink: a link's target is never changed through it.
    if (kindOf(*attrs) == EntryKind::Symlink)
        return Error(ErrorKind::InvalidInput, "cannot change the permissions of a symlink");
    Attributes change{};
    change.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
    change.permissions = mode & 07777;
    if (int rc = libssh2_sftp_stat_ex(s.sftp(), where.data(), unsigned(where.size()), LIBSSH2_SFTP_SETSTAT, &change);
        rc < 0)
        return s.error(rc, "cannot change the permissions");
    return {};
}

void SftpBackend::discardPending(std::string_view path, const std::string &token)
{
    if (!isTemporaryPartName(token))
        return;
    auto lease = m_pool.lease();
    if (!lease)
        return;
    const std::string temp = serverPath(joinPath(parentPath(path), token));
    (void)libssh2_sftp_unlink_ex((*lease)->sftp(), temp.data(), unsigned(temp.size()));
}

} // namespace strata::sftp

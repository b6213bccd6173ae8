#include "backends/sftp/sftp_backend.h"

#include "backends/sftp/read_stream.h"
#include "backends/sftp/sftp_files.h"
#include "backends/sftp/sftp_writer.h"
#include "core/io/file_mode.h"
#include "core/storage/path.h"
#include "core/storage/random.h"

#include <libssh/sftp.h>

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <mutex>
#include <optional>

namespace strata::sftp {

namespace {

class SftpReader final : public Reader {
public:
    SftpReader(SessionPool::Lease lease, Handle handle, std::string path, std::uint64_t size)
        : m_lease(std::move(lease)), m_stream(std::make_unique<ReadStream>(*m_lease, handle.release(), 0, size)),
          m_path(std::move(path))
    {
        m_lease.idle(); // watched while a call of ours waits on it, not while the copier writes
    }
    ~SftpReader() override
    {
        Session::Busy busy(*m_lease);
        m_stream.reset(); // before the connection goes back
    }

    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        std::lock_guard lock(m_mutex);
        Session::Busy busy(*m_lease);
        return m_stream->read(offset, buffer);
    }
    Status copyRangeTo(std::uint64_t, std::uint64_t, Writer &) override
    {
        return unsupported("in-kernel copies from an SFTP server");
    }
    Result<Entry> stat() override
    {
        std::lock_guard lock(m_mutex);
        Session::Busy busy(*m_lease);
        m_stream->settle(); // no request before the reads in flight are in
        auto attrs = fstatOn(*m_lease, m_stream->file(), "cannot stat");
        if (!attrs)
            return std::move(attrs).error();
        return entryOf(std::string(baseName(m_path)), m_path, *attrs);
    }

private:
    std::mutex m_mutex;
    SessionPool::Lease m_lease;
    std::unique_ptr<ReadStream> m_stream; // owns the open file
    std::string m_path;                   // the backend path it was opened as
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

std::size_t SftpBackend::preferredStreams(Flow) const
{
    return m_pool.distantStreams();
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

Status SftpBackend::confirmFolder(Session &s, std::string_view dir, std::string_view within, std::string_view what)
{
    return confirmResolved(
        dir, within, [this](std::string_view path) { return serverPath(path); },
        [&](const std::string &where) { return realpathOn(s, where, what); }, m_realTops);
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

Status SftpBackend::listAll(const std::string &dir, const std::string &within, const ListingCache::Sink &sink,
                            std::vector<std::string> &skipped)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(dir);
    if (auto st = confirmFolder(s, dir, within, "cannot list"); !st)
        return std::move(st).error();
    sftp_dir handle = sftp_opendir(s.sftp(), where.c_str());
    if (!handle) {
        Error failed = s.error("cannot list");
        // Say what is there instead: a file is no folder.
        if (auto attrs = s.broken() ? Result<Attributes>(Error()) : lstatOn(s, where, "cannot list");
            attrs && kindOf(*attrs) != EntryKind::Directory)
            return Error(ErrorKind::NotDirectory, "cannot list: not a folder");
        return failed;
    }
    // A removal's listing (`within`) is handed over whole, after the check at its end; a
    // browser's batch by batch, each READDIR answer as it is read.
    const bool whole = !within.empty();
    std::vector<Entry> batch;
    const auto hand = [&] {
        for (auto &e : batch)
            if (e.kind == EntryKind::Symlink)
                e.symlinkTarget = readlinkOn(s, serverPath(e.path));
        const bool wanted = sink(batch);
        batch.clear();
        return wanted;
    };
    for (;;) {
        sftp_attributes read = sftp_readdir(s.sftp(), handle);
        if (!read) {
            if (sftp_dir_eof(handle))
                break;
            Error failed = s.error("cannot list");
            if (!s.broken())
                sftp_closedir(handle);
            return failed;
        }
        std::string leaf = read->name ? read->name : "";
        const Attributes attrs = taken(read);
        // A name is data: one that would be another path is reported, never followed.
        if (leaf.empty() || leaf.find('/') != std::string::npos || leaf.find('\0') != std::string::npos)
            skipped.push_back(std::move(leaf));
        else if (leaf != "." && leaf != "..")
            batch.push_back(entryOf(leaf, joinPath(dir, leaf), attrs));
        // libssh's count of the entries left from the last READDIR answer: none, the
        // next sftp_readdir is another round trip.
        if (!whole && handle->count == 0 && !batch.empty() && !hand())
            break;
    }
    sftp_closedir(handle);
    // A link swapped in after the check above made this the listing of another folder.
    if (auto st = confirmFolder(s, dir, within, "cannot list"); !st)
        return std::move(st).error();
    if (!batch.empty())
        hand();
    return {};
}

Result<ListPage> SftpBackend::list(std::string_view dir, const ListOptions &options)
{
    return m_listings.pageOf(this, &SftpBackend::listAll, dir, options);
}

Result<std::size_t> SftpBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    const std::string where = serverPath(path);
    auto lease = m_pool.lease(where, offset);
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    // The file this connection read a moment ago, where nothing changed through us since:
    // on with the same handle and the answers already on their way.
    auto &open = s.openRead();
    const auto now = std::chrono::steady_clock::now();
    if (open.stream
        && (open.path != where || open.generation != m_pool.generation() || now - open.used > std::chrono::seconds(1)))
        s.closeRead();
    // A folder opens (open(2) allows it) and fails at the first read: said as what it is.
    auto isFolder = [&] {
        auto attrs = s.broken() ? Result<Attributes>(Error()) : lstatOn(s, where, "cannot read");
        return attrs && kindOf(*attrs) == EntryKind::Directory;
    };
    if (!open.stream) {
        const std::uint64_t generation = m_pool.generation();
        auto handle = openOn(s, where, O_RDONLY, 0, "cannot read");
        if (!handle) {
            Error failed = std::move(handle).error();
            return isFolder() ? Error(ErrorKind::IsDirectory, "cannot read: it is a folder") : failed;
        }
        open.stream = std::make_unique<ReadStream>(s, handle->release(), offset, std::nullopt);
        open.path = where;
        open.generation = generation;
    }
    auto got = open.stream->read(offset, buffer);
    if (!got) {
        Error failed = std::move(got).error();
        if (!s.broken())
            s.closeRead();
        return isFolder() ? Error(ErrorKind::IsDirectory, "cannot read: it is a folder") : failed;
    }
    open.used = now;
    return got;
}

Result<std::unique_ptr<Reader>> SftpBackend::openReader(std::string_view path, const Entry &expected)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    auto handle = openOn(s, serverPath(path), O_RDONLY, 0, "cannot read");
    if (!handle)
        return std::move(handle).error();
    auto attrs = fstatOn(s, handle->get(), "cannot read");
    if (!attrs)
        return std::move(attrs).error();
    if (kindOf(*attrs) == EntryKind::Directory)
        return Error(ErrorKind::IsDirectory, "cannot read: it is a folder");
    const bool sized = attrs->flags & SSH_FILEXFER_ATTR_SIZE;
    const bool sameSize = !sized || attrs->size == expected.size;
    const bool sameTime = !(attrs->flags & SSH_FILEXFER_ATTR_ACMODTIME) || !expected.mtimeNs
        || std::int64_t(attrs->mtime) == *expected.mtimeNs / 1'000'000'000;
    if (expected.isFile() && (!sameSize || !sameTime))
        return Error(ErrorKind::Corrupt, "the source changed since it was listed; it was not copied, try again");
    return std::unique_ptr<Reader>(std::make_unique<SftpReader>(std::move(*lease), std::move(*handle),
                                                                std::string(path), sized ? attrs->size : 0));
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
    else if (existing && kindOf(*existing) == EntryKind::File && (existing->flags & SSH_FILEXFER_ATTR_PERMISSIONS))
        mode = std::uint32_t(existing->permissions & 07777); // a replaced file keeps its permissions
    else
        mode = copyMode(options.mode.value_or(0666), false);

    const std::string dir = dirOf(where);
    std::string temp;
    Handle handle;
    std::uint64_t length = 0;
    bool resumable = !options.resumeKey.empty();
    std::string refused;
    if (resumable) {
        // A stable name: what was written survives a crash or a pause for the next writer.
        temp = dir + (dir == "/" ? "" : "/") + resumePartName(options.resumeKey);
        auto kept = openKeptPart(s, temp, length, refused);
        if (!kept)
            return std::move(kept).error();
        handle = std::move(*kept);
        if (!handle) { // someone else's file has the name: this write starts afresh elsewhere
            resumable = false;
            temp.clear();
        }
    }
    if (!resumable) {
        for (int attempt = 0; attempt < 16 && temp.empty(); ++attempt) {
            std::string name = dir + (dir == "/" ? "" : "/") + temporaryPartName();
            auto h = openOn(s, name, O_WRONLY | O_CREAT | O_EXCL, 0600, "cannot write");
            if (h) {
                temp = std::move(name);
                handle = std::move(*h);
            } else if (s.broken()) {
                // The server may have made the file before the connection went, its answer
                // lost: the name is ours (random), so an empty file there goes, on another
                // connection (a retry picks a new name; this one would stay behind).
                discardUnanswered(name);
                return std::move(h).error();
            } else if (!exists(lstatOn(s, name, "cannot write"))) {
                return std::move(h).error(); // a real failure, not a name taken
            }
        }
        if (temp.empty())
            return Error(ErrorKind::Unexpected, "cannot write: no free temporary name");
        // A process killed before commit leaves it: the journal keeps the name for the rerun.
        if (options.onPending)
            options.onPending(std::string(baseName(temp)));
    }
    return makeWriter(shared_from_this(), std::string(path), std::move(temp), options, mode, resumable, length,
                      std::move(*lease), std::move(handle), std::move(refused));
}

namespace {

// Why a kept partial file is not ours as we left it (empty when it is): `own` is what a
// private file we create gets.
std::string notOurs(const Attributes &a, const Attributes &own)
{
    switch (kindOf(a)) {
    case EntryKind::File: break;
    case EntryKind::Symlink: return "it is a symbolic link";
    case EntryKind::Directory: return "it is a folder";
    default: return "it is not a regular file";
    }
    if (!(a.flags & SSH_FILEXFER_ATTR_UIDGID) || !(own.flags & SSH_FILEXFER_ATTR_UIDGID))
        return "the server does not say who owns it";
    if (a.uid != own.uid)
        return "it belongs to user id " + std::to_string(a.uid) + ", not to the login user";
    if ((a.permissions & 07777) != (own.permissions & 07777)) {
        char modes[32];
        std::snprintf(modes, sizeof modes, "%04o, not %04o", a.permissions & 07777, own.permissions & 07777);
        return std::string("its permissions are ") + modes + " as it was made";
    }
    return {};
}

} // namespace

Result<Attributes> SftpBackend::ownFile(Session &s, const std::string &dir)
{
    {
        std::lock_guard lock(m_ownMutex);
        if (m_own)
            return *m_own;
    }
    for (int attempt = 0; attempt < 16; ++attempt) {
        const std::string probe = dir + (dir == "/" ? "" : "/") + temporaryPartName();
        auto h = openOn(s, probe, O_WRONLY | O_CREAT | O_EXCL, 0600, "cannot write");
        if (!h) {
            if (s.broken() || !exists(lstatOn(s, probe, "cannot write")))
                return std::move(h).error();
            continue; // a name taken
        }
        auto attrs = fstatOn(s, h->get(), "cannot write");
        h->reset();
        (void)removeFile(s, probe);
        if (!attrs)
            return attrs;
        std::lock_guard lock(m_ownMutex);
        m_own = *attrs;
        return *attrs;
    }
    return Error(ErrorKind::Unexpected, "cannot write: no free temporary name");
}

Result<Handle> SftpBackend::openKeptPart(Session &s, const std::string &temp, std::uint64_t &length,
                                         std::string &refused)
{
    auto kept = lstatOn(s, temp, "cannot write");
    if (!kept) {
        if (kept.error().kind() != ErrorKind::NotFound)
            return std::move(kept).error();
        // O_EXCL: nothing that appeared meanwhile, a link included, is opened.
        return openOn(s, temp, O_WRONLY | O_CREAT | O_EXCL, 0600, "cannot write");
    }
    auto own = ownFile(s, dirOf(temp));
    if (!own)
        return std::move(own).error();
    refused = notOurs(*kept, *own);
    if (!refused.empty())
        return Handle();
    // SFTP opens by name and has no O_NOFOLLOW: the file opened, and what has the name
    // after, must both be the one looked at (a link swapped in would be written through).
    auto h = openOn(s, temp, O_WRONLY, 0, "cannot write");
    if (!h)
        return std::move(h).error();
    auto opened = fstatOn(s, h->get(), "cannot write");
    auto after = lstatOn(s, temp, "cannot write");
    const auto same = [&](const Result<Attributes> &a) {
        return a && notOurs(*a, *own).empty() && a->size == kept->size && a->mtime == kept->mtime;
    };
    if (!same(opened) || !same(after)) {
        refused = "it changed while it was opened";
        return Handle();
    }
    length = opened->size;
    return h;
}

Status SftpBackend::remove(std::string_view path, std::string_view within)
{
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(path);
    m_pool.changed();
    // The server resolves the folders on the way: none may be a link swapped in below `within`.
    if (auto st = confirmFolder(s, parentPath(path), within, "cannot remove"); !st)
        return st.error().kind() == ErrorKind::NotFound ? Status{} : st;
    // A file (or a link, never what it points to) goes in one request; a folder refuses it.
    if (removeFile(s, where))
        return {};
    Error failed = s.error("cannot remove");
    if (s.broken())
        return failed;
    auto attrs = lstatOn(s, where, "cannot remove");
    if (!attrs)
        return attrs.error().kind() == ErrorKind::NotFound ? Status{} : Status(std::move(attrs).error());
    if (kindOf(*attrs) != EntryKind::Directory)
        return failed;
    if (sftp_rmdir(s.sftp(), where.c_str()) < 0) {
        failed = s.error("cannot remove");
        if (s.broken())
            return failed;
        // SFTP v3 says only "failure" for a folder that is not empty: look.
        bool empty = true;
        if (sftp_dir dir = sftp_opendir(s.sftp(), where.c_str())) {
            while (sftp_attributes child = sftp_readdir(s.sftp(), dir)) {
                const std::string_view leaf = child->name ? child->name : "";
                empty = empty && (leaf == "." || leaf == "..");
                sftp_attributes_free(child);
            }
            if (!s.broken())
                sftp_closedir(dir);
        }
        if (!empty)
            return Error(ErrorKind::DirectoryNotEmpty, "cannot remove: the folder is not empty");
        return failed;
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
    if (sftp_mkdir(s.sftp(), where.c_str(), 0777) < 0) {
        Error failed = s.error("cannot create the folder");
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
    auto lease = m_pool.lease();
    if (!lease)
        return std::move(lease).error();
    Session &s = **lease;
    const std::string where = serverPath(path);
    if (auto st = confirmFolder(s, parentPath(path), confineBelow, "cannot change the permissions"); !st)
        return st;
    auto attrs = lstatOn(s, where, "cannot change the permissions");
    if (!attrs)
        return std::move(attrs).error();
    // SETSTAT follows a symlink: a link's target is never changed through it.
    if (kindOf(*attrs) == EntryKind::Symlink)
        return Error(ErrorKind::InvalidInput, "cannot change the permissions of a symlink");
    if ((attrs->flags & SSH_FILEXFER_ATTR_PERMISSIONS) && (attrs->permissions & 07777) == (mode & 07777))
        return {}; // already so: a round trip saved
    sftp_attributes_struct change{};
    change.flags = SSH_FILEXFER_ATTR_PERMISSIONS;
    change.permissions = mode & 07777;
    return setAttributes(s, where, change, "cannot change the permissions");
}

void SftpBackend::discardUnanswered(const std::string &temp)
{
    auto lease = m_pool.lease();
    if (!lease)
        return;
    // Only an empty regular file: nothing was written through a handle we never had.
    if (auto a = lstatOn(**lease, temp, "cannot write"); a && (a->permissions & kTypeBits) == kRegular && a->size == 0)
        (void)removeFile(**lease, temp);
}

void SftpBackend::discardPending(std::string_view path, const std::string &token)
{
    if (!isTemporaryPartName(token))
        return;
    auto lease = m_pool.lease();
    if (!lease)
        return;
    const std::string temp = serverPath(joinPath(parentPath(path), token));
    (void)removeFile(**lease, temp);
}

} // namespace strata::sftp

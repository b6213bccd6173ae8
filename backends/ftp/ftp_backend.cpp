#include "backends/ftp/ftp_backend.h"

#include "backends/ftp/ftp_listing.h"
#include "backends/ftp/ftp_writer.h"
#include "core/io/file_mode.h"
#include "core/storage/path.h"
#include "core/storage/random.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <thread>

namespace strata::ftp {

namespace {

std::string dirOf(const std::string &serverPath)
{
    const auto slash = serverPath.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : serverPath.substr(0, slash);
}

std::string childOf(const std::string &dir, std::string_view name)
{
    return dir + (dir == "/" ? "" : "/") + std::string(name);
}

// The lines of a listing, each without its line end.
template <typename F>
void forEachLine(std::string_view text, F &&f)
{
    while (!text.empty()) {
        auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (!line.empty())
            f(line);
    }
}

bool isPathName(std::string_view name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos
        && name.find('\0') == std::string_view::npos;
}

// A file read in order, as a copy reads it: one RETR streams the whole file over the
// reads (a request per read would cost libcurl a new login each, as it closes a control
// connection whose RETR it stopped midway). A read elsewhere starts the stream again there.
class FtpReader final : public Reader {
public:
    FtpReader(std::shared_ptr<FtpBackend> backend, std::string where, std::uint64_t expectedSize)
        : m_backend(std::move(backend)), m_where(std::move(where)), m_expected(expectedSize)
    {
    }
    ~FtpReader() override { stop(); }

    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        std::lock_guard lock(m_mutex);
        if (buffer.empty())
            return std::size_t(0);
        if (m_lease && offset != m_next)
            stop();
        // A connection the pool kept may have been closed by the server meanwhile, or a
        // stream broken midway: a temporary failure is tried once more on a new stream
        // from the same offset (this read's bytes so far are dropped). Not a server that
        // stopped answering: that is said when it happens, and retried as any request.
        for (int attempt = 0;; ++attempt) {
            if (!m_lease) {
                m_lease.emplace(m_backend->pool().lease());
                (*m_lease)->beginRetrieve(m_where, offset);
                m_next = offset;
            }
            auto n = (*m_lease)->retrieve(buffer, "cannot read");
            if (!n) {
                stop();
                if (attempt == 0 && n.error().temporary() && n.error().kind() != ErrorKind::Timeout)
                    continue;
                return notFoundOrFolder(std::move(n).error());
            }
            m_next += *n;
            if (*n < buffer.size())
                stop(); // the end: the connection serves again
            else if (m_next == m_expected)
                stop(true); // the end as listed: let the server's reply come, keep the connection
            return *n;
        }
    }

    Status copyRangeTo(std::uint64_t, std::uint64_t, Writer &) override
    {
        return unsupported("in-kernel copies from an FTP server");
    }

private:
    void stop(bool atExpectedEnd = false)
    {
        if (!m_lease)
            return;
        (*m_lease)->endRetrieve(atExpectedEnd);
        m_lease.reset();
    }

    Error notFoundOrFolder(Error error)
    {
        if (error.kind() != ErrorKind::NotFound)
            return error;
        auto there = m_backend->statServer(m_where, "cannot read");
        if (there && there->isDir())
            return Error(ErrorKind::IsDirectory, "cannot read: it is a folder");
        return error;
    }

    std::mutex m_mutex;
    std::shared_ptr<FtpBackend> m_backend;
    std::string m_where;
    std::uint64_t m_expected;
    std::optional<ConnectionPool::Lease> m_lease; // while a stream is open
    std::uint64_t m_next = 0;                     // where it is
};

} // namespace

Result<std::shared_ptr<FtpBackend>> FtpBackend::open(Config config)
{
    std::shared_ptr<FtpBackend> backend(new FtpBackend(std::move(config)));
    auto lease = backend->m_pool.lease();
    if (auto st = lease->commands({"FEAT"}, "cannot connect"); !st)
        return std::move(st).error();
    // The login's replies came a round trip apart.
    if (auto rtt = lease->shortestExchange())
        backend->m_pool.learnRoundTrip(*rtt);
    // FEAT's answer: one feature per line, each line starting with a blank.
    forEachLine(lease->replies(), [&](std::string_view line) {
        if (line.empty() || line.front() != ' ')
            return;
        line.remove_prefix(1);
        std::string word(line.substr(0, line.find(' ')));
        std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return char(std::toupper(c)); });
        Features &f = backend->m_features;
        f.mlsd = f.mlsd || word == "MLSD" || word == "MLST";
        f.mlst = f.mlst || word == "MLST";
        f.mfmt = f.mfmt || word == "MFMT";
    });
    const std::string entry = lease->entryPath();
    backend->m_root = entry.starts_with('/') && entry != "/" ? entry : std::string();
    while (backend->m_root.ends_with('/'))
        backend->m_root.pop_back();
    return backend;
}

Capabilities FtpBackend::capabilities() const
{
    Capabilities caps{Capability::Stat,     Capability::List,           Capability::Read,   Capability::Write,
                      Capability::Remove,   Capability::CreateDir,      Capability::Rename, Capability::RangedRead,
                      Capability::Symlinks, Capability::RealDirectories};
    if (m_features.mfmt)
        caps.add(Capability::KeepsModifiedTime);
    return caps;
}

Uri FtpBackend::uriFor(std::string_view path) const
{
    return m_pool.config().base.withPath(std::string(path));
}

std::string FtpBackend::serverPath(std::string_view path) const
{
    if (m_root.empty())
        return std::string(path);
    return path == "/" ? m_root : m_root + std::string(path);
}

Result<ListedName> FtpBackend::factsOf(const std::string &where, std::string_view what)
{
    auto lease = m_pool.lease();
    if (auto st = lease->commands({"MLST " + where}, what); !st) {
        if (st.error().kind() == ErrorKind::NotFound)
            return Error(ErrorKind::NotFound, std::string(what) + ": it does not exist");
        return std::move(st).error();
    }
    std::optional<ListedName> found;
    forEachLine(lease->replies(), [&](std::string_view line) {
        if (!found && line.starts_with(' '))
            found = parseMlsxLine(line);
    });
    if (!found)
        return Error(ErrorKind::Corrupt, std::string(what) + ": the server's MLST answer has no facts");
    return std::move(*found);
}

Result<ListedName> FtpBackend::ownFile(const std::string &dir)
{
    {
        std::lock_guard lock(m_ownMutex);
        if (m_own)
            return *m_own;
    }
    const std::string probe = childOf(dir, temporaryPartName());
    if (auto st = m_pool.lease()->store(probe, false, std::span<const std::byte>(), {}, "cannot write"); !st)
        return std::move(st).error();
    auto facts = factsOf(probe, "cannot write");
    (void)m_pool.lease()->commands({"DELE " + probe}, "cannot remove the partial file");
    if (!facts)
        return facts;
    std::lock_guard lock(m_ownMutex);
    m_own = *facts;
    return *facts;
}

std::optional<std::uint32_t> FtpBackend::newFileMode(const std::string &file)
{
    std::lock_guard lock(m_ownMutex);
    auto found = m_newFileModes.find(dirOf(file));
    return found == m_newFileModes.end() ? std::nullopt : std::optional(found->second);
}

void FtpBackend::learnNewFileMode(const std::string &file, std::string_view replies)
{
    const std::string_view base = baseName(file);
    std::optional<std::uint32_t> mode;
    forEachLine(replies, [&](std::string_view line) {
        // MLST's fact line starts with a blank and names the path as the server sees it.
        auto facts = line.starts_with(' ') ? parseMlsxLine(line) : std::nullopt;
        if (!facts || !facts->entry.isFile() || !facts->entry.mode)
            return;
        const std::string_view name = facts->name;
        if (name == file
            || (name.ends_with(base) && name.size() > base.size() && name[name.size() - base.size() - 1] == '/'))
            mode = *facts->entry.mode & 07777;
    });
    if (!mode)
        return;
    std::lock_guard lock(m_ownMutex);
    if (m_newFileModes.size() >= 4096) // a walk through very many folders: start again
        m_newFileModes.clear();
    m_newFileModes[dirOf(file)] = *mode;
}

Result<std::uint64_t> FtpBackend::keptPartSize(const std::string &temp, std::optional<std::uint32_t> mode,
                                               std::string &refused)
{
    if (!m_features.mlst) {
        auto kept = statServer(temp, "cannot write");
        if (!kept)
            return kept.error().kind() == ErrorKind::NotFound ? Result<std::uint64_t>(0) : std::move(kept).error();
        refused = "the server cannot say who owns it (it has no MLST)";
        return 0;
    }
    auto kept = factsOf(temp, "cannot write");
    if (!kept)
        return kept.error().kind() == ErrorKind::NotFound ? Result<std::uint64_t>(0) : std::move(kept).error();
    auto own = ownFile(dirOf(temp));
    if (!own)
        return std::move(own).error();
    if (kept->entry.kind == EntryKind::Symlink)
        refused = "it is a symbolic link";
    else if (!kept->entry.isFile())
        refused = "it is not a regular file";
    else if (!kept->uid || !own->uid)
        refused = "the server does not say who owns it";
    else if (*kept->uid != *own->uid)
        refused = "it belongs to user id " + std::to_string(*kept->uid) + ", not to the login user";
    else if (kept->entry.mode != own->entry.mode
             && !(mode && kept->entry.mode == *mode && (*mode & 06222) == 0200)) // given early by its writer
        refused = "its permissions are " + octal(kept->entry.mode.value_or(0)) + ", not "
            + octal(own->entry.mode.value_or(0)) + " as it was made";
    return refused.empty() ? kept->entry.size : 0;
}

Result<Entry> FtpBackend::statServer(const std::string &where, std::string_view what)
{
    if (auto st = sendable(where); !st)
        return std::move(st).error();
    if (where == "/") {
        Entry root;
        root.kind = EntryKind::Directory;
        return root;
    }
    if (m_features.mlst) {
        auto facts = factsOf(where, what);
        if (!facts)
            return std::move(facts).error();
        return std::move(facts->entry);
    }
    // No MLST: the parent's listing says.
    const std::string dir = dirOf(where);
    const std::string_view name = std::string_view(where).substr(where.rfind('/') + 1);
    std::string text;
    if (auto st = m_pool.lease()->listing(dir, false, text, what); !st)
        return st.error().kind() == ErrorKind::NotFound
            ? Error(ErrorKind::NotFound, std::string(what) + ": it does not exist")
            : std::move(st).error();
    std::optional<Entry> found;
    const std::time_t now = std::time(nullptr);
    forEachLine(text, [&](std::string_view line) {
        auto listed = parseListLine(line, now);
        if (!found && listed && listed->name == name)
            found = std::move(listed->entry);
    });
    if (!found)
        return Error(ErrorKind::NotFound, std::string(what) + ": it does not exist");
    return std::move(*found);
}

Result<std::string> FtpBackend::resolvedFolder(const std::string &where, std::string_view what)
{
    if (auto st = sendable(where); !st)
        return std::move(st).error();
    auto lease = m_pool.lease();
    if (auto st = lease->commands({"CWD " + where, "PWD"}, what); !st)
        return std::move(st).error();
    const auto finals = lease->finalReplies(2); // our PWD's reply, not libcurl's own after a login
    auto folder = finals.size() == 2 ? pwdFolder(finals[1]) : std::nullopt;
    if (!folder)
        return Error(ErrorKind::Corrupt, std::string(what) + ": the server's PWD answer names no folder");
    return std::move(*folder);
}

std::optional<std::string> FtpBackend::pwdFolder(std::string_view replies)
{
    // 257 "/a ""quoted"" b" is your current location (RFC 959: quotes inside are doubled).
    std::optional<std::string> folder;
    forEachLine(replies, [&](std::string_view line) {
        if (!line.starts_with("257 \""))
            return;
        std::string name;
        for (std::size_t i = 5; i < line.size(); ++i) {
            if (line[i] != '"') {
                name += line[i];
            } else if (i + 1 < line.size() && line[i + 1] == '"') {
                name += '"';
                ++i;
            } else {
                folder = std::move(name);
                return;
            }
        }
    });
    if (!folder || !folder->starts_with('/'))
        return std::nullopt;
    if (folder->size() > 1 && folder->ends_with('/'))
        folder->pop_back();
    return folder;
}

Status FtpBackend::confirmFolder(std::string_view dir, std::string_view within, std::string_view what)
{
    return confirmResolved(
        dir, within, [this](std::string_view path) { return folderPath(path); },
        [&](const std::string &where) { return resolvedFolder(where, what); }, m_realTops);
}

Result<std::optional<ResolvedCheck>> FtpBackend::folderCheck(std::string_view dir, std::string_view within,
                                                             std::string_view what)
{
    return resolvedCheck(
        dir, within, [this](std::string_view path) { return folderPath(path); },
        [&](const std::string &where) { return resolvedFolder(where, what); }, m_realTops);
}

Status FtpBackend::folderFound(std::string_view dir, const ResolvedCheck &check, std::string_view pwdReply,
                               std::string_view what)
{
    auto real = pwdFolder(pwdReply);
    if (!real)
        return Error(ErrorKind::Corrupt, std::string(what) + ": the server's PWD answer names no folder");
    if (*real != check.expected)
        return plantedLinkError(dir, *real);
    return {};
}

std::string FtpBackend::folderPath(std::string_view path) const
{
    return serverPath(path).empty() ? std::string("/") : serverPath(path);
}

Result<Entry> FtpBackend::stat(std::string_view path)
{
    auto e = statServer(serverPath(path), "cannot look at it");
    if (!e)
        return e;
    e->name = std::string(baseName(path));
    e->path = std::string(path);
    return e;
}

Status FtpBackend::listAll(const std::string &dir, const std::string &within, const ListingCache::Sink &sink,
                           std::vector<std::string> &skipped)
{
    const std::string where = serverPath(dir);
    if (auto st = sendable(where); !st)
        return std::move(st).error();
    if (auto st = confirmFolder(dir, within, "cannot list"); !st)
        return std::move(st).error();
    // A removal's listing (`within`) is handed over whole, after the check at its end; a
    // browser's as its lines arrive. A server may answer MLSD of a file with that file:
    // entries wait until the answer is known to be a folder's (its "cdir" line, or two).
    const bool whole = !within.empty();
    std::vector<Entry> batch;
    std::size_t taken = 0;
    bool folder = !m_features.mlsd;
    const std::time_t now = std::time(nullptr);
    const auto take = [&](std::string_view lines) {
        forEachLine(lines, [&](std::string_view line) {
            folder = folder || line.find("type=cdir") != std::string_view::npos;
            auto listed = m_features.mlsd ? parseMlsxLine(line) : parseListLine(line, now);
            if (!listed || listed->self)
                return;
            // A name is data: one that would be another path is reported, never followed.
            if (!isPathName(listed->name)) {
                skipped.push_back(std::move(listed->name));
                return;
            }
            Entry e = std::move(listed->entry);
            e.path = joinPath(dir, listed->name);
            e.name = std::move(listed->name);
            batch.push_back(std::move(e));
            ++taken;
        });
        if (whole || batch.empty() || !(folder || taken > 1))
            return true;
        const bool wanted = sink(batch);
        batch.clear();
        return wanted;
    };
    if (auto st = m_pool.lease()->listing(where, m_features.mlsd, take, "cannot list"); !st) {
        // Say what is there instead: a file is no folder, a missing folder is missing.
        auto there = statServer(where, "cannot list");
        if (there && !there->isDir())
            return Error(ErrorKind::NotDirectory, "cannot list: not a folder");
        if (!there && there.error().kind() == ErrorKind::NotFound)
            return std::move(there).error();
        return std::move(st).error();
    }
    if (!folder && taken == 1) {
        if (auto there = statServer(where, "cannot list"); there && !there->isDir())
            return Error(ErrorKind::NotDirectory, "cannot list: not a folder");
    }
    // A link swapped in after the check above made this the listing of another folder.
    if (auto st = confirmFolder(dir, within, "cannot list"); !st)
        return std::move(st).error();
    if (!batch.empty())
        sink(batch);
    return {};
}

Result<ListPage> FtpBackend::list(std::string_view dir, const ListOptions &options)
{
    return m_listings.pageOf(this, &FtpBackend::listAll, dir, options);
}

Result<std::size_t> FtpBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    const std::string where = serverPath(path);
    if (auto st = sendable(where); !st)
        return std::move(st).error();
    auto n = m_pool.lease()->read(where, offset, buffer, "cannot read");
    if (!n && n.error().kind() == ErrorKind::NotFound) {
        auto there = statServer(where, "cannot read");
        if (there && there->isDir())
            return Error(ErrorKind::IsDirectory, "cannot read: it is a folder");
        if (!there && there.error().kind() == ErrorKind::NotFound)
            return std::move(there).error();
    }
    return n;
}

Result<std::unique_ptr<Reader>> FtpBackend::openReader(std::string_view path, const Entry &expected)
{
    std::string where = serverPath(path);
    if (auto st = sendable(where); !st)
        return std::move(st).error();
    // Nothing is asked yet: the first read starts the download (a round trip saved per file;
    // a changed source shows in its length and in the copy's check after).
    return std::unique_ptr<Reader>(std::make_unique<FtpReader>(shared_from_this(), std::move(where), expected.size));
}

Result<std::unique_ptr<Writer>> FtpBackend::write(std::string_view path, const WriteOptions &options)
{
    const std::string where = serverPath(path);
    if (auto st = sendable(where); !st)
        return std::move(st).error();
    // A round trip per file saved where nothing is expected (a fresh folder): commit still
    // never replaces what appeared meanwhile unless overwrite is set.
    auto existing = options.fresh ? Result<Entry>(Error(ErrorKind::NotFound)) : statServer(where, "cannot write");
    if (!existing && existing.error().kind() != ErrorKind::NotFound)
        return std::move(existing).error();
    if (existing && existing->isDir())
        return Error(ErrorKind::IsDirectory, "cannot write: a folder has that name");
    if (existing && !options.overwrite)
        return Error(ErrorKind::AlreadyExists, "cannot write: it exists");

    // The temporary file gets the server's default permissions: given the ones asked for,
    // or a replaced file's own (a private file never becomes readable by replacing it).
    // Only a file's: a symlink's 0777 or a device's bits say nothing of what it held.
    std::optional<std::uint32_t> mode;
    if (options.mode && options.exactMode)
        mode = copyMode(*options.mode, true);
    else if (existing && existing->isFile() && existing->mode)
        mode = *existing->mode & 07777;
    else if (options.mode)
        mode = copyMode(*options.mode, false);

    const std::string dir = dirOf(where);
    std::string temp;
    std::uint64_t partial = 0;
    bool resumable = !options.resumeKey.empty();
    std::string refused;
    if (resumable) {
        // A stable name: what was written survives a crash or a pause for the next writer.
        // Nothing to resume in a folder new to this copy: no look (a round trip).
        temp = childOf(dir, resumePartName(options.resumeKey));
        auto kept = options.newFolder ? Result<std::uint64_t>(std::uint64_t(0)) : keptPartSize(temp, mode, refused);
        if (!kept)
            return std::move(kept).error();
        partial = *kept;
        resumable = refused.empty(); // someone else's file has the name: this write starts afresh elsewhere
    }
    if (!resumable)
        temp = childOf(dir, temporaryPartName());
    return makeWriter(shared_from_this(), std::string(path), std::move(temp), options, mode, resumable, partial,
                      std::move(refused));
}

Status FtpBackend::remove(std::string_view path, std::string_view within)
{
    const std::string where = serverPath(path);
    // The server resolves the folders on the way: none may be a link swapped in below `within`.
    if (auto st = confirmFolder(parentPath(path), within, "cannot remove"); !st)
        return st.error().kind() == ErrorKind::NotFound ? Status{} : st;
    auto there = statServer(where, "cannot remove");
    if (!there)
        return there.error().kind() == ErrorKind::NotFound ? Status{} : Status(std::move(there).error());
    if (there->isDir()) {
        auto st = m_pool.lease()->commands({"RMD " + where}, "cannot remove");
        if (st)
            return {};
        // Servers say only "550" for a folder that is not empty: look.
        std::string text;
        if (m_pool.lease()->listing(where, m_features.mlsd, text, "cannot remove")) {
            bool any = false;
            const std::time_t now = std::time(nullptr);
            forEachLine(text, [&](std::string_view line) {
                auto listed = m_features.mlsd ? parseMlsxLine(line) : parseListLine(line, now);
                any = any || (listed && !listed->self);
            });
            if (any)
                return Error(ErrorKind::DirectoryNotEmpty, "cannot remove: the folder is not empty");
        }
        return st;
    }
    auto st = m_pool.lease()->commands({"DELE " + where}, "cannot remove");
    if (!st && st.error().kind() == ErrorKind::NotFound && !statServer(where, "cannot remove"))
        return {}; // gone meanwhile
    return st;
}

Status FtpBackend::createDir(std::string_view path)
{
    const std::string where = serverPath(path);
    if (auto st = sendable(where); !st)
        return st;
    if (auto st = m_pool.lease()->commands({"MKD " + where}, "cannot create the folder"); !st) {
        if (statServer(where, "cannot create the folder"))
            return Error(ErrorKind::AlreadyExists, "cannot create the folder: something has that name");
        return st;
    }
    return {};
}

Status FtpBackend::rename(std::string_view from, std::string_view to, bool replace)
{
    const std::string source = serverPath(from), target = serverPath(to);
    if (target.starts_with(source + "/"))
        return Error(ErrorKind::InvalidInput, "cannot rename: a folder cannot go inside itself");
    auto what = statServer(source, "cannot rename");
    if (!what)
        return std::move(what).error();
    if (auto st = sendable(target); !st)
        return st;
    if (auto there = statServer(target, "cannot rename"); there) {
        if (!replace)
            return Error(ErrorKind::AlreadyExists, "cannot rename: something has the new name");
        if (there->isDir() || what->isDir())
            return Error(there->isDir() ? ErrorKind::IsDirectory : ErrorKind::NotDirectory,
                         "cannot rename: only a file replaces a file");
    } else if (there.error().kind() != ErrorKind::NotFound) {
        return std::move(there).error();
    }
    return m_pool.lease()->commands({"RNFR " + source, "RNTO " + target}, "cannot rename");
}

Status FtpBackend::setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow)
{
    const std::string where = serverPath(path);
    if (auto st = confirmFolder(parentPath(path), confineBelow, "cannot change the permissions"); !st)
        return st;
    auto there = statServer(where, "cannot change the permissions");
    if (!there)
        return std::move(there).error();
    // SITE CHMOD follows a symlink: a link's target is never changed through it.
    if (there->kind == EntryKind::Symlink)
        return Error(ErrorKind::InvalidInput, "cannot change the permissions of a symlink");
    if (there->mode && (*there->mode & 07777) == (mode & 07777))
        return {}; // already so (a folder made with the server's usual 755): a round trip saved
    return m_pool.lease()->commands({"SITE CHMOD " + octal(mode) + " " + where}, "cannot change the permissions");
}

void FtpBackend::discardPending(std::string_view path, const std::string &token)
{
    if (!isTemporaryPartName(token))
        return;
    const std::string temp = serverPath(joinPath(parentPath(path), token));
    if (sendable(temp))
        (void)m_pool.lease()->commands({"DELE " + temp}, "cannot remove the partial file");
}

} // namespace strata::ftp

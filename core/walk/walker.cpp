#include "core/walk/walker.h"

#include "core/storage/path.h"
#include "core/storage/printable.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace strata {

bool globMatch(std::string_view glob, std::string_view text)
{
    const std::string g(glob), t(text);
    return ::fnmatch(g.c_str(), t.c_str(), 0) == 0;
}

namespace {

// The longest a found entry waits in a half-full batch once its directory is listed.
constexpr auto kBatchAge = std::chrono::milliseconds(100);

struct FileId {
    std::uint64_t dev, ino;
    bool operator==(const FileId &) const = default;
};
struct FileIdHash {
    std::size_t operator()(const FileId &id) const { return std::hash<std::uint64_t>()(id.ino * 31 + id.dev); }
};

// A set of (device, inode) pairs shared by the threads.
class SeenSet {
public:
    bool insert(FileId id)
    {
        std::lock_guard lock(m_mutex);
        return m_ids.insert(id).second;
    }

private:
    std::mutex m_mutex;
    std::unordered_set<FileId, FileIdHash> m_ids;
};

// One directory to read or read; its own totals (cumulated into parents at the end).
struct Dir {
    Dir *parent = nullptr;
    std::string path; // relative to the root
    int depth = 0;
    std::uint64_t files = 0, dirs = 0, bytes = 0, allocated = 0;
};

class Excludes {
public:
    explicit Excludes(const std::vector<std::string> &globs)
    {
        for (const auto &g : globs)
            (g.find('/') != std::string::npos ? m_paths : m_names).push_back(g);
    }
    bool empty() const { return m_names.empty() && m_paths.empty(); }
    // name and path are NUL-terminated.
    bool match(const char *name, const char *path) const
    {
        for (const auto &g : m_names)
            if (::fnmatch(g.c_str(), name, 0) == 0)
                return true;
        for (const auto &g : m_paths)
            if (::fnmatch(g.c_str(), path, FNM_PATHNAME) == 0)
                return true;
        return false;
    }

private:
    std::vector<std::string> m_names, m_paths;
};

// The shared part of both walkers: pending directories (a stack: depth first keeps
// few pending), the node store, the sink and the summary.
class WalkState {
public:
    WalkState(const WalkOptions &walkOptions, const WalkSink &walkSink, std::stop_token stopToken)
        : options(walkOptions), sink(walkSink), stop(std::move(stopToken)), excludes(walkOptions.excludes)
    {
    }

    Dir *newDir(Dir *parent, std::string path, int depth)
    {
        std::lock_guard lock(m_nodesMutex);
        m_nodes.push_back(Dir{parent, std::move(path), depth});
        return &m_nodes.back();
    }

    void push(Dir *dir)
    {
        {
            std::lock_guard lock(m_mutex);
            m_stack.push_back(dir);
        }
        m_wake.notify_one();
    }

    // The next directory, or nullptr when all are done (or the walk was stopped).
    Dir *pop()
    {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [this] { return !m_stack.empty() || m_busy == 0 || stop.stop_requested(); });
        if (m_stack.empty() || stop.stop_requested())
            return nullptr;
        Dir *dir = m_stack.back();
        m_stack.pop_back();
        ++m_busy;
        return dir;
    }

    // Whether a thread that asks for a directory now would wait for one.
    bool nothingQueued()
    {
        std::lock_guard lock(m_mutex);
        return m_stack.empty();
    }

    void done()
    {
        std::lock_guard lock(m_mutex);
        if (--m_busy == 0 && m_stack.empty())
            m_wake.notify_all();
    }

    void wakeAll() { m_wake.notify_all(); }

    void error(std::string path, std::string message)
    {
        std::lock_guard lock(m_summaryMutex);
        summary.errors.push_back({std::move(path), std::move(message)});
    }

    void deliver(std::span<const WalkEntry> entries)
    {
        if (entries.empty() || !sink)
            return;
        std::lock_guard lock(m_sinkMutex);
        sink(entries);
    }

    // Cumulates every directory's totals into its parents and fills the summary.
    void finish(const Dir *root)
    {
        std::lock_guard lock(m_nodesMutex);
        if (options.totals) {
            for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it)
                if (it->parent) {
                    it->parent->files += it->files;
                    it->parent->dirs += it->dirs;
                    it->parent->bytes += it->bytes;
                    it->parent->allocated += it->allocated;
                }
            summary.directories.reserve(m_nodes.size());
            for (auto &n : m_nodes)
                summary.directories.push_back({std::move(n.path), n.depth, n.files, n.dirs, n.bytes, n.allocated});
        } else {
            for (const auto &n : m_nodes) {
                summary.files += n.files;
                summary.dirs += n.dirs;
                summary.bytes += n.bytes;
                summary.allocated += n.allocated;
            }
        }
        if (options.totals && root) {
            summary.files = summary.directories.front().files;
            summary.dirs = summary.directories.front().dirs;
            summary.bytes = summary.directories.front().bytes;
            summary.allocated = summary.directories.front().allocated;
        }
        summary.cancelled = stop.stop_requested();
    }

    const WalkOptions &options;
    const WalkSink &sink;
    std::stop_token stop;
    Excludes excludes;
    SeenSet seenDirs, seenFiles;
    std::atomic<std::uint64_t> symlinks{0}, others{0}, hardLinks{0}, revisits{0}, mountPoints{0}, excluded{0};
    WalkSummary summary;

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<Dir *> m_stack;
    std::size_t m_busy = 0;
    std::mutex m_nodesMutex;
    std::deque<Dir> m_nodes;
    std::mutex m_summaryMutex;
    std::mutex m_sinkMutex;
};

// A thread's batch: entries whose paths live in one growing buffer, turned into views
// only when the batch is handed over (the buffer may move while it grows).
class Batch {
public:
    Batch(WalkState &state, std::size_t size) : m_state(state), m_size(size), m_wantPaths(state.options.paths)
    {
        m_items.reserve(size);
    }
    ~Batch() { flush(); }

    void add(std::string_view dir, std::string_view name, EntryKind kind, int depth, std::uint64_t size,
             std::uint64_t allocated, std::int64_t mtime)
    {
        const std::size_t at = m_paths.size();
        if (m_items.empty())
            m_since = std::chrono::steady_clock::now();
        if (m_wantPaths) {
            if (!dir.empty()) {
                m_paths.append(dir);
                m_paths.push_back('/');
            }
            m_paths.append(name);
        }
        m_items.push_back({at, m_paths.size() - at, kind, depth, size, allocated, mtime});
        if (m_items.size() >= m_size)
            flush();
    }

    // Delivers what is held once it waited `age`: on slow storage a batch fills slowly, and
    // whoever shows the walk as it goes should not wait for it.
    void flushIfOlder(std::chrono::steady_clock::duration age)
    {
        if (!m_items.empty() && std::chrono::steady_clock::now() - m_since >= age)
            flush();
    }

    void flush()
    {
        if (m_items.empty())
            return;
        m_entries.clear();
        for (const auto &i : m_items)
            m_entries.push_back(
                {std::string_view(m_paths).substr(i.at, i.length), i.kind, i.depth, i.size, i.allocated, i.mtime});
        m_state.deliver(m_entries);
        m_items.clear();
        m_paths.clear();
    }

private:
    struct Item {
        std::size_t at, length;
        EntryKind kind;
        int depth;
        std::uint64_t size, allocated;
        std::int64_t mtime;
    };
    WalkState &m_state;
    std::size_t m_size;
    std::vector<Item> m_items;
    std::vector<WalkEntry> m_entries;
    std::string m_paths;
    bool m_wantPaths;
    std::chrono::steady_clock::time_point m_since; // of the oldest entry held
};

std::string errnoText(int err)
{
    switch (err) {
    case EACCES:
    case EPERM: return "permission denied";
    case ENOENT: return "it vanished during the walk";
    case ENOTDIR: return "it is no longer a directory";
    case ELOOP: return "it became a symbolic link during the walk";
    default: return std::strerror(err);
    }
}

EntryKind kindOfMode(mode_t mode)
{
    if (S_ISREG(mode))
        return EntryKind::File;
    if (S_ISDIR(mode))
        return EntryKind::Directory;
    if (S_ISLNK(mode))
        return EntryKind::Symlink;
    return EntryKind::Other;
}

EntryKind kindOfDirent(unsigned char type)
{
    switch (type) {
    case DT_REG: return EntryKind::File;
    case DT_DIR: return EntryKind::Directory;
    case DT_LNK: return EntryKind::Symlink;
    default: return EntryKind::Other;
    }
}

std::int64_t mtimeOf(const struct stat &st)
{
    return std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

// The local walker: directories are opened relative to the root's descriptor (their path
// resolved once per directory, never per entry), read with getdents64 in 64 KiB batches,
// and entries are stat'ed only where the answer is needed.
class LocalWalker {
public:
    LocalWalker(WalkState &state, int rootFd, dev_t rootDev) : m_state(state), m_rootFd(rootFd), m_rootDev(rootDev) {}

    void run()
    {
        Batch batch(m_state, m_state.options.batchSize);
        std::vector<char> buffer(64u << 10);
        std::string pathBuffer;
        while (Dir *dir = m_state.pop()) {
            readDir(*dir, batch, buffer, pathBuffer);
            m_state.done();
        }
    }

private:
    void readDir(Dir &dir, Batch &batch, std::vector<char> &buffer, std::string &pathBuffer)
    {
        const auto &options = m_state.options;
        const int fd = ::openat(m_rootFd, dir.path.empty() ? "." : dir.path.c_str(),
                                O_RDONLY | O_DIRECTORY | O_CLOEXEC | (options.follow ? 0 : O_NOFOLLOW));
        if (fd < 0) {
            m_state.error(dir.path, errnoText(errno));
            return;
        }
        if (options.follow || options.oneFileSystem || options.stat || options.totals) {
            struct stat st;
            if (::fstat(fd, &st) == 0) {
                if (options.follow && !m_state.seenDirs.insert({std::uint64_t(st.st_dev), std::uint64_t(st.st_ino)})) {
                    m_state.revisits.fetch_add(1); // reached before, by another name
                    ::close(fd);
                    return;
                }
                if (options.oneFileSystem && st.st_dev != m_rootDev && dir.depth > 0) {
                    m_state.mountPoints.fetch_add(1);
                    ::close(fd);
                    return;
                }
                dir.allocated += std::uint64_t(st.st_blocks) * 512;
            }
        }
        const bool descend = options.maxDepth < 0 || dir.depth + 1 < options.maxDepth;
        const bool anyExcludes = !m_state.excludes.empty();
        const int depth = dir.depth + 1;
        for (;;) {
            if (m_state.stop.stop_requested())
                break;
            const long n = ::syscall(SYS_getdents64, fd, buffer.data(), buffer.size());
            if (n < 0) {
                m_state.error(dir.path, errnoText(errno));
                break;
            }
            if (n == 0)
                break;
            for (long pos = 0; pos < n;) {
                auto *d = reinterpret_cast<struct dirent64 *>(buffer.data() + pos);
                pos += d->d_reclen;
                const char *name = d->d_name;
                if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
                    continue;
                const std::string_view nameView(name);
                if (anyExcludes) {
                    pathBuffer.assign(dir.path);
                    if (!pathBuffer.empty())
                        pathBuffer.push_back('/');
                    pathBuffer.append(nameView);
                    if (m_state.excludes.match(name, pathBuffer.c_str())) {
                        m_state.excluded.fetch_add(1);
                        continue;
                    }
                }
                EntryKind kind = kindOfDirent(d->d_type);
                struct stat st;
                bool haveStat = false;
                if (d->d_type == DT_UNKNOWN || options.stat || (options.totals && kind == EntryKind::File)) {
                    if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                        if (errno != ENOENT) // gone since the listing: not an error of the walk
                            m_state.error(dir.path.empty() ? std::string(nameView) : dir.path + "/" + name,
                                          errnoText(errno));
                        continue;
                    }
                    haveStat = true;
                    kind = kindOfMode(st.st_mode);
                }
                std::uint64_t size = 0, allocated = 0;
                std::int64_t mtime = 0;
                if (haveStat) {
                    size = kind == EntryKind::File ? std::uint64_t(st.st_size) : 0;
                    allocated = std::uint64_t(st.st_blocks) * 512;
                    mtime = mtimeOf(st);
                }
                switch (kind) {
                case EntryKind::File:
                    if (haveStat && st.st_nlink > 1
                        && !m_state.seenFiles.insert({std::uint64_t(st.st_dev), std::uint64_t(st.st_ino)})) {
                        m_state.hardLinks.fetch_add(1); // reported, counted once
                    } else {
                        ++dir.files;
                        dir.bytes += size;
                        dir.allocated += allocated;
                    }
                    break;
                case EntryKind::Directory:
                    ++dir.dirs;
                    if (descend)
                        m_state.push(m_state.newDir(
                            &dir, dir.path.empty() ? std::string(nameView) : dir.path + "/" + name, depth));
                    break;
                case EntryKind::Symlink:
                    m_state.symlinks.fetch_add(1);
                    if (options.follow && descend) {
                        struct stat target;
                        if (::fstatat(fd, name, &target, 0) == 0 && S_ISDIR(target.st_mode))
                            m_state.push(m_state.newDir(
                                &dir, dir.path.empty() ? std::string(nameView) : dir.path + "/" + name, depth));
                    }
                    break;
                case EntryKind::Other: m_state.others.fetch_add(1); break;
                }
                batch.add(dir.path, nameView, kind, depth, size, allocated, mtime);
            }
        }
        ::close(fd);
    }

    WalkState &m_state;
    int m_rootFd;
    dev_t m_rootDev;
};

Result<WalkSummary> walkLocal(const std::string &rootPath, const WalkOptions &options, const WalkSink &sink,
                              std::stop_token stop, const std::string &display)
{
    const int rootFd = ::open(rootPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootFd < 0) {
        const int err = errno;
        ErrorKind kind = err == ENOENT        ? ErrorKind::NotFound
            : err == ENOTDIR                  ? ErrorKind::NotDirectory
            : (err == EACCES || err == EPERM) ? ErrorKind::PermissionDenied
                                              : ErrorKind::Unexpected;
        return Error(kind, std::strerror(err)).withContext("walk", display);
    }
    struct stat rootStat {};
    ::fstat(rootFd, &rootStat);
    WalkState state(options, sink, std::move(stop));
    Dir *root = state.newDir(nullptr, "", 0);
    LocalWalker walker(state, rootFd, rootStat.st_dev);
    state.push(root);
    const std::size_t threads = options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency());
    {
        std::stop_callback wake(state.stop, [&state] { state.wakeAll(); });
        std::vector<std::jthread> pool;
        for (std::size_t i = 0; i < threads; ++i)
            pool.emplace_back([&walker] { walker.run(); });
    }
    ::close(rootFd);
    state.summary.symlinks = state.symlinks;
    state.summary.others = state.others;
    state.summary.hardLinks = state.hardLinks;
    state.summary.revisits = state.revisits;
    state.summary.mountPoints = state.mountPoints;
    state.summary.excluded = state.excluded;
    state.finish(root);
    return std::move(state.summary);
}

// Any other storage: directories listed by a pool of threads (many list calls in flight),
// or one flat listing of the whole subtree where the storage has one.
class RemoteWalker {
public:
    RemoteWalker(WalkState &state, Operator &op, std::string rootPath)
        : m_state(state), m_op(op), m_root(std::move(rootPath))
    {
    }

    void run()
    {
        Batch batch(m_state, m_state.options.batchSize);
        while (Dir *dir = m_state.pop()) {
            listDir(*dir, batch);
            // Before waiting for more, what is held goes out; otherwise once it is old.
            if (m_state.nothingQueued())
                batch.flush();
            else
                batch.flushIfOlder(kBatchAge);
            m_state.done();
        }
    }

    // The whole subtree in one flat listing; directories are made up from the keys' paths.
    void runFlat(Dir *root)
    {
        Batch batch(m_state, m_state.options.batchSize);
        std::map<std::string, Dir *, std::less<>> dirs{{"", root}};
        const std::string base = m_root == "/" ? "/" : m_root + "/";
        ListOptions listOptions;
        listOptions.recursive = true;
        do {
            if (m_state.stop.stop_requested())
                return;
            auto page = m_op.list(m_root, listOptions);
            if (!page) {
                m_state.error("", page.error().message());
                return;
            }
            for (const auto &raw : page->skipped)
                m_state.error("", skippedNameWarning(m_op.display(m_root), raw));
            for (const auto &e : page->entries) {
                if (!e.path.starts_with(base))
                    continue;
                const std::string rel = e.path.substr(base.size());
                if (rel.empty())
                    continue;
                // Parents first, each once.
                Dir *parent = root;
                bool skip = false;
                for (std::size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
                    const std::string dirPath = rel.substr(0, slash);
                    auto it = dirs.find(dirPath);
                    if (it == dirs.end()) {
                        const std::string name =
                            dirPath.substr(dirPath.rfind('/') == std::string::npos ? 0 : dirPath.rfind('/') + 1);
                        const std::string &relPath = dirPath;
                        if (excluded(name, relPath)) {
                            skip = true;
                            break;
                        }
                        const int depth = int(std::count(dirPath.begin(), dirPath.end(), '/')) + 1;
                        ++parent->dirs;
                        Dir *d = m_state.newDir(parent, dirPath, depth);
                        it = dirs.emplace(dirPath, d).first;
                        if (m_state.options.maxDepth < 0 || depth <= m_state.options.maxDepth)
                            batch.add({}, dirPath, EntryKind::Directory, depth, 0, 0, 0);
                    }
                    parent = it->second;
                }
                if (skip)
                    continue;
                const std::string name(baseName(e.path));
                if (excluded(name, rel))
                    continue;
                const int depth = int(std::count(rel.begin(), rel.end(), '/')) + 1;
                if (e.isDir()) {
                    if (dirs.count(rel))
                        continue;
                    ++parent->dirs;
                    dirs.emplace(rel, m_state.newDir(parent, rel, depth));
                } else {
                    count(*parent, e);
                }
                if (m_state.options.maxDepth < 0 || depth <= m_state.options.maxDepth)
                    batch.add({}, rel, e.kind, depth, e.size, e.allocated.value_or(e.size), e.mtimeNs.value_or(0));
            }
            listOptions.pageToken = std::move(page->nextPageToken);
            batch.flushIfOlder(kBatchAge);
        } while (!listOptions.pageToken.empty());
    }

private:
    bool excluded(const std::string &name, const std::string &rel)
    {
        if (m_state.excludes.empty() || !m_state.excludes.match(name.c_str(), rel.c_str()))
            return false;
        m_state.excluded.fetch_add(1);
        return true;
    }

    void count(Dir &dir, const Entry &e)
    {
        switch (e.kind) {
        case EntryKind::File:
            ++dir.files;
            dir.bytes += e.size;
            dir.allocated += e.allocated.value_or(e.size);
            break;
        case EntryKind::Symlink: m_state.symlinks.fetch_add(1); break;
        case EntryKind::Other: m_state.others.fetch_add(1); break;
        case EntryKind::Directory: break;
        }
    }

    void listDir(Dir &dir, Batch &batch)
    {
        const std::string path = dir.path.empty() ? m_root : joinPath(m_root, dir.path);
        const bool descend = m_state.options.maxDepth < 0 || dir.depth + 1 < m_state.options.maxDepth;
        ListOptions listOptions;
        do {
            if (m_state.stop.stop_requested())
                return;
            auto page = m_op.list(path, listOptions);
            if (!page) {
                m_state.error(dir.path, page.error().message());
                return;
            }
            for (const auto &raw : page->skipped)
                m_state.error(dir.path, skippedNameWarning(m_op.display(path), raw));
            for (const auto &e : page->entries) {
                const std::string rel = dir.path.empty() ? e.name : dir.path + "/" + e.name;
                if (excluded(e.name, rel))
                    continue;
                if (e.isDir()) {
                    ++dir.dirs;
                    if (descend)
                        m_state.push(m_state.newDir(&dir, rel, dir.depth + 1));
                } else {
                    count(dir, e);
                }
                batch.add({}, rel, e.kind, dir.depth + 1, e.size, e.allocated.value_or(e.size), e.mtimeNs.value_or(0));
            }
            listOptions.pageToken = std::move(page->nextPageToken);
        } while (!listOptions.pageToken.empty());
    }

    WalkState &m_state;
    Operator &m_op;
    std::string m_root;
};

} // namespace

Result<WalkSummary> walkTree(Operator &op, std::string_view root, const WalkOptions &options, const WalkSink &sink,
                             std::stop_token stop)
{
    const std::string rootPath(root);
    if (auto local = op.localPath(rootPath))
        return walkLocal(*local, options, sink, std::move(stop), op.display(rootPath));

    auto top = op.stat(rootPath);
    if (!top)
        return std::move(top).error();
    if (!top->isDir())
        return WalkSummary{};
    WalkState state(options, sink, std::move(stop));
    Dir *rootDir = state.newDir(nullptr, "", 0);
    RemoteWalker walker(state, op, rootPath);
    const bool flat = op.capabilities().has(Capability::ListRecursive);
    if (flat) {
        walker.runFlat(rootDir);
    } else {
        state.push(rootDir);
        const std::size_t threads = options.threads ? options.threads : 16;
        std::stop_callback wake(state.stop, [&state] { state.wakeAll(); });
        std::vector<std::jthread> pool;
        for (std::size_t i = 0; i < threads; ++i)
            pool.emplace_back([&walker] { walker.run(); });
    }
    state.summary.symlinks = state.symlinks;
    state.summary.others = state.others;
    state.summary.excluded = state.excluded;
    state.finish(rootDir);
    return std::move(state.summary);
}

} // namespace strata

#include "core/storage/operator.h"

#include "core/storage/capability_layer.h"
#include "core/storage/path.h"
#include "core/storage/printable.h"

#include <algorithm>
#include <set>

namespace strata {

namespace {

// Adds the operation and URI to errors raised while writing.
class ContextWriter final : public Writer {
public:
    void suspend() override { m_inner->suspend(); }
    bool keepsPartialState() const override { return m_inner->keepsPartialState(); }
    std::optional<std::uint64_t> partialLength() const override { return m_inner->partialLength(); }
    std::string refusedPartial() const override { return m_inner->refusedPartial(); }
    int nativeHandle() const override { return m_inner->nativeHandle(); }
    std::optional<std::uint64_t> committedSize() const override { return m_inner->committedSize(); }
    // The URI is formatted only for an error: writing stays free of string work.
    ContextWriter(std::unique_ptr<Writer> inner, std::shared_ptr<Backend> stack, std::string_view path)
        : m_inner(std::move(inner)), m_stack(std::move(stack)), m_path(path)
    {
    }
    Status write(std::span<const std::byte> data) override { return context(m_inner->write(data)); }
    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        return context(m_inner->writeAt(offset, data));
    }
    Status setLength(std::uint64_t length) override { return context(m_inner->setLength(length)); }
    Status zero(std::uint64_t offset, std::uint64_t length) override { return context(m_inner->zero(offset, length)); }
    Result<std::size_t> writeQueue(IoQueue &queue) override
    {
        auto n = m_inner->writeQueue(queue);
        if (!n)
            n.error().withContext("write", m_stack->uriFor(m_path).redacted());
        return n;
    }
    Status commit() override { return context(m_inner->commit()); }
    void abort() override { m_inner->abort(); }

private:
    Status context(Status st)
    {
        if (!st.ok())
            st.error().withContext("write", m_stack->uriFor(m_path).redacted());
        return st;
    }
    std::unique_ptr<Writer> m_inner;
    std::shared_ptr<Backend> m_stack;
    std::string m_path;
};

// Puts the operation and URI into an error; the URI is only formatted when there is one
// (hot paths stay allocation-free).
template <typename R>
R withContext(R result, std::string_view op, const Operator &self, std::string_view path)
{
    if (!result.ok())
        result.error().withContext(op, self.display(path));
    return result;
}

// Leaves in `page` only entries naming a place strictly below `dir` (its direct children
// unless recursive) under a valid name; the rest go to page.skipped, as they were named.
void confine(std::string_view dir, bool recursive, ListPage &page)
{
    auto outside = [&](const Entry &e) {
        if (!isValidName(e.name) || !isNormalPath(e.path) || baseName(e.path) != e.name)
            return true;
        return recursive ? !isStrictlyBelow(e.path, dir) : parentPath(e.path) != dir;
    };
    auto kept = page.entries.begin();
    for (auto it = page.entries.begin(); it != page.entries.end(); ++it) {
        if (outside(*it)) {
            page.skipped.push_back(it->path.empty() ? it->name : it->path);
            continue;
        }
        if (kept != it)
            *kept = std::move(*it);
        ++kept;
    }
    page.entries.erase(kept, page.entries.end());
}

} // namespace

Operator::Operator(std::shared_ptr<Backend> backend, OperatorOptions options)
{
    // Innermost first: metrics and logging see every attempt; retry wraps them; the
    // capability check refuses before anything is attempted.
    m_metrics = std::make_shared<MetricsLayer>(std::move(backend));
    std::shared_ptr<Backend> stack = m_metrics;
    if (options.log)
        stack = std::make_shared<LoggingLayer>(std::move(stack), std::move(options.log));
    if (options.retry)
        stack = std::make_shared<RetryLayer>(std::move(stack), std::move(*options.retry));
    m_stack = std::make_shared<CapabilityLayer>(std::move(stack));
}

Result<std::string> Operator::checked(std::string_view op, std::string_view path) const
{
    auto normal = normalizePath(path);
    if (!normal)
        normal.error().withContext(op, m_stack->uriFor(path).redacted());
    return normal;
}

// Declares `var`, the normalised path: the argument itself when already normal (no
// allocation on hot paths), else a normalised copy; a bad path returns its error.
// NOLINTBEGIN(bugprone-macro-parentheses): `var` is the name of the variable it declares
#define STRATA_CHECKED(var, op, path)          \
    std::string var##Storage;                  \
    std::string_view var = (path);             \
    if (!isNormalPath(var)) {                  \
        auto normal_ = checked((op), var);     \
        if (!normal_)                          \
            return std::move(normal_).error(); \
        var##Storage = std::move(*normal_);    \
        var = var##Storage;                    \
    }
// NOLINTEND(bugprone-macro-parentheses)

Result<Entry> Operator::stat(std::string_view path)
{
    STRATA_CHECKED(p, "stat", path);
    return withContext(m_stack->stat(p), "stat", *this, p);
}

Result<ListPage> Operator::list(std::string_view dir, const ListOptions &options)
{
    STRATA_CHECKED(p, "list", dir);
    auto page = withContext(m_stack->list(p, options), "list", *this, p);
    if (page)
        confine(p, options.recursive, *page);
    return page;
}

Result<std::vector<Entry>> Operator::listAll(std::string_view dir)
{
    std::vector<Entry> all;
    ListOptions options;
    do {
        auto page = list(dir, options);
        if (!page)
            return std::move(page).error();
        all.insert(all.end(), std::make_move_iterator(page->entries.begin()),
                   std::make_move_iterator(page->entries.end()));
        options.pageToken = std::move(page->nextPageToken);
    } while (!options.pageToken.empty());
    return all;
}

Result<std::size_t> Operator::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    STRATA_CHECKED(p, "read", path);
    return withContext(m_stack->read(p, offset, buffer), "read", *this, p);
}

Result<std::size_t> Operator::readQueue(std::string_view path, IoQueue &queue)
{
    STRATA_CHECKED(p, "read", path);
    return withContext(m_stack->readQueue(p, queue), "read", *this, p);
}

Result<std::size_t> Operator::readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                          const ObjectVersion &version)
{
    STRATA_CHECKED(p, "read", path);
    return withContext(m_stack->readVersion(p, offset, buffer, version), "read", *this, p);
}

Result<std::vector<std::byte>> Operator::readAll(std::string_view path, std::uint64_t maxSize)
{
    auto entry = stat(path);
    if (!entry)
        return std::move(entry).error();
    if (entry->isDir())
        return Error(ErrorKind::IsDirectory).withContext("read", display(entry->path));
    if (entry->size > maxSize)
        return Error(ErrorKind::InvalidInput, "it is larger than " + std::to_string(maxSize) + " bytes")
            .withContext("read", display(entry->path));
    std::vector<std::byte> data(entry->size);
    std::size_t done = 0;
    while (done < data.size()) {
        auto n = read(entry->path, done, std::span(data).subspan(done));
        if (!n)
            return std::move(n).error();
        if (*n == 0)
            break; // shrank meanwhile
        done += *n;
    }
    data.resize(done);
    return data;
}

Result<std::unique_ptr<Writer>> Operator::write(std::string_view path, const WriteOptions &options)
{
    STRATA_CHECKED(p, "write", path);
    if (p == "/" && !capabilities().has(Capability::SingleObject))
        return Error(ErrorKind::IsDirectory, "the root cannot be written").withContext("write", display(p));
    auto writer = withContext(m_stack->write(p, options), "write", *this, p);
    if (!writer)
        return writer;
    return std::unique_ptr<Writer>(std::make_unique<ContextWriter>(std::move(*writer), m_stack, p));
}

Status Operator::writeAll(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    STRATA_CHECKED(p, "write", path);
    if (p == "/" && !capabilities().has(Capability::SingleObject))
        return Error(ErrorKind::IsDirectory, "the root cannot be written").withContext("write", display(p));
    return withContext(m_stack->put(p, data, options), "write", *this, p);
}

Status Operator::remove(std::string_view path)
{
    STRATA_CHECKED(p, "remove", path);
    if (p == "/")
        return Error(ErrorKind::InvalidInput, "refusing to remove the root").withContext("remove", display(p));
    return withContext(m_stack->remove(p, {}), "remove", *this, p);
}

Status Operator::removeAll(std::string_view path, const RemoveAllOptions &options)
{
    STRATA_CHECKED(p, "remove", path);
    if (auto st = guardLocalRoot(p, "remove it recursively", "remove", options.allowLocalRoot); !st)
        return st;
    auto entry = stat(p);
    if (!entry)
        return entry.error().kind() == ErrorKind::NotFound ? Status{} : Status(std::move(entry).error());
    if (!entry->isDir()) { // a file, or a symlink: the link goes, never what it points to
        if (options.onRemove)
            options.onRemove(p, false);
        return options.dryRun ? Status{} : withContext(m_stack->remove(p, options.within), "remove", *this, p);
    }
    const std::string dir(p);
    if (options.dryRun)
        return listTree(dir, options);
    // Below what was named (or `within`), every removal resolves its path through no symlink.
    const std::string within = options.within.empty() ? dir : options.within;
    return removeTree(dir, within, options);
}

Status Operator::guardLocalRoot(std::string_view path, std::string_view doing, std::string_view operation,
                                bool allowed) const
{
    if (allowed || path != "/" || !localPath(path))
        return {};
    return Error(ErrorKind::InvalidInput,
                 "it is the root of the file system; refusing to " + std::string(doing)
                     + " (use --no-preserve-root to override)")
        .withContext(operation, display(path));
}

Status Operator::listTree(const std::string &dir, const RemoveAllOptions &options)
{
    ListOptions listOptions;
    do {
        auto page = list(dir, listOptions);
        if (!page)
            return std::move(page).error();
        for (const auto &raw : page->skipped)
            if (options.onSkipped)
                options.onSkipped(dir, raw);
        for (const auto &child : page->entries) {
            if (child.isDir()) {
                if (auto st = listTree(child.path, options); !st)
                    return st;
            } else if (options.onRemove) {
                options.onRemove(child.path, false);
            }
        }
        listOptions.pageToken = std::move(page->nextPageToken);
    } while (!listOptions.pageToken.empty());
    if (dir != "/" && options.onRemove)
        options.onRemove(dir, true);
    return {};
}

Status Operator::removeTree(const std::string &dir, const std::string &within, const RemoveAllOptions &options)
{
    // Children are listed again after each page of removals, so the listing never depends
    // on a page token into a directory that is changing. A child listed again right after
    // it was removed means the storage does not remove it: stop rather than loop.
    std::set<std::string, std::less<>> removed; // in the last round only: memory stays a page
    bool removedAny = false;
    std::vector<std::string> skipped;
    // Storage that resolves names itself checks that `dir` is still a folder reached through
    // no symlink below `within` before it lists it, each round.
    ListOptions listOptions;
    listOptions.within = within;
    for (;;) {
        auto page = list(dir, listOptions);
        // An object store's folder that only its keys implied is gone with its last key.
        if (!page && removedAny && page.error().kind() == ErrorKind::NotFound)
            return {};
        if (!page)
            return std::move(page).error();
        for (auto &raw : page->skipped) {
            if (std::find(skipped.begin(), skipped.end(), raw) != skipped.end())
                continue;
            if (options.onSkipped)
                options.onSkipped(dir, raw);
            skipped.push_back(std::move(raw));
        }
        if (page->entries.empty()) {
            if (page->nextPageToken.empty())
                break;
            listOptions.pageToken = std::move(page->nextPageToken); // a page of skipped names only
            continue;
        }
        std::set<std::string, std::less<>> before = std::move(removed);
        removed.clear();
        // Files of a page go in one batch where the storage batches deletes.
        std::vector<std::string> files;
        for (const auto &child : page->entries) {
            // Checked here again, whatever the listing did: only what is below `dir` goes.
            if (!isStrictlyBelow(child.path, dir) || parentPath(child.path) != dir)
                return Error(ErrorKind::Corrupt,
                             "the storage listed '" + printable(child.path) + "' in it; nothing outside it is removed")
                    .withContext("remove", display(dir));
            if (before.count(child.path))
                return Error(ErrorKind::Corrupt,
                             "the storage still lists '" + printable(child.name) + "' in it after removing it")
                    .withContext("remove", display(dir));
            removed.insert(child.path);
            if (child.isDir()) {
                if (auto st = removeTree(child.path, within, options); !st)
                    return st;
            } else {
                if (options.onRemove)
                    options.onRemove(child.path, false);
                files.push_back(child.path);
            }
        }
        if (!files.empty())
            if (auto st = withContext(m_stack->removeMany(files, within), "remove", *this, dir); !st)
                return st;
        removedAny = true;
        listOptions.pageToken.clear(); // from the start again: the folder changed
    }
    if (dir == "/")
        return {};
    if (options.onRemove)
        options.onRemove(dir, true);
    auto st = withContext(m_stack->remove(dir, dir == within ? options.within : within), "remove", *this, dir);
    if (!st && removedAny && st.error().kind() == ErrorKind::NotFound)
        return {}; // the same: a folder its keys implied, no marker of its own
    if (!st && st.error().kind() == ErrorKind::DirectoryNotEmpty && !skipped.empty())
        st.error().setCause("it still holds '" + printable(skipped.front())
                            + "', a name that is no path, which was left alone");
    return st;
}

Status Operator::createDir(std::string_view path, bool parents)
{
    STRATA_CHECKED(p, "create directory", path);
    if (p == "/")
        return parents ? Status{} : Status(Error(ErrorKind::AlreadyExists).withContext("create directory", display(p)));
    if (parents) {
        // Made at once where its parent stands (a copy makes its folders parents first):
        // one round trip per folder, not a look at it and at its parent before. Not on an
        // object store: a marker is made without its parents, which get markers of their
        // own below (an emptied parent stays listed).
        Status made = Error(ErrorKind::NotFound);
        if (capabilities().has(Capability::RealDirectories)) {
            made = m_stack->createDir(p);
            if (made)
                return {};
        }
        auto existing = m_stack->stat(p);
        if (existing) {
            if (existing->isDir())
                return {};
            return Error(ErrorKind::NotDirectory, "a file has that name").withContext("create directory", display(p));
        }
        if (made.error().kind() == ErrorKind::AlreadyExists)
            return withContext(std::move(made), "create directory", *this, p); // there, and gone again
        if (auto st = createDir(parentPath(p), true); !st)
            return st;
        auto st = m_stack->createDir(p);
        if (!st && st.error().kind() == ErrorKind::AlreadyExists)
            return {}; // created by someone else meanwhile
        return withContext(std::move(st), "create directory", *this, p);
    }
    return withContext(m_stack->createDir(p), "create directory", *this, p);
}

Status Operator::markDir(std::string_view path)
{
    STRATA_CHECKED(p, "create directory", path);
    if (p == "/")
        return {};
    return withContext(m_stack->markDir(p), "create directory", *this, p);
}

Status Operator::rename(std::string_view from, std::string_view to, bool replace)
{
    STRATA_CHECKED(a, "rename", from);
    STRATA_CHECKED(b, "rename", to);
    if (a == "/" || b == "/")
        return Error(ErrorKind::InvalidInput, "the root cannot be renamed or replaced")
            .withContext("rename", display(a));
    auto st = m_stack->rename(a, b, replace);
    if (!st.ok())
        st.error().withContext("rename", display(a) + " to " + display(b));
    return st;
}

Status Operator::copy(std::string_view from, std::string_view to)
{
    STRATA_CHECKED(a, "copy", from);
    STRATA_CHECKED(b, "copy", to);
    auto st = m_stack->copy(a, b);
    if (!st.ok())
        st.error().withContext("copy", display(a) + " to " + display(b));
    return st;
}

Status Operator::setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow)
{
    STRATA_CHECKED(p, "set permissions of", path);
    return withContext(m_stack->setPermissions(p, mode, confineBelow), "set permissions of", *this, p);
}

namespace {

// Reads by name through the operator (every layer), from the listed version where the
// storage can check it (an S3 ETag).
class NamedReader final : public Reader {
public:
    NamedReader(Operator &op, std::string path, const Entry &expected)
        : m_op(op), m_path(std::move(path)), m_etag(expected.etag), m_size(expected.size),
          m_versioned(!expected.etag.empty() && op.capabilities().has(Capability::VersionedRead))
    {
    }
    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        return m_versioned ? m_op.readVersion(m_path, offset, buffer, {m_etag, m_size})
                           : m_op.read(m_path, offset, buffer);
    }
    Status copyRangeTo(std::uint64_t offset, std::uint64_t length, Writer &to) override
    {
        return m_op.copyRange(m_path, offset, length, to);
    }
    Result<Entry> stat() override { return m_op.stat(m_path); }

private:
    Operator &m_op;
    std::string m_path;
    std::string m_etag;
    std::uint64_t m_size;
    bool m_versioned;
};

// Puts the operation and URI into a native reader's errors.
class ContextReader final : public Reader {
public:
    ContextReader(std::unique_ptr<Reader> inner, Operator &op, std::string path)
        : m_inner(std::move(inner)), m_op(op), m_path(std::move(path))
    {
    }
    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        return withContext(m_inner->read(offset, buffer), "read", m_op, m_path);
    }
    Status copyRangeTo(std::uint64_t offset, std::uint64_t length, Writer &to) override
    {
        return withContext(m_inner->copyRangeTo(offset, length, to), "copy", m_op, m_path);
    }
    Result<Entry> stat() override
    {
        auto e = m_inner->stat();
        if (!e && e.error().kind() == ErrorKind::Unsupported)
            return m_op.stat(m_path);
        return withContext(std::move(e), "stat", m_op, m_path);
    }

private:
    std::unique_ptr<Reader> m_inner;
    Operator &m_op;
    std::string m_path;
};

} // namespace

Result<std::unique_ptr<Reader>> Operator::openReader(std::string_view path, const Entry &expected)
{
    STRATA_CHECKED(p, "read", path);
    auto native = m_stack->openReader(p, expected);
    if (native)
        return std::unique_ptr<Reader>(std::make_unique<ContextReader>(std::move(*native), *this, std::string(p)));
    if (native.error().kind() != ErrorKind::Unsupported)
        return withContext(std::move(native), "read", *this, p);
    return std::unique_ptr<Reader>(std::make_unique<NamedReader>(*this, std::string(p), expected));
}

Result<std::vector<Extent>> Operator::extents(std::string_view path)
{
    STRATA_CHECKED(p, "map extents of", path);
    return withContext(m_stack->extents(p), "map extents of", *this, p);
}

Result<VersionPage> Operator::listVersions(std::string_view dir, const ListOptions &options)
{
    STRATA_CHECKED(p, "list the versions in", dir);
    return withContext(m_stack->listVersions(p, options), "list the versions in", *this, p);
}

Result<ObjectDetails> Operator::details(std::string_view path)
{
    STRATA_CHECKED(p, "read the details of", path);
    return withContext(m_stack->details(p), "read the details of", *this, p);
}

Status Operator::changeDetails(std::string_view path, const DetailsChange &change)
{
    STRATA_CHECKED(p, "change the details of", path);
    return withContext(m_stack->changeDetails(p, change), "change the details of", *this, p);
}

Result<std::string> Operator::shareLink(std::string_view path, std::chrono::seconds lifetime)
{
    STRATA_CHECKED(p, "make a share link to", path);
    return withContext(m_stack->shareLink(p, lifetime), "make a share link to", *this, p);
}

Result<UploadPage> Operator::listUploads(std::string_view dir, const ListOptions &options)
{
    STRATA_CHECKED(p, "list the unfinished uploads in", dir);
    return withContext(m_stack->listUploads(p, options), "list the unfinished uploads in", *this, p);
}

Status Operator::copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to)
{
    STRATA_CHECKED(p, "copy", from);
    return withContext(m_stack->copyRange(p, offset, length, to), "copy", *this, p);
}

#undef STRATA_CHECKED

} // namespace strata

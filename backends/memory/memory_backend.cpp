#include "backends/memory/memory_backend.h"

#include "core/storage/path.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

namespace strata {

// File data lives in 64 KiB blocks. Blocks of contents nobody holds any more go back to
// the store's pool (up to PoolLimit), so rewriting objects reuses memory instead of
// allocating it again: a put of a recycled size allocates nothing payload-sized.
class MemoryBackend::BlockPool {
public:
    static constexpr std::size_t PoolLimit = 1024; // 64 MiB of blocks
    static constexpr std::size_t IndexLimit = 16;  // chunk index vectors kept with their capacity

    ~BlockPool()
    {
        for (auto *block : m_blocks)
            delete[] block;
    }
    std::byte *takeBlock()
    {
        {
            std::lock_guard lock(m_mutex);
            if (!m_blocks.empty()) {
                auto *block = m_blocks.back();
                m_blocks.pop_back();
                return block;
            }
        }
        return new std::byte[ChunkSize];
    }
    ChunkIndex takeIndex()
    {
        std::lock_guard lock(m_mutex);
        if (m_indexes.empty())
            return {};
        ChunkIndex index = std::move(m_indexes.back());
        m_indexes.pop_back();
        return index;
    }
    void recycle(ChunkIndex &index)
    {
        std::lock_guard lock(m_mutex);
        for (auto &[_, block] : index) {
            if (m_blocks.size() < PoolLimit && m_blocks.capacity() > m_blocks.size())
                m_blocks.push_back(block);
            else
                delete[] block;
        }
        index.clear();
        if (m_indexes.size() < IndexLimit && m_indexes.capacity() > m_indexes.size() && index.capacity() > 0)
            m_indexes.push_back(std::move(index));
    }
    BlockPool()
    {
        m_blocks.reserve(PoolLimit);
        m_indexes.reserve(IndexLimit);
    }

private:
    std::mutex m_mutex;
    std::vector<std::byte *> m_blocks;
    std::vector<ChunkIndex> m_indexes;
};

struct MemoryBackend::Contents {
    explicit Contents(std::shared_ptr<BlockPool> p) : pool(std::move(p)), chunks(pool->takeIndex()) {}
    ~Contents() { pool->recycle(chunks); }
    Contents(const Contents &) = delete;
    Contents &operator=(const Contents &) = delete;

    std::shared_ptr<BlockPool> pool;
    ChunkIndex chunks; // sorted by chunk index; absent chunks are holes
    std::uint64_t size = 0;

    // The first chunk at or after `index`.
    ChunkIndex::const_iterator from(std::uint64_t index) const
    {
        return std::lower_bound(chunks.begin(), chunks.end(), index,
                                [](const auto &chunk, std::uint64_t i) { return chunk.first < i; });
    }
    ChunkIndex::iterator from(std::uint64_t index)
    {
        return std::lower_bound(chunks.begin(), chunks.end(), index,
                                [](const auto &chunk, std::uint64_t i) { return chunk.first < i; });
    }
    std::byte *block(std::uint64_t index) const
    {
        auto it = from(index);
        return it != chunks.end() && it->first == index ? it->second : nullptr;
    }
    // Stores data at offset (only ever on contents private to one writer).
    void put(std::uint64_t offset, std::span<const std::byte> data)
    {
        std::size_t done = 0;
        while (done < data.size()) {
            const std::uint64_t pos = offset + done;
            const std::uint64_t index = pos / ChunkSize;
            const std::size_t within = std::size_t(pos % ChunkSize);
            const std::size_t take = std::min(data.size() - done, ChunkSize - within);
            auto piece = data.subspan(done, take);
            // Appends (the usual order) find their place at the end without a search.
            auto it = chunks.empty() || chunks.back().first < index ? chunks.end() : from(index);
            if (it == chunks.end() || it->first != index) {
                // Zeros into a hole keep it a hole.
                if (!isAllZero(piece.data(), piece.size())) {
                    std::byte *block = pool->takeBlock();
                    std::memset(block, 0, within);
                    std::memcpy(block + within, piece.data(), take);
                    std::memset(block + within + take, 0, ChunkSize - within - take);
                    it = chunks.emplace(it, index, block);
                }
            } else {
                std::memcpy(it->second + within, piece.data(), take);
            }
            done += take;
        }
        size = std::max<std::uint64_t>(size, offset + data.size());
    }
    // Fixes the length: chunks past the end go, the tail of the last one reads as zeros.
    void setLength(std::uint64_t length)
    {
        size = length;
        auto cut = from((length + ChunkSize - 1) / ChunkSize);
        ChunkIndex dropped(cut, chunks.end());
        chunks.erase(cut, chunks.end());
        pool->recycle(dropped);
        if (length % ChunkSize != 0) {
            if (std::byte *last = block(length / ChunkSize))
                std::memset(last + length % ChunkSize, 0, ChunkSize - length % ChunkSize);
        }
    }
};

struct MemoryBackend::Node {
    EntryKind kind = EntryKind::Directory;
    std::int64_t mtimeNs = 0;
    std::uint64_t version = 0;
    std::shared_ptr<const Contents> contents;                           // files
    std::map<std::string, std::unique_ptr<Node>, std::less<>> children; // directories
};

namespace {

std::int64_t nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Copies [offset, offset + out.size()) of contents into out; holes read as zeros.
std::size_t readContents(const MemoryBackend::Contents &c, std::uint64_t offset, std::span<std::byte> out)
{
    if (offset >= c.size)
        return 0;
    const std::size_t n = std::size_t(std::min<std::uint64_t>(out.size(), c.size - offset));
    std::size_t done = 0;
    auto it = c.from(offset / MemoryBackend::ChunkSize);
    while (done < n) {
        const std::uint64_t pos = offset + done;
        const std::uint64_t index = pos / MemoryBackend::ChunkSize;
        const std::size_t within = std::size_t(pos % MemoryBackend::ChunkSize);
        const std::size_t take = std::min(n - done, MemoryBackend::ChunkSize - within);
        while (it != c.chunks.end() && it->first < index)
            ++it;
        if (it == c.chunks.end() || it->first != index)
            std::memset(out.data() + done, 0, take);
        else
            std::memcpy(out.data() + done, it->second + within, take);
        done += take;
    }
    return n;
}

} // namespace

// Builds new contents privately; publishes them on commit. writeAt may run concurrently.
class MemoryWriter final : public Writer {
public:
    MemoryWriter(std::shared_ptr<MemoryBackend> store, std::string path, WriteOptions options)
        : m_store(std::move(store)), m_path(std::move(path)), m_options(std::move(options)),
          m_contents(std::make_shared<MemoryBackend::Contents>(m_store->m_pool))
    {
    }
    ~MemoryWriter() override { abort(); }

    Status write(std::span<const std::byte> data) override
    {
        std::lock_guard lock(m_mutex);
        if (auto st = usable(); !st)
            return st;
        m_contents->put(m_appendAt, data);
        m_appendAt += data.size();
        return {};
    }

    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        std::lock_guard lock(m_mutex);
        if (auto st = usable(); !st)
            return st;
        m_contents->put(offset, data);
        return {};
    }

    Status setLength(std::uint64_t length) override
    {
        std::lock_guard lock(m_mutex);
        if (auto st = usable(); !st)
            return st;
        m_contents->setLength(length);
        return {};
    }

    Status commit() override
    {
        std::shared_ptr<MemoryBackend::Contents> contents;
        {
            std::lock_guard lock(m_mutex);
            if (auto st = usable(); !st)
                return st;
            contents = std::move(m_contents);
            m_finished = true;
        }
        return m_store->publish(m_path, std::move(contents), m_options.overwrite, m_options.mtimeNs);
    }

    void abort() override
    {
        std::lock_guard lock(m_mutex);
        m_contents.reset();
        m_finished = true;
    }

private:
    Status usable() const
    {
        if (m_finished)
            return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
        return {};
    }

    std::shared_ptr<MemoryBackend> m_store;
    std::string m_path;
    WriteOptions m_options;
    std::mutex m_mutex;
    std::shared_ptr<MemoryBackend::Contents> m_contents;
    std::uint64_t m_appendAt = 0;
    bool m_finished = false;
};

MemoryBackend::MemoryBackend(std::string name)
    : m_name(std::move(name)), m_pool(std::make_shared<BlockPool>()), m_root(std::make_unique<Node>())
{
    m_root->mtimeNs = nowNs();
}

MemoryBackend::~MemoryBackend() = default;

Capabilities MemoryBackend::capabilities() const
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
            Capability::RealDirectories,
            Capability::KeepsModifiedTime};
}

Uri MemoryBackend::uriFor(std::string_view path) const
{
    Uri uri;
    uri.setScheme("memory");
    uri.setHost(m_name);
    uri.setPath(std::string(path.empty() ? "/" : path));
    return uri;
}

MemoryBackend::Node *MemoryBackend::find(std::string_view path) const
{
    Node *node = m_root.get();
    std::size_t pos = 1;
    while (pos < path.size()) {
        std::size_t end = path.find('/', pos);
        if (end == std::string_view::npos)
            end = path.size();
        if (node->kind != EntryKind::Directory)
            return nullptr;
        auto it = node->children.find(path.substr(pos, end - pos));
        if (it == node->children.end())
            return nullptr;
        node = it->second.get();
        pos = end + 1;
    }
    return node;
}

Result<MemoryBackend::Node *> MemoryBackend::findParentDir(std::string_view path) const
{
    Node *parent = find(parentPath(path));
    if (!parent)
        return Error(ErrorKind::NotFound, "the parent directory does not exist");
    if (parent->kind != EntryKind::Directory)
        return Error(ErrorKind::NotDirectory, "the parent is not a directory");
    return parent;
}

Entry MemoryBackend::entryFor(const Node &node, std::string_view path) const
{
    Entry e;
    e.name = std::string(baseName(path));
    e.path = std::string(path);
    e.kind = node.kind;
    e.mtimeNs = node.mtimeNs;
    e.mode = node.kind == EntryKind::Directory ? 0755 : 0644;
    if (node.kind == EntryKind::File) {
        e.size = node.contents->size;
        e.allocated = std::uint64_t(node.contents->chunks.size()) * ChunkSize;
        e.etag = "\"" + std::to_string(node.version) + "\"";
    }
    return e;
}

Result<Entry> MemoryBackend::stat(std::string_view path)
{
    std::shared_lock lock(m_mutex);
    const Node *node = find(path);
    if (!node)
        return Error(ErrorKind::NotFound);
    return entryFor(*node, path);
}

Result<ListPage> MemoryBackend::list(std::string_view dir, const ListOptions &options)
{
    std::shared_lock lock(m_mutex);
    const Node *node = find(dir);
    if (!node)
        return Error(ErrorKind::NotFound);
    if (node->kind != EntryKind::Directory)
        return Error(ErrorKind::NotDirectory);
    ListPage page;
    // The token is the last name returned: resuming after it loses and repeats nothing,
    // even while the directory changes.
    auto it = options.pageToken.empty() ? node->children.begin() : node->children.upper_bound(options.pageToken);
    const std::size_t limit = std::max<std::size_t>(1, options.pageSize);
    page.entries.reserve(std::min(limit, node->children.size()));
    for (; it != node->children.end() && page.entries.size() < limit; ++it)
        page.entries.push_back(entryFor(*it->second, joinPath(dir, it->first)));
    if (it != node->children.end())
        page.nextPageToken = page.entries.back().name;
    return page;
}

Result<std::shared_ptr<const MemoryBackend::Contents>> MemoryBackend::contentsOf(std::string_view path) const
{
    std::shared_lock lock(m_mutex);
    const Node *node = find(path);
    if (!node)
        return Error(ErrorKind::NotFound);
    if (node->kind == EntryKind::Directory)
        return Error(ErrorKind::IsDirectory);
    return node->contents;
}

Result<std::size_t> MemoryBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    auto contents = contentsOf(path);
    if (!contents)
        return std::move(contents).error();
    // Contents are immutable: copy out without holding the store lock.
    return readContents(**contents, offset, buffer);
}

Result<std::unique_ptr<Writer>> MemoryBackend::write(std::string_view path, const WriteOptions &options)
{
    {
        std::shared_lock lock(m_mutex);
        auto parent = findParentDir(path);
        if (!parent)
            return std::move(parent).error();
        auto it = (*parent)->children.find(baseName(path));
        if (it != (*parent)->children.end()) {
            if (it->second->kind == EntryKind::Directory)
                return Error(ErrorKind::IsDirectory);
            if (!options.overwrite)
                return Error(ErrorKind::AlreadyExists);
        }
    }
    return std::unique_ptr<Writer>(std::make_unique<MemoryWriter>(shared_from_this(), std::string(path), options));
}

Status MemoryBackend::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    auto contents = std::make_shared<Contents>(m_pool);
    contents->put(0, data);
    return publish(path, std::move(contents), options.overwrite, options.mtimeNs);
}

Status MemoryBackend::publish(std::string_view path, std::shared_ptr<const Contents> contents, bool overwrite,
                              std::optional<std::int64_t> mtimeNs)
{
    std::unique_lock lock(m_mutex);
    auto parent = findParentDir(path);
    if (!parent)
        return std::move(parent).error();
    auto &children = (*parent)->children;
    auto it = children.find(baseName(path));
    if (it != children.end()) {
        if (it->second->kind == EntryKind::Directory)
            return Error(ErrorKind::IsDirectory);
        if (!overwrite)
            return Error(ErrorKind::AlreadyExists);
    } else {
        it = children.emplace(std::string(baseName(path)), std::make_unique<Node>()).first;
    }
    Node &node = *it->second;
    node.kind = EntryKind::File;
    // The replaced contents go back to the pool once no reader holds them; swapping
    // them out leaves that to this function's end, after the lock.
    std::swap(node.contents, contents);
    // A copy keeps its source's time when asked (sync compares times).
    node.mtimeNs = mtimeNs.value_or(nowNs());
    node.version = ++m_version;
    (*parent)->mtimeNs = nowNs();
    lock.unlock();
    return {};
}

Status MemoryBackend::remove(std::string_view path, std::string_view)
{
    std::unique_lock lock(m_mutex);
    Node *parent = find(parentPath(path));
    if (!parent || parent->kind != EntryKind::Directory)
        return {};
    auto it = parent->children.find(baseName(path));
    if (it == parent->children.end())
        return {};
    if (it->second->kind == EntryKind::Directory && !it->second->children.empty())
        return Error(ErrorKind::DirectoryNotEmpty);
    parent->children.erase(it);
    parent->mtimeNs = nowNs();
    return {};
}

Status MemoryBackend::createDir(std::string_view path)
{
    std::unique_lock lock(m_mutex);
    auto parent = findParentDir(path);
    if (!parent)
        return std::move(parent).error();
    auto [it, inserted] = (*parent)->children.try_emplace(std::string(baseName(path)));
    if (!inserted)
        return Error(ErrorKind::AlreadyExists);
    it->second = std::make_unique<Node>();
    it->second->mtimeNs = nowNs();
    (*parent)->mtimeNs = it->second->mtimeNs;
    return {};
}

Status MemoryBackend::rename(std::string_view from, std::string_view to, bool replace)
{
    std::unique_lock lock(m_mutex);
    if (from == to)
        return find(from) ? Status{} : Status(Error(ErrorKind::NotFound));
    if (to.starts_with(from) && to.size() > from.size() && to[from.size()] == '/')
        return Error(ErrorKind::InvalidInput, "a directory cannot be moved into itself");
    Node *fromParent = find(parentPath(from));
    if (!fromParent || fromParent->kind != EntryKind::Directory)
        return Error(ErrorKind::NotFound);
    auto src = fromParent->children.find(baseName(from));
    if (src == fromParent->children.end())
        return Error(ErrorKind::NotFound);
    auto toParent = findParentDir(to);
    if (!toParent)
        return std::move(toParent).error();
    auto dst = (*toParent)->children.find(baseName(to));
    if (dst != (*toParent)->children.end()) {
        if (!replace)
            return Error(ErrorKind::AlreadyExists);
        const bool srcDir = src->second->kind == EntryKind::Directory;
        const bool dstDir = dst->second->kind == EntryKind::Directory;
        if (dstDir && !srcDir)
            return Error(ErrorKind::IsDirectory);
        if (!dstDir && srcDir)
            return Error(ErrorKind::NotDirectory);
        if (dstDir && !dst->second->children.empty())
            return Error(ErrorKind::DirectoryNotEmpty);
    }
    auto node = std::move(src->second);
    fromParent->children.erase(src);
    node->mtimeNs = nowNs();
    (*toParent)->children[std::string(baseName(to))] = std::move(node);
    fromParent->mtimeNs = (*toParent)->mtimeNs = nowNs();
    return {};
}

Status MemoryBackend::copy(std::string_view from, std::string_view to)
{
    auto contents = contentsOf(from);
    if (!contents) {
        if (contents.error().kind() == ErrorKind::IsDirectory)
            contents.error().setCause("server-side copy takes files only");
        return std::move(contents).error();
    }
    // Contents are immutable, so the copy shares them.
    return publish(to, std::move(*contents), true);
}

Result<std::vector<Extent>> MemoryBackend::extents(std::string_view path)
{
    auto found = contentsOf(path);
    if (!found)
        return std::move(found).error();
    const auto contents = std::move(*found);
    std::vector<Extent> out;
    std::uint64_t pos = 0;
    for (const auto &[index, chunk] : contents->chunks) {
        const std::uint64_t start = index * ChunkSize;
        if (start >= contents->size)
            break;
        if (start > pos)
            out.push_back({pos, start - pos, ExtentKind::Hole});
        const std::uint64_t end = std::min<std::uint64_t>(start + ChunkSize, contents->size);
        out.push_back({start, end - start, ExtentKind::Data});
        pos = end;
    }
    if (pos < contents->size)
        out.push_back({pos, contents->size - pos, ExtentKind::Hole});
    return coalesce(std::move(out));
}

} // namespace strata

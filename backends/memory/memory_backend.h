#pragma once

#include "core/storage/backend.h"

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

namespace strata {

// One named in-memory store (memory://NAME/…): a tree of directories and files, safe
// for concurrent use. File contents are immutable chunk maps shared between versions,
// so a copy shares the bytes and a read never waits for a writer. Absent chunks are
// holes: sparse files cost nothing and report their holes as extents. Create it with
// std::make_shared (writers keep their store alive).
class MemoryBackend final : public Backend, public std::enable_shared_from_this<MemoryBackend> {
public:
    static constexpr std::size_t ChunkSize = 64 * 1024;

    explicit MemoryBackend(std::string name);
    ~MemoryBackend() override;

    Capabilities capabilities() const override;
    Uri uriFor(std::string_view path) const override;
    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status copy(std::string_view from, std::string_view to) override;
    Result<std::vector<Extent>> extents(std::string_view path) override;

    struct Contents;
    struct Node;
    class BlockPool;
    using ChunkIndex = std::vector<std::pair<std::uint64_t, std::byte *>>; // (chunk number, block)

private:
    friend class MemoryWriter;
    // Installs contents at path (the writer's commit).
    Status publish(std::string_view path, std::shared_ptr<const Contents> contents, bool overwrite,
                   std::optional<std::int64_t> mtimeNs = std::nullopt);
    Node *find(std::string_view path) const;
    // A file's current contents (shared, immutable), or NotFound / IsDirectory.
    Result<std::shared_ptr<const Contents>> contentsOf(std::string_view path) const;
    Result<Node *> findParentDir(std::string_view path) const;
    Entry entryFor(const Node &node, std::string_view path) const;

    std::string m_name;
    std::shared_ptr<BlockPool> m_pool;
    mutable std::shared_mutex m_mutex;
    std::unique_ptr<Node> m_root;
    std::atomic<std::uint64_t> m_version{0};
};

} // namespace strata

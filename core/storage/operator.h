#pragma once

#include "core/storage/backend.h"
#include "core/storage/logging_layer.h"
#include "core/storage/metrics_layer.h"
#include "core/storage/retry_layer.h"

#include <functional>
#include <memory>
#include <optional>

namespace strata {

struct RemoveAllOptions {
    // A recursive remove of a local file system's root ("file:///", "/usr/..") is refused
    // unless set (rm's --no-preserve-root). Object stores' roots (a bucket) may be emptied.
    bool allowLocalRoot = false;
    bool dryRun = false; // nothing is removed; onRemove still names everything that would go
    // Each path as it goes (or would go), children before their folder.
    std::function<void(std::string_view path, bool isDir)> onRemove;
    // A name a listing left out (ListPage::skipped): `dir` holds it; it is not removed.
    std::function<void(std::string_view dir, std::string_view raw)> onSkipped;
    // A normal path above the one removed (sync --delete: the destination named): below it,
    // and below the removed path in any case, local storage follows no symlink to remove.
    std::string within;
};

struct OperatorOptions {
    std::optional<RetryPolicy> retry = RetryPolicy{}; // nullopt: no retries
    LogSink log;                                      // empty: no request log
};

// What callers use: a backend wrapped in layers (capability check, retry, logging,
// metrics). It normalises every path (a path climbing above the root is refused before
// any I/O) and puts the operation and the redacted URI into every error.
class Operator {
public:
    explicit Operator(std::shared_ptr<Backend> backend, OperatorOptions options = {});

    Capabilities capabilities() const { return m_stack->capabilities(); }
    std::size_t preferredIoSize() const { return m_stack->preferredIoSize(); }
    std::uint64_t preferredBytesInFlight() const { return m_stack->preferredBytesInFlight(); }
    bool oneStreamPerObject(Backend::Flow flow) const { return m_stack->oneStreamPerObject(flow); }
    std::size_t preferredStreams(Backend::Flow flow) const { return m_stack->preferredStreams(flow); }
    void willRead(std::string_view path, std::span<const Extent> ranges) { m_stack->willRead(path, ranges); }
    void discardPending(std::string_view path, const std::string &token) { m_stack->discardPending(path, token); }
    Uri uriFor(std::string_view path) const { return m_stack->uriFor(path); }
    std::optional<std::string> localPath(std::string_view path) const { return m_stack->localPath(path); }
    bool namesIgnoreCase(std::string_view path) const { return m_stack->namesIgnoreCase(path); }
    void hangUp() { m_stack->hangUp(); } // Backend::hangUp()
    // The URI of `path` as people may see it (secrets removed).
    std::string display(std::string_view path) const { return uriFor(path).redacted(); }

    Result<Entry> stat(std::string_view path);
    Result<ListPage> list(std::string_view dir, const ListOptions &options = {});
    // One page of a directory's children. Only entries that name a place strictly below
    // `dir` (a direct child unless recursive) with a valid name come back, whatever the
    // storage sent; anything else is in ListPage::skipped, as the storage named it.
    // Every child of a directory, all pages; for small directories and tests.
    Result<std::vector<Entry>> listAll(std::string_view dir);
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer);
    // Reads kept in flight as the queue asks (Backend::readQueue); the bytes read.
    Result<std::size_t> readQueue(std::string_view path, IoQueue &queue);
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version);
    // Reads a whole object into memory; refuses objects larger than maxSize.
    Result<std::vector<std::byte>> readAll(std::string_view path, std::uint64_t maxSize = 64u << 20);
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options = {});
    // Writes a whole object in one go (open, write, commit).
    Status writeAll(std::string_view path, std::span<const std::byte> data, const WriteOptions &options = {});
    Status remove(std::string_view path);
    // Removes a directory and everything below it (or a single file, or a symlink without
    // following it). Only paths strictly below `path` are removed, each checked as it
    // goes, whatever a listing says; a folder the storage keeps listing after its children
    // were removed stops the removal instead of looping.
    Status removeAll(std::string_view path, const RemoveAllOptions &options = {});
    // Refuses what would remove or replace things in a local file system's root (rm -r,
    // sync --delete, mv: `doing` says which) unless `allowed` (--no-preserve-root).
    // `path` is normal; any other path, or the root of other storage, passes.
    Status guardLocalRoot(std::string_view path, std::string_view doing, std::string_view operation,
                          bool allowed) const;
    Status createDir(std::string_view path, bool parents = false);
    Status markDir(std::string_view path); // see Backend::markDir
    // Fails with AlreadyExists when something is at `to`, unless `replace`.
    Status rename(std::string_view from, std::string_view to, bool replace = false);
    Status copy(std::string_view from, std::string_view to);
    // Sets permission bits where the storage keeps them (local files); Unsupported elsewhere.
    Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow = {});
    // `path` opened for many reads as `expected` describes it (see Backend::openReader);
    // where the storage has no handle of its own, a reader by name (checked against the
    // listed version where the storage can). The reader uses this operator: keep it alive.
    Result<std::unique_ptr<Reader>> openReader(std::string_view path, const Entry &expected);
    Result<std::vector<Extent>> extents(std::string_view path);
    // An object's details and a change to them (Backend::details, changeDetails), and a link
    // to share it (Backend::shareLink).
    Result<ObjectDetails> details(std::string_view path);
    Status changeDetails(std::string_view path, const DetailsChange &change);
    Result<std::string> shareLink(std::string_view path, std::chrono::seconds lifetime);
    // What an object store keeps that listings do not show (Backend::listVersions, listUploads).
    Result<VersionPage> listVersions(std::string_view dir, const ListOptions &options = {});
    Result<UploadPage> listUploads(std::string_view dir, const ListOptions &options = {});
    // In-storage copy of a range into a writer of this operator (see Backend::copyRange).
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to);

    OperationCounters counters(Operation op) const { return m_metrics->counters(op); }
    Backend &backend() const { return *m_stack; }

private:
    Status removeTree(const std::string &dir, const std::string &within, const RemoveAllOptions &options);
    Status listTree(const std::string &dir, const RemoveAllOptions &options);
    Result<std::string> checked(std::string_view op, std::string_view path) const;

    std::shared_ptr<MetricsLayer> m_metrics;
    std::shared_ptr<Backend> m_stack;
};

} // namespace strata

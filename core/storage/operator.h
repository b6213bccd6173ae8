#pragma once

#include "core/storage/async_io.h"
#include "core/storage/backend.h"
#include "core/storage/logging_layer.h"
#include "core/storage/metrics_layer.h"
#include "core/storage/retry_layer.h"

#include <memory>
#include <optional>

namespace strata {

struct OperatorOptions {
    std::optional<RetryPolicy> retry = RetryPolicy{}; // nullopt: no retries
    LogSink log;                                       // empty: no request log
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
    void willRead(std::string_view path, std::span<const Extent> ranges) { m_stack->willRead(path, ranges); }
    void discardPending(std::string_view path, const std::string &token) { m_stack->discardPending(path, token); }
    Uri uriFor(std::string_view path) const { return m_stack->uriFor(path); }
    std::optional<std::string> localPath(std::string_view path) const { return m_stack->localPath(path); }
    // The URI of `path` as people may see it (secrets removed).
    std::string display(std::string_view path) const { return uriFor(path).redacted(); }

    Result<Entry> stat(std::string_view path);
    Result<ListPage> list(std::string_view dir, const ListOptions &options = {});
    // Every child of a directory, all pages; for small directories and tests.
    Result<std::vector<Entry>> listAll(std::string_view dir);
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer);
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version);
    // Reads a whole object into memory; refuses objects larger than maxSize.
    Result<std::vector<std::byte>> readAll(std::string_view path, std::uint64_t maxSize = 64u << 20);
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options = {});
    // Writes a whole object in one go (open, write, commit).
    Status writeAll(std::string_view path, std::span<const std::byte> data, const WriteOptions &options = {});
    Status remove(std::string_view path);
    // Removes a directory and everything below it (or a single file).
    Status removeAll(std::string_view path);
    Status createDir(std::string_view path, bool parents = false);
    Status rename(std::string_view from, std::string_view to);
    Status copy(std::string_view from, std::string_view to);
    Result<std::vector<Extent>> extents(std::string_view path);
    // In-storage copy of a range into a writer of this operator (see Backend::copyRange).
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to);
    std::unique_ptr<AsyncIo> openAsync(const AsyncOptions &options = {});

    OperationCounters counters(Operation op) const { return m_metrics->counters(op); }
    Backend &backend() const { return *m_stack; }

private:
    Result<std::string> checked(std::string_view op, std::string_view path) const;

    std::shared_ptr<MetricsLayer> m_metrics;
    std::shared_ptr<Backend> m_stack;
};

} // namespace strata

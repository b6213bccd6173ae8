#pragma once

#include "core/storage/layer.h"

#include <array>
#include <atomic>
#include <cstdint>

namespace strata {

enum class Operation : std::uint8_t { Stat, List, Read, Write, Remove, CreateDir, Rename, Copy, Extents, Count_ };

std::string_view toString(Operation op);

struct OperationCounters {
    std::uint64_t calls = 0;
    std::uint64_t errors = 0;
    std::uint64_t bytes = 0;   // read into buffers or handed to writers
    std::uint64_t nanos = 0;   // time spent in calls
};

// Counts calls, errors, bytes and time per operation; cheap (relaxed atomics).
class MetricsLayer final : public Layer {
public:
    using Layer::Layer;

    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status copy(std::string_view from, std::string_view to) override;
    Result<std::vector<Extent>> extents(std::string_view path) override;
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to) override;

    OperationCounters counters(Operation op) const;
    void addBytes(Operation op, std::uint64_t bytes);

    struct Slot {
        std::atomic<std::uint64_t> calls{0}, errors{0}, bytes{0}, nanos{0};
    };
    using Slots = std::array<Slot, std::size_t(Operation::Count_)>;

private:
    template <typename F>
    auto counted(Operation op, F &&call) -> decltype(call());

    // Shared with writers, which may outlive the layer.
    std::shared_ptr<Slots> m_slots = std::make_shared<Slots>();
};

} // namespace strata

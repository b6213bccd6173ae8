#include "core/storage/metrics_layer.h"

#include <chrono>

namespace strata {

std::string_view toString(Operation op)
{
    switch (op) {
    case Operation::Stat: return "stat";
    case Operation::List: return "list";
    case Operation::Read: return "read";
    case Operation::Write: return "write";
    case Operation::Remove: return "remove";
    case Operation::CreateDir: return "create-dir";
    case Operation::Rename: return "rename";
    case Operation::Copy: return "copy";
    case Operation::Extents: return "extents";
    case Operation::Count_: break;
    }
    return "unknown";
}

namespace {

// Counts the bytes handed to a writer into the layer's Write slot.
class CountingWriter final : public Writer {
public:
    void suspend() override { m_inner->suspend(); }
    bool keepsPartialState() const override { return m_inner->keepsPartialState(); }
    int nativeHandle() const override { return m_inner->nativeHandle(); }
    std::optional<std::uint64_t> committedSize() const override { return m_inner->committedSize(); }
    CountingWriter(std::unique_ptr<Writer> inner, std::shared_ptr<MetricsLayer::Slots> slots)
        : m_inner(std::move(inner)), m_slots(std::move(slots))
    {
    }
    Status write(std::span<const std::byte> data) override
    {
        count(data.size());
        return m_inner->write(data);
    }
    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        count(data.size());
        return m_inner->writeAt(offset, data);
    }
    Status setLength(std::uint64_t length) override { return m_inner->setLength(length); }
    Status commit() override { return m_inner->commit(); }
    void abort() override { m_inner->abort(); }

private:
    void count(std::size_t n)
    {
        (*m_slots)[std::size_t(Operation::Write)].bytes.fetch_add(n, std::memory_order_relaxed);
    }

    std::unique_ptr<Writer> m_inner;
    std::shared_ptr<MetricsLayer::Slots> m_slots;
};

} // namespace

template <typename F>
auto MetricsLayer::counted(Operation op, F &&call) -> decltype(call())
{
    const auto start = std::chrono::steady_clock::now();
    auto result = call();
    auto &slot = (*m_slots)[std::size_t(op)];
    slot.calls.fetch_add(1, std::memory_order_relaxed);
    if (!result.ok())
        slot.errors.fetch_add(1, std::memory_order_relaxed);
    slot.nanos.fetch_add(std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - start)
                                           .count()),
                         std::memory_order_relaxed);
    return result;
}

void MetricsLayer::addBytes(Operation op, std::uint64_t bytes)
{
    (*m_slots)[std::size_t(op)].bytes.fetch_add(bytes, std::memory_order_relaxed);
}

OperationCounters MetricsLayer::counters(Operation op) const
{
    const auto &slot = (*m_slots)[std::size_t(op)];
    return {slot.calls.load(std::memory_order_relaxed), slot.errors.load(std::memory_order_relaxed),
            slot.bytes.load(std::memory_order_relaxed), slot.nanos.load(std::memory_order_relaxed)};
}

Result<Entry> MetricsLayer::stat(std::string_view path)
{
    return counted(Operation::Stat, [&] { return Layer::stat(path); });
}

Result<ListPage> MetricsLayer::list(std::string_view dir, const ListOptions &options)
{
    return counted(Operation::List, [&] { return Layer::list(dir, options); });
}

Result<std::size_t> MetricsLayer::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    auto n = counted(Operation::Read, [&] { return Layer::read(path, offset, buffer); });
    if (n)
        addBytes(Operation::Read, *n);
    return n;
}

Result<std::size_t> MetricsLayer::readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                              const ObjectVersion &version)
{
    auto n = counted(Operation::Read, [&] { return Layer::readVersion(path, offset, buffer, version); });
    if (n)
        addBytes(Operation::Read, *n);
    return n;
}

Result<std::unique_ptr<Writer>> MetricsLayer::write(std::string_view path, const WriteOptions &options)
{
    auto writer = counted(Operation::Write, [&] { return Layer::write(path, options); });
    if (!writer)
        return writer;
    return std::unique_ptr<Writer>(std::make_unique<CountingWriter>(std::move(*writer), m_slots));
}

Status MetricsLayer::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    auto st = counted(Operation::Write, [&] { return Layer::put(path, data, options); });
    if (st)
        addBytes(Operation::Write, data.size());
    return st;
}

Status MetricsLayer::remove(std::string_view path, std::string_view within)
{
    return counted(Operation::Remove, [&] { return Layer::remove(path, within); });
}

Status MetricsLayer::createDir(std::string_view path)
{
    return counted(Operation::CreateDir, [&] { return Layer::createDir(path); });
}

Status MetricsLayer::rename(std::string_view from, std::string_view to, bool replace)
{
    return counted(Operation::Rename, [&] { return Layer::rename(from, to, replace); });
}

Status MetricsLayer::copy(std::string_view from, std::string_view to)
{
    return counted(Operation::Copy, [&] { return Layer::copy(from, to); });
}

Status MetricsLayer::copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to)
{
    auto st = counted(Operation::Copy, [&] { return Layer::copyRange(from, offset, length, to); });
    if (st)
        addBytes(Operation::Copy, length);
    return st;
}

Result<std::vector<Extent>> MetricsLayer::extents(std::string_view path)
{
    return counted(Operation::Extents, [&] { return Layer::extents(path); });
}

} // namespace strata

#include "core/storage/metrics_layer.h"

#include <chrono>

namespace strata {

namespace {

// The bytes an operation moved, once it succeeded.
std::uint64_t bytesMoved(const Call &call, const Outcome &outcome)
{
    switch (call.op) {
    case Operation::Read:
    case Operation::ReadVersion:
    case Operation::ReaderRead:
    case Operation::ReadQueue:
    case Operation::WriterWriteQueue: return outcome.bytes;
    case Operation::Put:
    case Operation::WriterWrite:
    case Operation::WriterWriteAt:
    case Operation::CopyRange:
    case Operation::ReaderCopyRange: return call.size;
    case Operation::Stat:
    case Operation::List:
    case Operation::OpenWriter:
    case Operation::Remove:
    case Operation::RemoveMany:
    case Operation::CreateDir:
    case Operation::Rename:
    case Operation::SetPermissions:
    case Operation::OpenReader:
    case Operation::ReaderStat:
    case Operation::Copy:
    case Operation::Extents:
    case Operation::ListVersions:
    case Operation::ListUploads:
    case Operation::Details:
    case Operation::ChangeDetails:
    case Operation::WillRead:
    case Operation::DiscardPending:
    case Operation::WriterSetLength:
    case Operation::WriterZero:
    case Operation::WriterCommit:
    case Operation::WriterAbort:
    case Operation::WriterSuspend:
    case Operation::Count_: break;
    }
    return 0;
}

} // namespace

Outcome MetricsLayer::around(const Call &call, Next next)
{
    const auto start = std::chrono::steady_clock::now();
    Outcome outcome = next();
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    Slot &slot = m_slots[std::size_t(call.op)];
    slot.calls.fetch_add(1, std::memory_order_relaxed);
    if (!outcome.status.ok())
        slot.errors.fetch_add(1, std::memory_order_relaxed);
    else if (const std::uint64_t bytes = bytesMoved(call, outcome))
        slot.bytes.fetch_add(bytes, std::memory_order_relaxed);
    slot.nanos.fetch_add(std::uint64_t(nanos.count()), std::memory_order_relaxed);
    return outcome;
}

OperationCounters MetricsLayer::counters(Operation op) const
{
    const Slot &slot = m_slots[std::size_t(op)];
    return {slot.calls.load(std::memory_order_relaxed), slot.errors.load(std::memory_order_relaxed),
            slot.bytes.load(std::memory_order_relaxed), slot.nanos.load(std::memory_order_relaxed)};
}

} // namespace strata

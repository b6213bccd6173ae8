#pragma once

#include "core/storage/layer.h"

#include <array>
#include <atomic>
#include <cstdint>

namespace strata {

struct OperationCounters {
    std::uint64_t calls = 0;
    std::uint64_t errors = 0;
    std::uint64_t bytes = 0; // read into buffers, handed to writers, or copied in place
    std::uint64_t nanos = 0; // time spent in calls
};

// Counts calls, errors, bytes and time per operation; cheap (relaxed atomics).
class MetricsLayer final : public Layer {
public:
    using Layer::Layer;

    OperationCounters counters(Operation op) const;

protected:
    Outcome around(const Call &call, Next next) override;

private:
    struct Slot {
        std::atomic<std::uint64_t> calls{0}, errors{0}, bytes{0}, nanos{0};
    };
    std::array<Slot, kOperationCount> m_slots;
};

} // namespace strata

#pragma once

// The clock of per-request latency: read once per operation, so its cost is part of every
// measurement. Where the CPU's time-stamp counter is invariant (x86 constant_tsc and
// nonstop_tsc: one rate on every core, through sleep states) it is read directly, as fio's
// clocksource=cpu does: ~10 ns here against ~25 ns for clock_gettime. Elsewhere it is
// steady_clock. Ticks become nanoseconds by a factor calibrated once against steady_clock.
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace strata {

class TickClock {
public:
    // The process's clock, calibrated on first use (~20 ms when it is the TSC).
    static const TickClock &instance();

    std::uint64_t now() const
    {
#if defined(__x86_64__)
        if (m_tsc)
            return __rdtsc();
#endif
        return steadyNs();
    }
    double nsPerTick() const
    {
        return m_nsPerTick;
    }
    // Fixed point (32 fraction bits): a multiply and a shift, no conversion to double.
    std::uint64_t toNs(std::uint64_t ticks) const
    {
        __extension__ using Wide = unsigned __int128; // GCC and Clang; 64 × 64 -> 128 bits
        return std::uint64_t((Wide(ticks) * m_nsPerTick32) >> 32);
    }
    std::uint64_t fromNs(std::uint64_t ns) const
    {
        return std::uint64_t(double(ns) / m_nsPerTick);
    }
    bool usesTsc() const
    {
        return m_tsc;
    }

private:
    TickClock();
    static std::uint64_t steadyNs();
    bool m_tsc = false;
    double m_nsPerTick = 1;
    std::uint64_t m_nsPerTick32 = std::uint64_t(1) << 32;
};

} // namespace strata

#include "core/io/tick_clock.h"

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace strata {

namespace {

// Whether /proc/cpuinfo lists both flags that make the TSC a clock.
bool invariantTsc()
{
#if defined(__x86_64__)
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.starts_with("flags"))
            return line.find(" constant_tsc") != std::string::npos && line.find(" nonstop_tsc") != std::string::npos;
#endif
    return false;
}

} // namespace

std::uint64_t TickClock::steadyNs()
{
    return std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

TickClock::TickClock() : m_tsc(invariantTsc())
{
    if (!m_tsc)
        return;
    // 20 ms against steady_clock: the factor is good to a few parts per million.
    const std::uint64_t ns0 = steadyNs(), t0 = now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t ns1 = steadyNs(), t1 = now();
    if (t1 <= t0 || ns1 <= ns0) {
        m_tsc = false;
        return;
    }
    m_nsPerTick = double(ns1 - ns0) / double(t1 - t0);
    m_nsPerTick32 = std::uint64_t(m_nsPerTick * 4294967296.0);
}

const TickClock &TickClock::instance()
{
    static const TickClock clock;
    return clock;
}

} // namespace strata

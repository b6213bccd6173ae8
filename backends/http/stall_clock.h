#pragma once

#include <chrono>
#include <cstdint>

namespace strata::http {

// How long a libcurl request has moved nothing: no byte of a body either way, no header
// line, no FTP reply. libcurl's LOW_SPEED_TIME judges a speed averaged over the last five
// seconds, so a transfer that stops dead after moving fast fails up to five seconds past
// its time; this clock fails it at its time, as soon as it is looked at (libcurl's progress
// callback, about once a second when nothing moves; each turn of the FTP loop).
class StallClock {
public:
    using Clock = std::chrono::steady_clock;
    StallClock() : StallClock(std::chrono::milliseconds(0)) {} // no limit: never expires
    explicit StallClock(std::chrono::milliseconds limit) : m_limit(limit), m_last(Clock::now()) {}

    // Something moved, or the wait so far was ours (a request starts, a paused transfer
    // goes on, a body's producer or consumer kept it waiting).
    void moved() { m_last = Clock::now(); }
    // The body bytes moved so far, both ways: more than last time is movement.
    void count(std::uint64_t total)
    {
        if (total != m_total) {
            m_total = total;
            moved();
        }
    }
    // Whether nothing moved for the limit; once true, it stays true.
    bool expired()
    {
        m_expired = m_expired || (m_limit.count() > 0 && Clock::now() - m_last >= m_limit);
        return m_expired;
    }
    bool hasExpired() const { return m_expired; }
    std::chrono::milliseconds limit() const { return m_limit; }

private:
    std::chrono::milliseconds m_limit;
    Clock::time_point m_last;
    std::uint64_t m_total = 0;
    bool m_expired = false;
};

} // namespace strata::http

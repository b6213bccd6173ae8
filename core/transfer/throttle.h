#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <stop_token>

namespace strata {

// A token bucket shared by every worker of a job: consume(n) waits until n bytes fit
// under the rate. A rate of 0 never waits.
class Throttle {
public:
    explicit Throttle(std::uint64_t bytesPerSecond);
    // Returns false if stopped while waiting.
    bool consume(std::uint64_t bytes, const std::stop_token &stop);
    std::uint64_t rate() const { return m_rate; }

private:
    std::uint64_t m_rate;
    std::mutex m_mutex;
    double m_tokens = 0;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

} // namespace strata

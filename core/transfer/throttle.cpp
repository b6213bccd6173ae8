#include "core/transfer/throttle.h"

#include <algorithm>
#include <thread>

namespace strata {

Throttle::Throttle(std::uint64_t bytesPerSecond) : m_rate(bytesPerSecond), m_tokens(double(bytesPerSecond) / 10) {}

bool Throttle::consume(std::uint64_t bytes, const std::stop_token &stop)
{
    if (m_rate == 0)
        return true;
    std::chrono::duration<double> wait{0};
    {
        std::lock_guard lock(m_mutex);
        const auto now = std::chrono::steady_clock::now();
        // At most a tenth of a second of burst.
        m_tokens = std::min(double(m_rate) / 10,
                            m_tokens + std::chrono::duration<double>(now - m_last).count() * double(m_rate));
        m_last = now;
        m_tokens -= double(bytes);
        if (m_tokens < 0)
            wait = std::chrono::duration<double>(-m_tokens / double(m_rate));
    }
    // Sleep in slices so a stop request is seen promptly.
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(wait);
    while (std::chrono::steady_clock::now() < until) {
        if (stop.stop_requested())
            return false;
        std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(until - std::chrono::steady_clock::now(),
                                                                       std::chrono::milliseconds(50)));
    }
    return !stop.stop_requested();
}

} // namespace strata

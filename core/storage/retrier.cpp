#include "core/storage/retrier.h"

#include "core/storage/random.h"
#include "core/storage/retry_note.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace strata {

Retrier::Retrier(RetryPolicy policy)
    // Seeded from getrandom(): a std::random_device costs a start-up tens of microseconds
    // (it probes the CPU and opens a device) for four bytes.
    : m_policy(std::move(policy)), m_rng(std::uint_fast32_t(randomU64()))
{
    if (!m_policy.now)
        m_policy.now = [] { return std::chrono::steady_clock::now(); };
    if (!m_policy.sleep)
        m_policy.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
}

std::chrono::milliseconds Retrier::backoff(int attempt)
{
    double full = double(m_policy.initialDelay.count()) * std::pow(m_policy.multiplier, std::max(0, attempt - 1));
    full = std::min(full, double(m_policy.maxDelay.count()));
    std::lock_guard lock(m_rngMutex);
    std::uniform_real_distribution<double> dist(full / 2, full);
    return std::chrono::milliseconds(std::llround(dist(m_rng)));
}

bool Retrier::again(Error &error, int attempt, std::chrono::steady_clock::time_point start)
{
    if (attempt >= m_policy.maxAttempts) {
        error.setCause(error.cause() + "; gave up after " + std::to_string(attempt) + " attempts");
        return false;
    }
    const auto wait = backoff(attempt);
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(m_policy.now() - start);
    if (spent + wait > m_policy.budget) {
        error.setCause(error.cause() + "; gave up after " + std::to_string(attempt) + " attempts, retry time budget of "
                       + std::to_string(m_policy.budget.count()) + " ms spent");
        return false;
    }
    noteRetry(error);
    m_policy.sleep(wait);
    return true;
}

std::string retryNoteText(const Error &error)
{
    std::string text;
    if (!error.operation().empty())
        text = "cannot " + error.operation() + (error.uri().empty() ? "" : " " + error.uri()) + ": ";
    text += error.cause().empty() ? std::string(describe(error.kind())) : error.cause();
    return text;
}

} // namespace strata

#pragma once

// The one retry loop of the storage stack. RetryLayer runs every operation that may run
// twice through it; a backend runs through it the requests it makes on its own inside one
// operation, which no layer sees (the parts of an S3 upload, a clean-up DELETE), so that
// those follow the same policy instead of a loop of their own.
#include "core/storage/error.h"

#include <chrono>
#include <functional>
#include <mutex>
#include <random>
#include <string>

namespace strata {

struct RetryPolicy {
    int maxAttempts = 5;
    std::chrono::milliseconds initialDelay{100};
    std::chrono::milliseconds maxDelay{5000};
    std::chrono::milliseconds budget{30000}; // total time, attempts and waits included
    double multiplier = 2.0;

    // Injected for tests; default to the steady clock and a real sleep.
    std::function<std::chrono::steady_clock::time_point()> now;
    std::function<void(std::chrono::milliseconds)> sleep;
};

// Runs an attempt again while its error is temporary, with exponential backoff and jitter,
// within maxAttempts and the time budget (the error then says it gave up); a permanent
// error or a success returns at once. Thread-safe.
class Retrier {
public:
    explicit Retrier(RetryPolicy policy = {});

    // `attempt` returns anything with ok() and error() (a Result, a Status, an Outcome).
    template <typename F>
    auto run(F &&attempt) -> decltype(attempt());

    // The wait before attempt `attempt` (1 = first retry): exponential, capped, jittered
    // uniformly in [half, full] so synchronized clients spread out.
    std::chrono::milliseconds backoff(int attempt);

private:
    // Whether to wait and try again after `error` on attempt `attempt` (started at
    // `start`); when not, the error's cause says why it gave up.
    bool again(Error &error, int attempt, std::chrono::steady_clock::time_point start);

    RetryPolicy m_policy;
    std::mutex m_rngMutex;
    std::minstd_rand m_rng;
};

template <typename F>
auto Retrier::run(F &&attempt) -> decltype(attempt())
{
    const auto start = m_policy.now();
    for (int n = 1;; ++n) {
        auto result = attempt();
        if (result.ok() || !result.error().temporary() || !again(result.error(), n, start))
            return result;
    }
}

} // namespace strata

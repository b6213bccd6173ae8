#pragma once

#include "core/storage/layer.h"

#include <chrono>
#include <functional>
#include <mutex>
#include <random>

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

// Retries an operation whose error is temporary, with exponential backoff and jitter,
// within maxAttempts and the time budget; permanent errors return at once. The one retry
// policy of the storage stack: backends do not retry. Operations that can run twice to
// the same effect are retried (reads, listings, whole puts, removals, in-place copies);
// bytes sent into a writer are not (they cannot be replayed here: the transfer engine
// retries the file), and neither is rename (a lost reply would make the retry fail on a
// done move).
class RetryLayer final : public Layer {
public:
    RetryLayer(std::shared_ptr<Backend> inner, RetryPolicy policy);

    // The wait before attempt `attempt` (1 = first retry): exponential, capped, jittered
    // uniformly in [half, full] so synchronized clients spread out.
    std::chrono::milliseconds backoff(int attempt);

protected:
    Outcome around(const Call &call, Next next) override;

private:
    RetryPolicy m_policy;
    std::mutex m_rngMutex;
    std::minstd_rand m_rng;
};

} // namespace strata

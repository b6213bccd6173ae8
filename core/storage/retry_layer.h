#pragma once

#include "core/storage/layer.h"
#include "core/storage/retrier.h"

#include <chrono>

namespace strata {

// Retries an operation whose error is temporary, with exponential backoff and jitter,
// within maxAttempts and the time budget (Retrier); permanent errors return at once.
// Backends have no retry loop of their own (what they send inside one operation goes
// through a Retrier with the same policy). Operations that can run twice to
// the same effect are retried (reads, listings, whole puts, removals, in-place copies);
// bytes sent into a writer are not (they cannot be replayed here: the transfer engine
// retries the file), and neither is rename (a lost reply would make the retry fail on a
// done move).
class RetryLayer final : public Layer {
public:
    RetryLayer(std::shared_ptr<Backend> inner, RetryPolicy policy);

    std::chrono::milliseconds backoff(int attempt) { return m_retrier.backoff(attempt); }

protected:
    Outcome around(const Call &call, Next next) override;

private:
    Retrier m_retrier;
};

} // namespace strata

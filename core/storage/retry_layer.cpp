#include "core/storage/retry_layer.h"
#include "core/storage/random.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace strata {

RetryLayer::RetryLayer(std::shared_ptr<Backend> inner, RetryPolicy policy)
    // Seeded from getrandom(): a std::random_device costs a start-up tens of microseconds
    // (it probes the CPU and opens a device) for four bytes.
    : Layer(std::move(inner)), m_policy(std::move(policy)), m_rng(std::uint_fast32_t(randomU64()))
{
    if (!m_policy.now)
        m_policy.now = [] { return std::chrono::steady_clock::now(); };
    if (!m_policy.sleep)
        m_policy.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
}

std::chrono::milliseconds RetryLayer::backoff(int attempt)
{
    double full = double(m_policy.initialDelay.count()) * std::pow(m_policy.multiplier, std::max(0, attempt - 1));
    full = std::min(full, double(m_policy.maxDelay.count()));
    std::lock_guard lock(m_rngMutex);
    std::uniform_real_distribution<double> dist(full / 2, full);
    return std::chrono::milliseconds(std::llround(dist(m_rng)));
}

namespace {

// Whether running the operation again after a failure does what running it once would.
bool retriable(Operation op)
{
    switch (op) {
    case Operation::Stat:
    case Operation::List:
    case Operation::Read:
    case Operation::ReadVersion:
    case Operation::OpenWriter:
    case Operation::Put:            // the bytes are all in memory: sent again
    case Operation::Remove:         // removing a missing path succeeds
    case Operation::RemoveMany:
    case Operation::CreateDir:      // an AlreadyExists after a retry counts as done (below)
    case Operation::SetPermissions:
    case Operation::OpenReader:
    case Operation::Copy:
    case Operation::Extents:
    case Operation::CopyRange:      // rewriting the same range is harmless
    case Operation::ReaderRead:
    case Operation::ReaderCopyRange:
        return true;
    case Operation::Rename:
    case Operation::WillRead:
    case Operation::DiscardPending:
    case Operation::WriterWrite:
    case Operation::WriterWriteAt:
    case Operation::WriterSetLength:
    case Operation::WriterCommit:
    case Operation::WriterAbort:
    case Operation::WriterSuspend:
    case Operation::Count_:
        break;
    }
    return false;
}

} // namespace

Outcome RetryLayer::around(const Call &call, Next next)
{
    if (!retriable(call.op))
        return next();
    const auto start = m_policy.now();
    for (int attempt = 1;; ++attempt) {
        Outcome outcome = next();
        if (!outcome.status.ok() && attempt > 1 && call.op == Operation::CreateDir
            && outcome.status.error().kind() == ErrorKind::AlreadyExists)
            return {}; // an earlier attempt succeeded without us hearing back
        if (outcome.status.ok() || !outcome.status.error().temporary())
            return outcome;
        Error &error = outcome.status.error();
        if (attempt >= m_policy.maxAttempts) {
            error.setCause(error.cause() + "; gave up after " + std::to_string(attempt) + " attempts");
            return outcome;
        }
        const auto wait = backoff(attempt);
        const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(m_policy.now() - start);
        if (spent + wait > m_policy.budget) {
            error.setCause(error.cause() + "; gave up after " + std::to_string(attempt)
                           + " attempts, retry time budget of " + std::to_string(m_policy.budget.count()) + " ms spent");
            return outcome;
        }
        m_policy.sleep(wait);
    }
}

} // namespace strata

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

template <typename F>
auto RetryLayer::retry(F &&op) -> decltype(op())
{
    const auto start = m_policy.now();
    for (int attempt = 1;; ++attempt) {
        auto result = op();
        if (result.ok() || !result.error().temporary())
            return result;
        if (attempt >= m_policy.maxAttempts) {
            result.error().setCause(result.error().cause() + "; gave up after " + std::to_string(attempt)
                                    + " attempts");
            return result;
        }
        const auto wait = backoff(attempt);
        const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(m_policy.now() - start);
        if (spent + wait > m_policy.budget) {
            result.error().setCause(result.error().cause() + "; gave up after " + std::to_string(attempt)
                                    + " attempts, retry time budget of "
                                    + std::to_string(m_policy.budget.count()) + " ms spent");
            return result;
        }
        m_policy.sleep(wait);
    }
}

Result<Entry> RetryLayer::stat(std::string_view path)
{
    return retry([&] { return Layer::stat(path); });
}

Result<ListPage> RetryLayer::list(std::string_view dir, const ListOptions &options)
{
    return retry([&] { return Layer::list(dir, options); });
}

Result<std::size_t> RetryLayer::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    return retry([&] { return Layer::read(path, offset, buffer); });
}

Result<std::size_t> RetryLayer::readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                            const ObjectVersion &version)
{
    return retry([&] { return Layer::readVersion(path, offset, buffer, version); });
}

Result<std::unique_ptr<Writer>> RetryLayer::write(std::string_view path, const WriteOptions &options)
{
    return retry([&] { return Layer::write(path, options); });
}

// The bytes are all in memory, so a failed put is simply sent again.
Status RetryLayer::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    return retry([&] { return Layer::put(path, data, options); });
}

Status RetryLayer::remove(std::string_view path, std::string_view within)
{
    return retry([&] { return Layer::remove(path, within); });
}

Status RetryLayer::createDir(std::string_view path)
{
    bool retried = false;
    return retry([&]() -> Status {
        auto st = Layer::createDir(path);
        // An earlier attempt may have succeeded without us hearing back.
        if (!st.ok() && retried && st.error().kind() == ErrorKind::AlreadyExists)
            return {};
        retried = true;
        return st;
    });
}

Status RetryLayer::copy(std::string_view from, std::string_view to)
{
    return retry([&] { return Layer::copy(from, to); });
}

Status RetryLayer::copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to)
{
    // Rewriting the same range is harmless, so a failed attempt can simply run again.
    return retry([&] { return Layer::copyRange(from, offset, length, to); });
}

Result<std::vector<Extent>> RetryLayer::extents(std::string_view path)
{
    return retry([&] { return Layer::extents(path); });
}

} // namespace strata

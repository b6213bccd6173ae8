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
// within maxAttempts and the time budget; permanent errors return at once. Writes are
// retried only when opening the writer (bytes already sent cannot be replayed here);
// rename is not retried (a lost reply would make the retry fail on a done move).
class RetryLayer final : public Layer {
public:
    RetryLayer(std::shared_ptr<Backend> inner, RetryPolicy policy);

    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status copy(std::string_view from, std::string_view to) override;
    Result<std::vector<Extent>> extents(std::string_view path) override;
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to) override;

    // The wait before attempt `attempt` (1 = first retry): exponential, capped, jittered
    // uniformly in [half, full] so synchronized clients spread out.
    std::chrono::milliseconds backoff(int attempt);

private:
    template <typename F>
    auto retry(F &&op) -> decltype(op());

    RetryPolicy m_policy;
    std::mutex m_rngMutex;
    std::minstd_rand m_rng;
};

} // namespace strata

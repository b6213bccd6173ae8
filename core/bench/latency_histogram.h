#pragma once

// Per-request latencies of a benchmark, as HdrHistogram keeps them: log-linear buckets
// (each power of two cut into 128 equal steps, so a reported value is within 0.4 % of
// every duration in its bucket), fixed memory, nothing allocated or locked per record.
// One histogram per worker; they are merged when the run ends.
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace strata {

class alignas(64) LatencyHistogram { // a line of its own: one per worker, side by side
public:
    static constexpr int kSubBits = 8; // values below 256 ns are exact; then 128 steps per octave
    static constexpr std::size_t kBuckets =
        (64 - kSubBits + 1) * (std::size_t(1) << (kSubBits - 1)) + (std::size_t(1) << (kSubBits - 1));

    LatencyHistogram();

    void record(std::uint64_t ns)
    {
        ++m_counts[indexOf(ns)];
        ++m_total;
        if (ns < m_min)
            m_min = ns;
        if (ns > m_max)
            m_max = ns;
    }
    void merge(const LatencyHistogram &other);
    void clear();

    std::uint64_t count() const { return m_total; }
    std::uint64_t min() const { return m_total ? m_min : 0; }
    std::uint64_t max() const { return m_max; }
    // The duration below which `percent` % of the records fall (nearest rank, as
    // HdrHistogram and fio report it): 50, 90, 99, 99.9. 0 when empty; 100 is max().
    std::uint64_t percentile(double percent) const;

    // The buckets that hold records: the lowest duration each covers, its width, its count.
    struct Bucket {
        std::uint64_t from;
        std::uint64_t width;
        std::uint64_t count;
    };
    std::vector<Bucket> buckets() const;

    // Inline: it runs once per operation.
    static std::size_t indexOf(std::uint64_t ns)
    {
        constexpr std::uint64_t exact = std::uint64_t(1) << kSubBits; // 256: one bucket per ns
        constexpr std::uint64_t steps = exact / 2;                    // 128 buckets per octave
        if (ns < exact)
            return std::size_t(ns);
        const int shift = std::bit_width(ns) - kSubBits; // >= 1
        const std::uint64_t mantissa = ns >> shift;      // in [128, 256)
        return std::size_t(exact + std::uint64_t(shift - 1) * steps + (mantissa - steps));
    }
    static Bucket bucketAt(std::size_t index); // count 0
    // The histogram whose buckets() were `buckets`, with its min() and max(): another
    // process's, sent as buckets (a benchmark agent's), merges exactly as its own would.
    static LatencyHistogram fromBuckets(const std::vector<Bucket> &buckets, std::uint64_t min, std::uint64_t max);

private:
    std::vector<std::uint64_t> m_counts; // kBuckets, allocated once
    std::uint64_t m_total = 0;
    std::uint64_t m_min = UINT64_MAX;
    std::uint64_t m_max = 0;
};

// The summary a benchmark run reports (Go benchmark units p50-ns … max-ns).
struct LatencySummary {
    std::uint64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
    std::uint64_t min = 0; // not a Go metric: what a histogram rebuilt from buckets needs
};
LatencySummary summarize(const LatencyHistogram &h);

} // namespace strata

#include "core/bench/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace strata {

namespace {

constexpr std::uint64_t kExact = std::uint64_t(1) << LatencyHistogram::kSubBits; // 256: one bucket per ns
constexpr std::uint64_t kSteps = kExact / 2;                                     // 128 buckets per octave

} // namespace

LatencyHistogram::LatencyHistogram() : m_counts(kBuckets, 0) {}

LatencyHistogram::Bucket LatencyHistogram::bucketAt(std::size_t index)
{
    if (index < kExact)
        return {std::uint64_t(index), 1, 0};
    const std::uint64_t k = index - kExact;
    const int shift = int(k / kSteps) + 1;
    const std::uint64_t mantissa = k % kSteps + kSteps;
    return {mantissa << shift, std::uint64_t(1) << shift, 0};
}

void LatencyHistogram::merge(const LatencyHistogram &other)
{
    for (std::size_t i = 0; i < kBuckets; ++i)
        m_counts[i] += other.m_counts[i];
    m_total += other.m_total;
    m_min = std::min(m_min, other.m_min);
    m_max = std::max(m_max, other.m_max);
}

LatencyHistogram LatencyHistogram::fromBuckets(const std::vector<Bucket> &buckets, std::uint64_t min, std::uint64_t max)
{
    LatencyHistogram h;
    for (const Bucket &b : buckets) {
        h.m_counts[indexOf(b.from)] += b.count;
        h.m_total += b.count;
    }
    if (h.m_total > 0) {
        h.m_min = min;
        h.m_max = max;
    }
    return h;
}

void LatencyHistogram::clear()
{
    std::fill(m_counts.begin(), m_counts.end(), 0);
    m_total = 0;
    m_min = UINT64_MAX;
    m_max = 0;
}

std::uint64_t LatencyHistogram::percentile(double percent) const
{
    if (m_total == 0)
        return 0;
    if (percent >= 100)
        return m_max;
    // Nearest rank: the smallest record with at least `percent` % of the records at or
    // below it.
    const auto rank = std::max<std::uint64_t>(1, std::uint64_t(std::ceil(percent / 100.0 * double(m_total))));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
        seen += m_counts[i];
        if (seen >= rank) {
            const Bucket b = bucketAt(i);
            return std::clamp(b.from + b.width / 2, min(), m_max); // the middle: within 0.4 %
        }
    }
    return m_max;
}

std::vector<LatencyHistogram::Bucket> LatencyHistogram::buckets() const
{
    std::vector<Bucket> out;
    for (std::size_t i = 0; i < kBuckets; ++i)
        if (m_counts[i]) {
            Bucket b = bucketAt(i);
            b.count = m_counts[i];
            out.push_back(b);
        }
    return out;
}

LatencySummary summarize(const LatencyHistogram &h)
{
    return {h.percentile(50), h.percentile(90), h.percentile(99), h.percentile(99.9), h.max(), h.min()};
}

} // namespace strata

// The benchmark's latency histogram: every duration falls in a bucket within 0.8 % of its
// width (so the middle reported is within 0.4 %), percentiles by nearest rank on known
// distributions, merging, and the fixed size (the largest duration has a bucket).
#include "tests/unit/unit_checks.h"

#include "core/bench/latency_histogram.h"
#include "core/io/tick_clock.h"

#include <chrono>
#include <thread>

#include <QTest>

#include <random>

namespace strata {

class TestLatencyHistogram : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void theTickClockKeepsTime()
    {
        // Ticks (the TSC where it is invariant) turned into nanoseconds agree with
        // steady_clock over a sleep, within 1 %; and the clock never runs backwards here.
        const TickClock &clock = TickClock::instance();
        QVERIFY(clock.nsPerTick() > 0);
        for (int i = 0; i < 3; ++i) {
            const auto s0 = std::chrono::steady_clock::now();
            const std::uint64_t t0 = clock.now();
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            const std::uint64_t t1 = clock.now();
            const auto s1 = std::chrono::steady_clock::now();
            QVERIFY(t1 > t0);
            const double steady = double(std::chrono::duration_cast<std::chrono::nanoseconds>(s1 - s0).count());
            const double ticks = double(clock.toNs(t1 - t0));
            QVERIFY2(std::abs(ticks - steady) / steady < 0.01,
                     qPrintable(QStringLiteral("ticks say %1 ns, steady_clock %2 ns").arg(ticks).arg(steady)));
        }
        const auto second = double(clock.toNs(clock.fromNs(1'000'000'000)));
        QVERIFY2(std::abs(second - 1e9) < 1000, qPrintable(QString::number(second)));
    }

    void everyDurationHasANarrowBucket()
    {
        std::mt19937_64 gen(7);
        std::vector<std::uint64_t> values = {0, 1, 255, 256, 257, 511, 512, 1000, 999'999, UINT64_MAX};
        for (int i = 0; i < 100000; ++i)
            values.push_back(gen() >> (gen() % 64));
        std::size_t lastIndex = 0;
        std::uint64_t lastValue = 0;
        std::sort(values.begin(), values.end());
        for (const std::uint64_t v : values) {
            const std::size_t i = LatencyHistogram::indexOf(v);
            QVERIFY(i < LatencyHistogram::kBuckets);
            QVERIFY2(v == lastValue || i >= lastIndex, std::to_string(v).c_str()); // in order
            const auto b = LatencyHistogram::bucketAt(i);
            QVERIFY2(b.from <= v && v - b.from < b.width, std::to_string(v).c_str());
            if (v < 256)
                QCOMPARE(b.width, std::uint64_t(1)); // exact
            else
                QVERIFY2(double(b.width) / double(b.from) <= 1.0 / 128, std::to_string(v).c_str());
            lastIndex = i;
            lastValue = v;
        }
        QCOMPARE(LatencyHistogram::indexOf(UINT64_MAX), LatencyHistogram::kBuckets - 1);
    }

    void percentilesByNearestRank()
    {
        LatencyHistogram h;
        QCOMPARE(h.percentile(50), std::uint64_t(0)); // empty
        for (std::uint64_t v = 1; v <= 100000; ++v)
            h.record(v * 1000); // 1 µs .. 100 ms, evenly
        QCOMPARE(h.count(), std::uint64_t(100000));
        QCOMPARE(h.min(), std::uint64_t(1000));
        QCOMPARE(h.max(), std::uint64_t(100'000'000)); // exact
        const std::pair<double, double> expected[] = {{50, 50e6}, {90, 90e6}, {99, 99e6}, {99.9, 99.9e6}};
        for (const auto &[p, want] : expected) {
            const double got = double(h.percentile(p));
            QVERIFY2(std::abs(got - want) / want <= 0.004, (std::to_string(p) + ": " + std::to_string(got)).c_str());
        }
        QCOMPARE(h.percentile(100), h.max());
        const auto s = summarize(h);
        QVERIFY(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 && s.p999 <= s.max);
    }

    void aTailIsNotAveragedAway()
    {
        // 98 fast requests and 2 slow ones: p50 and p90 are fast, p99 and max slow.
        LatencyHistogram h;
        for (int i = 0; i < 98; ++i)
            h.record(2'000'000);
        h.record(20'000'000);
        h.record(21'000'000);
        QVERIFY(std::abs(double(h.percentile(50)) - 2e6) <= 2e6 * 0.004);
        QVERIFY(std::abs(double(h.percentile(90)) - 2e6) <= 2e6 * 0.004);
        QVERIFY(std::abs(double(h.percentile(99)) - 20e6) <= 20e6 * 0.004);
        QCOMPARE(h.max(), std::uint64_t(21'000'000));
    }

    void mergedEqualsRecordedTogether()
    {
        LatencyHistogram a, b, all;
        std::mt19937_64 gen(1);
        for (int i = 0; i < 20000; ++i) {
            const std::uint64_t v = 100 + gen() % 10'000'000;
            (i % 3 ? a : b).record(v);
            all.record(v);
        }
        a.merge(b);
        QCOMPARE(a.count(), all.count());
        QCOMPARE(a.min(), all.min());
        QCOMPARE(a.max(), all.max());
        for (double p : {1.0, 50.0, 90.0, 99.0, 99.9})
            QCOMPARE(a.percentile(p), all.percentile(p));
        std::uint64_t inBuckets = 0;
        for (const auto &bucket : a.buckets())
            inBuckets += bucket.count;
        QCOMPARE(inBuckets, all.count());
        a.clear();
        QCOMPARE(a.count(), std::uint64_t(0));
        QVERIFY(a.buckets().empty());
    }
};

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestLatencyHistogram)
#include "test_latency_histogram.moc"

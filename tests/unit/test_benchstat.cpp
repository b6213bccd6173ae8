// benchstat's statistics: hand-checked medians, order-statistic confidence intervals,
// Mann-Whitney p-values (exact, with ties, normal approximation) and geomeans; whole
// tables compared byte for byte with golang.org/x/perf's own benchstat golden files.
// (The Go benchmark text parser and writer: test_go_bench.cpp.)
#include "tests/unit/unit_checks.h"

#include "tests/unit/bench_samples.h"

#include "core/bench/benchstat.h"
#include "core/bench/go_bench.h"

#include <QTest>

#include <cmath>
#include <limits>

namespace strata {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// benchstat's `-col note`: one input per value of the "note" configuration key.
std::vector<BenchstatInput> splitByNote(const std::vector<BenchResult> &results)
{
    std::vector<BenchstatInput> inputs;
    for (auto r : results) {
        const std::string note = *r.configValue("note");
        std::erase_if(r.config, [](const auto &kv) { return kv.first == "note"; });
        auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto &in) { return in.label == note; });
        if (it == inputs.end()) {
            inputs.push_back({note, {}});
            it = inputs.end() - 1;
        }
        it->results.push_back(std::move(r));
    }
    return inputs;
}

std::vector<double> separated(int n, double from)
{
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(from + i);
    return v;
}

// golang.org/x/perf/cmd/benchstat/testdata/old.txt and new.txt (the example in benchstat's
// documentation), new.txt with its leading prose.
constexpr std::string_view kOld = R"(goos: linux
goarch: amd64
pkg: golang.org/x/perf/cmd/benchstat/testdata
BenchmarkEncode/format=json-48         	  690848	      1726 ns/op
BenchmarkEncode/format=json-48         	  684861	      1723 ns/op
BenchmarkEncode/format=json-48         	  693285	      1707 ns/op
BenchmarkEncode/format=json-48         	  677692	      1707 ns/op
BenchmarkEncode/format=json-48         	  692130	      1713 ns/op
BenchmarkEncode/format=json-48         	  684164	      1729 ns/op
BenchmarkEncode/format=json-48         	  682500	      1736 ns/op
BenchmarkEncode/format=json-48         	  677509	      1707 ns/op
BenchmarkEncode/format=json-48         	  687295	      1705 ns/op
BenchmarkEncode/format=json-48         	  695533	      1774 ns/op
BenchmarkEncode/format=gob-48          	  372699	      3069 ns/op
BenchmarkEncode/format=gob-48          	  394740	      3075 ns/op
BenchmarkEncode/format=gob-48          	  391335	      3069 ns/op
BenchmarkEncode/format=gob-48          	  383588	      3067 ns/op
BenchmarkEncode/format=gob-48          	  385885	      3207 ns/op
BenchmarkEncode/format=gob-48          	  389970	      3064 ns/op
BenchmarkEncode/format=gob-48          	  393361	      3064 ns/op
BenchmarkEncode/format=gob-48          	  393882	      3058 ns/op
BenchmarkEncode/format=gob-48          	  396171	      3059 ns/op
BenchmarkEncode/format=gob-48          	  397812	      3062 ns/op
PASS
)";

constexpr std::string_view kNew = R"(new.txt is with Go 1.17. old.txt format=json is with Go 1.16 and
format=gob is with 1.17 (since this is just example data, I wanted to
capture both a significant change and a non-significant change).

goos: linux
goarch: amd64
pkg: golang.org/x/perf/cmd/benchstat/testdata
BenchmarkEncode/format=json-48         	  714387	      1423 ns/op
BenchmarkEncode/format=json-48         	  845445	      1416 ns/op
BenchmarkEncode/format=json-48         	  815714	      1411 ns/op
BenchmarkEncode/format=json-48         	  828824	      1413 ns/op
BenchmarkEncode/format=json-48         	  834070	      1412 ns/op
BenchmarkEncode/format=json-48         	  828123	      1426 ns/op
BenchmarkEncode/format=json-48         	  834493	      1422 ns/op
BenchmarkEncode/format=json-48         	  838406	      1424 ns/op
BenchmarkEncode/format=json-48         	  836227	      1447 ns/op
BenchmarkEncode/format=json-48         	  830835	      1425 ns/op
BenchmarkEncode/format=gob-48          	  394441	      3075 ns/op
BenchmarkEncode/format=gob-48          	  393207	      3065 ns/op
BenchmarkEncode/format=gob-48          	  392374	      3059 ns/op
BenchmarkEncode/format=gob-48          	  396037	      3065 ns/op
BenchmarkEncode/format=gob-48          	  393255	      3060 ns/op
BenchmarkEncode/format=gob-48          	  382629	      3081 ns/op
BenchmarkEncode/format=gob-48          	  389558	      3186 ns/op
BenchmarkEncode/format=gob-48          	  392668	      3135 ns/op
BenchmarkEncode/format=gob-48          	  392313	      3087 ns/op
BenchmarkEncode/format=gob-48          	  394274	      3062 ns/op
PASS
)";

} // namespace

class TestBenchstat : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void medianOfOddAndEvenSamples();
    void geomeanOfKnownValues();
    void confidenceIntervalOfTheMedian();
    void confidenceIntervalTooSmallIsInfinite();
    void mannWhitneySeparatedSamples();
    void mannWhitneyIdenticalAndEqualSamples();
    void mannWhitneyWithTies();
    void mannWhitneyNormalApproximation();
    void threeRunsAreNeverSignificant();
    void deltaAndNotes();
    void unitsAreTidiedAndScaled();
    void matchesBenchstatDocumentationExample();
    void matchesBenchstatCsv();
    void matchesBenchstatGoldenFiles_data();
    void matchesBenchstatGoldenFiles();
    void smallComparisonTextAndJson();
    void geomeanOverDifferingSets();
    void multipleInputsCompareToTheFirst();
    void tablesPerPackageAndUnit();
};

void TestBenchstat::medianOfOddAndEvenSamples()
{
    QCOMPARE(median({5, 1, 3}), 3.0);
    QCOMPARE(median({4, 1, 3, 2}), 2.5);
    QCOMPARE(median({7}), 7.0);
    QCOMPARE(median({10, 30}), 20.0);
    // Unsorted input with duplicates.
    QCOMPARE(median({9, 1, 9, 2, 9}), 9.0);
    const std::vector<double> sorted{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    QCOMPARE(quantile(sorted, 0.5), 5.5);
    QCOMPARE(quantile(sorted, 0), 1.0);
    QCOMPARE(quantile(sorted, 1), 10.0);
    QVERIFY(std::isnan(median({})));
}

void TestBenchstat::geomeanOfKnownValues()
{
    QCOMPARE(geomean(std::vector<double>{2, 8}), 4.0);
    QVERIFY(std::abs(geomean(std::vector<double>{1, 10, 100}) - 10) < 1e-12);
    // Ratios 0.5 and 2 cancel out.
    QVERIFY(std::abs(geomean(std::vector<double>{0.5, 2}) - 1) < 1e-15);
    QVERIFY(std::isnan(geomean(std::vector<double>{1, 0})));
    QVERIFY(std::isnan(geomean(std::vector<double>{})));
}

void TestBenchstat::confidenceIntervalOfTheMedian()
{
    // n = 6: Binomial(6, ½) has weights 1 6 15 20 15 6 1 (/64). From the mode (k = 3) the
    // likelier side is added first, the left on a tie: 20, +15 left, +15 right, +6 left
    // (56/64 = 0.875 < 0.95), +6 right = 62/64 = 0.96875. The interval is order
    // statistics 1..6, the whole sample.
    auto ci = quantileCI(6, 0.5, 0.95);
    QCOMPARE(ci.loOrder, 1);
    QCOMPARE(ci.hiOrder, 6);
    QCOMPARE(ci.confidence, 62.0 / 64);

    // n = 10: weights 1 10 45 120 210 252 210 120 45 10 1 (/1024): 252, +210 +210 +120
    // +120 +45 (957/1024 = 0.9346) +45 = 1002/1024 = 0.978515625: order statistics 2..9.
    ci = quantileCI(10, 0.5, 0.95);
    QCOMPARE(ci.loOrder, 2);
    QCOMPARE(ci.hiOrder, 9);
    QCOMPARE(ci.confidence, 1002.0 / 1024);

    // On a sample: the median with the 2nd and 9th smallest values.
    auto s = summarizeSample({1713, 1723, 1707, 1707, 1705, 1774, 1736, 1707, 1729, 1726}, 0.95);
    QCOMPARE(s.center, 1718.0);
    QCOMPARE(s.lo, 1707.0);
    QCOMPARE(s.hi, 1736.0);
    QCOMPARE(s.pctRange(), std::string("1%")); // max(1736/1718−1, 1−1707/1718) = 1.05 %
    QVERIFY(s.warnings.empty());

    s = summarizeSample({10, 11, 12, 13, 14, 15}, 0.95);
    QCOMPARE(s.center, 12.5);
    QCOMPARE(s.lo, 10.0);
    QCOMPARE(s.hi, 15.0);
    QCOMPARE(s.pctRange(), std::string("20%"));

    // Above 30 the normal approximation: N(50, 5) puts 95 % in [40.2, 59.8], rounded out
    // to order statistics 40..61, then left-biased to 40..60 because that still holds
    // 95.3 % (go-moremath's rule; its Go code gives the same orders).
    ci = quantileCI(100, 0.5, 0.95);
    QCOMPARE(ci.loOrder, 40);
    QCOMPARE(ci.hiOrder, 60);
    QVERIFY(ci.ambiguous);
    QVERIFY(std::abs(ci.confidence - 0.9534190196211817) < 1e-12);
}

void TestBenchstat::confidenceIntervalTooSmallIsInfinite()
{
    // n = 5: 10 +10 right +5 +5 +1 (30/32 = 0.9375) and then the left tail 1/32 is needed,
    // which is order statistic 0: −∞. benchmath then shows "∞" and asks for 6 samples.
    auto ci = quantileCI(5, 0.5, 0.95);
    QCOMPARE(ci.loOrder, 0);
    QCOMPARE(ci.hiOrder, 5);
    auto s = summarizeSample({5, 1, 4, 2, 3}, 0.95);
    QCOMPARE(s.center, 3.0);
    QCOMPARE(s.lo, -kInf);
    QCOMPARE(s.hi, 5.0);
    QCOMPARE(s.pctRange(), std::string("\u221e"));
    QCOMPARE(s.warnings, std::vector<std::string>{"need >= 6 samples for confidence interval at level 0.95"});

    for (int n = 1; n < 6; ++n) {
        const auto c = quantileCI(n, 0.5, 0.95);
        QVERIFY2(c.loOrder == 0 || c.hiOrder == n + 1, qPrintable(QString::number(n)));
    }
    // At 90 % five runs are enough.
    ci = quantileCI(5, 0.5, 0.90);
    QVERIFY(ci.loOrder >= 1 && ci.hiOrder <= 5);
    QCOMPARE(summarizeSample({1, 2, 3}, 0.5).warnings.size(), std::size_t(0));
}

void TestBenchstat::mannWhitneySeparatedSamples()
{
    // 6 vs 6 with every new value above every old one: only 1 of C(12, 6) = 924 rank
    // arrangements is that extreme on each side, so p = 2/924.
    auto r = mannWhitneyUTest(separated(6, 1), separated(6, 100));
    REQUIRE_OK(r);
    QCOMPARE(r->u, 0.0);
    QVERIFY(std::abs(r->p - 2.0 / 924) < 1e-15);
    const auto c = compareSamples(separated(6, 1), separated(6, 100), 0.05);
    QCOMPARE(c.text(), std::string("p=0.002 n=6"));
    QVERIFY(c.significant());
    QVERIFY(c.warnings.empty());

    // Direction does not matter (two-sided), nor unequal sizes' order.
    r = mannWhitneyUTest(separated(6, 100), separated(6, 1));
    QVERIFY(std::abs(r->p - 2.0 / 924) < 1e-15);
    r = mannWhitneyUTest(separated(5, 1), separated(8, 50));
    QVERIFY(std::abs(r->p - 2.0 / 1287) < 1e-15); // C(13, 5) = 1287
    QCOMPARE(compareSamples(separated(5, 1), separated(8, 50), 0.05).text(), std::string("p=0.002 n=5+8"));

    // One overlap: U = 1, P(U ≤ 1) = 2/924 (U = 0 and U = 1 each happen once).
    std::vector<double> a{1, 2, 3, 4, 5, 7}, b{6, 8, 9, 10, 11, 12};
    r = mannWhitneyUTest(a, b);
    QCOMPARE(r->u, 1.0);
    QVERIFY(std::abs(r->p - 4.0 / 924) < 1e-15);
}

void TestBenchstat::mannWhitneyIdenticalAndEqualSamples()
{
    // Identical samples: U1 = U2 = 18, the centre of the distribution: p = 1.
    auto r = mannWhitneyUTest(separated(6, 1), separated(6, 1));
    REQUIRE_OK(r);
    QCOMPARE(r->p, 1.0);
    QCOMPARE(r->u, 18.0);
    auto c = compareSamples(separated(6, 1), separated(6, 1), 0.05);
    QCOMPARE(c.p, 1.0);
    QCOMPARE(c.delta(3.5, 3.5), std::string("~"));

    // Every value equal: the test is meaningless; benchstat reports p = 1 with the reason.
    const std::vector<double> same(6, 100.0);
    REQUIRE_KIND(mannWhitneyUTest(same, same), ErrorKind::InvalidInput);
    QCOMPARE(mannWhitneyUTest(same, same).error().cause(), std::string("all samples are equal"));
    c = compareSamples(same, same, 0.05);
    QCOMPARE(c.p, 1.0);
    QCOMPARE(c.warnings, std::vector<std::string>{"all samples are equal"});
    QCOMPARE(c.text(), std::string("p=1.000 n=6"));
}

void TestBenchstat::mannWhitneyWithTies()
{
    // {1, 2} vs {2, 3}: rank groups [1] [2 2] [3] with mid-ranks 1, 2.5, 4; R1 = 3.5 and
    // U1 = 0.5. Of the C(4, 2) = 6 ways to pick sample 1, two give U ≤ 0.5 ({1, either 2}),
    // so p = 2 · 2/6.
    auto r = mannWhitneyUTest(std::vector<double>{1, 2}, std::vector<double>{2, 3});
    REQUIRE_OK(r);
    QCOMPARE(r->u, 0.5);
    QVERIFY(std::abs(r->p - 2.0 / 3) < 1e-15);

    // allocs/op 5 in every old run and 4 in every new one: two tie groups, exact: 2/924.
    const std::vector<double> five(6, 5.0), four(6, 4.0);
    r = mannWhitneyUTest(five, four);
    QVERIFY(std::abs(r->p - 2.0 / 924) < 1e-15);
    QCOMPARE(compareSamples(five, four, 0.05).delta(5, 4), std::string("-20.00%"));

    // golang.org/x/perf issue 19634: five runs each, all new ones equal: 2/C(10, 5).
    const std::vector<double> before{115, 114, 115, 115, 115}, after(5, 78.8);
    r = mannWhitneyUTest(before, after);
    QVERIFY(std::abs(r->p - 2.0 / 252) < 1e-15);
    QCOMPARE(compareSamples(before, after, 0.05).text(), std::string("p=0.008 n=5"));

    // Heavier ties: {1 1 2 2 3} vs {2 2 3 3 3}: groups of 2, 4 and 4 values with
    // mid-ranks 1.5, 4.5 and 8.5, R1 = 3 + 9 + 8.5 = 20.5, U1 = 5.5. The p-value is the
    // share of the C(10, 5) = 252 arrangements with U ≤ 5.5, each choice of r1 + r2 + r3 = 5
    // values from the groups counting C(2,r1)·C(4,r2)·C(4,r3) times, doubled.
    const std::vector<double> x{1, 1, 2, 2, 3}, y{2, 2, 3, 3, 3};
    r = mannWhitneyUTest(x, y);
    REQUIRE_OK(r);
    QCOMPARE(r->u, 5.5);
    double count = 0;
    auto choose = [](int n, int k) {
        return k < 0 || k > n ? 0.0 : std::tgamma(n + 1) / std::tgamma(k + 1) / std::tgamma(n - k + 1);
    };
    for (int r1 = 0; r1 <= 2; ++r1) {
        for (int r2 = 0; r2 <= 4; ++r2) {
            const int r3 = 5 - r1 - r2;
            if (r3 < 0 || r3 > 4)
                continue;
            // Mid-ranks 1.5, 4.5, 8.5; U1 = R1 − 15.
            const double u = 1.5 * r1 + 4.5 * r2 + 8.5 * r3 - 15;
            if (u <= 5.5)
                count += choose(2, r1) * choose(4, r2) * choose(4, r3);
        }
    }
    QVERIFY(std::abs(r->p - 2 * count / 252) < 1e-12);
}

void TestBenchstat::mannWhitneyNormalApproximation()
{
    // 60 vs 60 separated: far beyond the exact limit; z ≈ −9.5, p is astronomically small.
    auto r = mannWhitneyUTest(separated(60, 0), separated(60, 1000));
    REQUIRE_OK(r);
    QVERIFY(r->p < 1e-15);
    QCOMPARE(compareSamples(separated(60, 0), separated(60, 1000), 0.05).text(), std::string("p=0.000 n=60"));

    // Ties beyond 25 values per sample use the approximation with the tie correction:
    // {1×15, 2×15} vs {2×15, 3×15}: mid-ranks 8, 30.5 and 53, R1 = 577.5, U1 = 112.5,
    // μ = 450, Σ(t³−t) = 3360 + 26970 + 3360, σ² = 900·(61 − 33690/(60·59))/12,
    // z = (112.5 − 450 + 0.5)/σ and p = 2Φ(z) = erfc(−z/√2).
    std::vector<double> a(15, 1.0), b(15, 3.0);
    a.insert(a.end(), 15, 2.0);
    b.insert(b.end(), 15, 2.0);
    r = mannWhitneyUTest(a, b);
    REQUIRE_OK(r);
    QCOMPARE(r->u, 112.5);
    const double sigma = std::sqrt(900.0 * (61 - 33690.0 / (60 * 59)) / 12);
    const double z = (112.5 - 450 + 0.5) / sigma;
    const double expected = std::erfc(-z / std::sqrt(2.0));
    QVERIFY2(std::abs(r->p - expected) < 1e-12, qPrintable(QString::number(r->p, 'g', 17)));
}

void TestBenchstat::threeRunsAreNeverSignificant()
{
    // 3 vs 3: the most extreme arrangement is 1 of C(6, 3) = 20 per side, so p ≥ 0.1 and
    // nothing is significant at 0.05 — benchstat says how many runs would be needed.
    auto r = mannWhitneyUTest(separated(3, 1), separated(3, 100));
    QVERIFY(std::abs(r->p - 0.1) < 1e-15);
    const auto c = compareSamples(separated(3, 1), separated(3, 100), 0.05);
    QVERIFY(!c.significant());
    QCOMPARE(c.delta(2, 101), std::string("~"));
    QCOMPARE(c.text(), std::string("p=0.100 n=3"));
    QCOMPARE(c.warnings, std::vector<std::string>{"need >= 4 samples to detect a difference at alpha level 0.05"});
    // Even at alpha 0.1 it is not: the recurrence gives 0.10000000000000002, a hair above
    // (benchstat's Go code computes the same value; benchmath's own table says 0.1).
    QVERIFY(r->p == 0.10000000000000002);
    QVERIFY(!compareSamples(separated(3, 1), separated(3, 100), 0.1).significant());
    QVERIFY(compareSamples(separated(3, 1), separated(3, 100), 0.11).significant());
    // 4 vs 4 can reach 2/70 = 0.029.
    QVERIFY(compareSamples(separated(4, 1), separated(4, 100), 0.05).significant());
}

void TestBenchstat::deltaAndNotes()
{
    BenchComparison c;
    c.p = 0.01;
    c.alpha = 0.05;
    c.n1 = 10;
    c.n2 = 10;
    QCOMPARE(c.delta(200, 150), std::string("-25.00%"));
    QCOMPARE(c.delta(100, 125), std::string("+25.00%"));
    QCOMPARE(c.delta(100, 100), std::string("0.00%"));
    QCOMPARE(c.delta(0, 5), std::string("?"));
    QCOMPARE(c.text(), std::string("p=0.010 n=10"));
    c.p = 0.05; // p = alpha still counts
    QCOMPARE(c.delta(100, 125), std::string("+25.00%"));
    c.p = 0.0500001;
    QCOMPARE(c.delta(100, 125), std::string("~"));
    c.n2 = 6;
    QCOMPARE(c.text(), std::string("p=0.050 n=10+6"));
    // Exact units: no test, no p.
    const auto exact = compareSamples({100}, {105}, 0.05, true);
    QCOMPARE(exact.text(), std::string("n=1"));
    QCOMPARE(exact.delta(100, 105), std::string("+5.00%"));
}

void TestBenchstat::unitsAreTidiedAndScaled()
{
    QCOMPARE(tidyUnit("ns/op"), (std::pair<std::string, double>{"sec/op", 1e-9}));
    QCOMPARE(tidyUnit("MB/s"), (std::pair<std::string, double>{"B/s", 1e6}));
    QCOMPARE(tidyUnit("B/op").first, std::string("B/op"));
    QCOMPARE(tidyUnit("allocs/op").first, std::string("allocs/op"));
    QCOMPARE(tidyUnit("L1-miss-ns/op").first, std::string("L1-miss-sec/op"));
    QCOMPARE(tidyUnit("ops/ns").first, std::string("ops/ns")); // denominators stay
    QCOMPARE(tidyUnit("sec/op").first, std::string("sec/op"));
    QVERIFY(isBinaryUnit("B/s"));
    QVERIFY(isBinaryUnit("B/op"));
    QVERIFY(isBinaryUnit("text-bytes"));
    QVERIFY(!isBinaryUnit("sec/op"));
    QVERIFY(!isBinaryUnit("ops/B"));
    QCOMPARE(scaleValue(1.718e-6, false), std::string("1.718\u00b5"));
    QCOMPARE(scaleValue(0.0016, false), std::string("1.600m"));
    QCOMPARE(scaleValue(70e-3, false), std::string("70.00m"));
    QCOMPARE(scaleValue(4096, true), std::string("4.000Ki"));
    QCOMPARE(scaleValue(3321.3e6, true), std::string("3.093Gi"));
    QCOMPARE(scaleValue(0, false), std::string("0.000"));
    QCOMPARE(scaleValue(12, false), std::string("12.00"));
}

void TestBenchstat::matchesBenchstatDocumentationExample()
{
    // `benchstat old.txt new.txt` as printed in benchstat's documentation (checked by its
    // doc_test.go).
    const auto report = benchstat({{"old.txt", parse(kOld)}, {"new.txt", parse(kNew)}});
    QCOMPARE(formatBenchstatText(report),
             std::string("goos: linux\n"
                         "goarch: amd64\n"
                         "pkg: golang.org/x/perf/cmd/benchstat/testdata\n"
                         "                      │   old.txt   │               new.txt               │\n"
                         "                      │   sec/op    │   sec/op     vs base                │\n"
                         "Encode/format=json-48   1.718µ ± 1%   1.423µ ± 1%  -17.20% (p=0.000 n=10)\n"
                         "Encode/format=gob-48    3.066µ ± 0%   3.070µ ± 2%        ~ (p=0.446 n=10)\n"
                         "geomean                 2.295µ        2.090µ        -8.94%\n"));
    QVERIFY(benchstatWarnings(report).empty());

    // The same labelled O and N.
    const std::string text = formatBenchstatText(benchstat({{"O", parse(kOld)}, {"N", parse(kNew)}}));
    QVERIFY(text.find("                      │      O      │                  N                  │\n")
            != std::string::npos);
}

void TestBenchstat::matchesBenchstatCsv()
{
    // testdata/csvOldNew.stdout: `benchstat -format csv old.txt new.txt`.
    std::vector<std::string> warnings;
    const auto report = benchstat({{"old.txt", parse(kOld)}, {"new.txt", parse(kNew)}});
    QCOMPARE(
        formatBenchstatCsv(report, &warnings),
        std::string("goos: linux\n"
                    "goarch: amd64\n"
                    "pkg: golang.org/x/perf/cmd/benchstat/testdata\n"
                    ",old.txt,,new.txt\n"
                    ",sec/op,CI,sec/op,CI,vs base,P\n"
                    "Encode/format=json-48,1.7180000000000001e-06,1%,1.4225000000000001e-06,1%,-17.20%,p=0.000 n=10\n"
                    "Encode/format=gob-48,3.0655e-06,0%,3.0700000000000003e-06,2%,~,p=0.446 n=10\n"
                    "geomean,2.294891936453654e-06,,2.089754770302007e-06,,-8.94%\n"));
    QVERIFY(warnings.empty());

    // Warnings name spreadsheet cells, as benchstat's do.
    const auto small = benchstat({{"a", parse("BenchmarkX 1 1 ns/op\n")}, {"b", parse("BenchmarkX 1 2 ns/op\n")}});
    formatBenchstatCsv(small, &warnings);
    QCOMPARE(warnings,
             (std::vector<std::string>{"B3: need >= 6 samples for confidence interval at level 0.95",
                                       "D3: need >= 6 samples for confidence interval at level 0.95",
                                       "F3: need >= 4 samples to detect a difference at alpha level 0.05"}));
}

void TestBenchstat::matchesBenchstatGoldenFiles_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");

    // testdata/units.txt and units.stdout (`benchstat -col note units.txt`): exact units.
    QTest::newRow("units") << QByteArray(
        "Unit text-bytes assume=exact\n\nnote: before\n\nBenchmarkSize 1 100 text-bytes\n\n"
        "BenchmarkNonExact 1 100 text-bytes\nBenchmarkNonExact 1 101 text-bytes\n"
        "BenchmarkNonExact 1 101 text-bytes\n\nnote: after\n\nBenchmarkSize 1 105 text-bytes\n\n"
        "BenchmarkNonExact 1 101 text-bytes\nBenchmarkNonExact 1 101 text-bytes\n"
        "BenchmarkNonExact 1 101 text-bytes\n")
                           << QByteArray("         │    before    │          after           │\n"
                                         "         │  text-bytes  │ text-bytes  vs base      │\n"
                                         "Size       100.0 ± 0%     105.0 ± 0%  +5.00% (n=1)\n"
                                         "NonExact   101.0 ± 1% ¹   101.0 ± 0%   0.00% (n=3)\n"
                                         "geomean    100.5          103.0       +2.47%\n"
                                         "¹ exact distribution expected, but values range from 100 to 101\n");

    // testdata/zero.txt and zero.stdout: near-zero changes, 0/0 and x/0.
    QTest::newRow("zero") << QByteArray(
        "Unit a-bytes assume=exact\nUnit b-bytes assume=exact\nUnit c-bytes assume=exact\n"
        "Unit x assume=exact\nUnit y assume=exact\n\nnote: before\n\n"
        "# We double each benchmark so benchstat shows a geomean row.\n\n"
        "BenchmarkImperceptible 1 1234567890 a-bytes 171717171716 b-bytes 99999930 c-bytes\n"
        "BenchmarkImperceptible2 1 1234567890 a-bytes 171717171716 b-bytes 99999930 c-bytes\n"
        "# Ratio should be treated as 1.\nBenchmarkZeroOverZero 1 0 x\nBenchmarkZeroOverZero2 1 0 x\n"
        "# Ratio should be treated as uncomputable.\nBenchmarkNonZeroOverZero 1 0 y\n"
        "BenchmarkNonZeroOverZero2 1 0 y\n\nnote: after\n\n"
        "BenchmarkImperceptible 1 1234567890 a-bytes 171717171717 b-bytes 99999929 c-bytes\n"
        "BenchmarkImperceptible2 1 1234567890 a-bytes 171717171717 b-bytes 99999929 c-bytes\n"
        "BenchmarkZeroOverZero 1 0 x\nBenchmarkZeroOverZero2 1 0 x\n"
        "BenchmarkNonZeroOverZero 1 100 y\nBenchmarkNonZeroOverZero2 1 100 y\n")
                          << QByteArray("               │    before    │           after            │\n"
                                        "               │   a-bytes    │   a-bytes     vs base      │\n"
                                        "Imperceptible    1.150Gi ± 0%   1.150Gi ± 0%   0.00% (n=1)\n"
                                        "Imperceptible2   1.150Gi ± 0%   1.150Gi ± 0%   0.00% (n=1)\n"
                                        "geomean          1.150Gi        1.150Gi       +0.00%\n"
                                        "\n"
                                        "               │    before    │           after            │\n"
                                        "               │   b-bytes    │   b-bytes     vs base      │\n"
                                        "Imperceptible    159.9Gi ± 0%   159.9Gi ± 0%  +0.00% (n=1)\n"
                                        "Imperceptible2   159.9Gi ± 0%   159.9Gi ± 0%  +0.00% (n=1)\n"
                                        "geomean          159.9Gi        159.9Gi       +0.00%\n"
                                        "\n"
                                        "               │    before    │           after            │\n"
                                        "               │   c-bytes    │   c-bytes     vs base      │\n"
                                        "Imperceptible    95.37Mi ± 0%   95.37Mi ± 0%  -0.00% (n=1)\n"
                                        "Imperceptible2   95.37Mi ± 0%   95.37Mi ± 0%  -0.00% (n=1)\n"
                                        "geomean          95.37Mi        95.37Mi       -0.00%\n"
                                        "\n"
                                        "              │    before    │           after            │\n"
                                        "              │      x       │     x       vs base        │\n"
                                        "ZeroOverZero    0.000 ± 0%     0.000 ± 0%   0.00% (n=1)\n"
                                        "ZeroOverZero2   0.000 ± 0%     0.000 ± 0%   0.00% (n=1)\n"
                                        "geomean                    ¹               +0.00%       ¹\n"
                                        "¹ summaries must be >0 to compute geomean\n"
                                        "\n"
                                        "                 │   before   │        after        │\n"
                                        "                 │     y      │     y       vs base │\n"
                                        "NonZeroOverZero    0.0 ± 0%     100.0 ± 0%  ? (n=1)\n"
                                        "NonZeroOverZero2   0.0 ± 0%     100.0 ± 0%  ? (n=1)\n"
                                        "geomean                     ¹   100.0       ?\n"
                                        "¹ summaries must be >0 to compute geomean\n");

    // testdata/smallSample.txt and smallSample.stdout: one run each.
    QTest::newRow("smallSample") << QByteArray(
        "note: before\n\nBenchmarkX 1 100 ns/op\n\nnote: after\n\nBenchmarkX 1 101 ns/op\n")
                                 << QByteArray("  │    before    │              after              │\n"
                                               "  │    sec/op    │    sec/op     vs base           │\n"
                                               "X   100.0n ± ∞ ¹   101.0n ± ∞ ¹  ~ (p=1.000 n=1) ²\n"
                                               "¹ need >= 6 samples for confidence interval at level 0.95\n"
                                               "² need >= 4 samples to detect a difference at alpha level 0.05\n");

    // testdata/issue19565: different benchmark sets, all samples equal.
    QByteArray issue19565 = "note: before\n\n";
    for (int i = 0; i < 6; ++i)
        issue19565 += "BenchmarkA 10 100 ns/op\n";
    for (int i = 0; i < 6; ++i)
        issue19565 += "BenchmarkB 10 10000 ns/op\n";
    issue19565 += "\nnote: after\n\n";
    for (int i = 0; i < 6; ++i)
        issue19565 += "BenchmarkA 10 100 ns/op\n";
    for (int i = 0; i < 6; ++i)
        issue19565 += "BenchmarkC 10 10000 ns/op\n";
    QTest::newRow("issue19565") << issue19565
                                << QByteArray(
                                       "        │   before    │                after                │\n"
                                       "        │   sec/op    │   sec/op     vs base                │\n"
                                       "A         100.0n ± 0%   100.0n ± 0%       ~ (p=1.000 n=6) ¹\n"
                                       "B         10.00µ ± 0%\n"
                                       "C                       10.00µ ± 0%\n"
                                       "geomean   1.000µ        1.000µ       +0.00%               ²\n"
                                       "¹ all samples are equal\n"
                                       "² benchmark set differs from baseline; geomeans may not be comparable\n");

    // testdata/issue19634: five runs, ties in the new sample.
    QTest::newRow("issue19634") << QByteArray("note: before\n\n"
                                              "BenchmarkFloatSub/100-4         20000000           115 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000           114 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000           115 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000           115 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000           115 ns/op\n"
                                              "\nnote: after\n\n"
                                              "BenchmarkFloatSub/100-4         20000000            78.8 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000            78.8 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000            78.8 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000            78.8 ns/op\n"
                                              "BenchmarkFloatSub/100-4         20000000            78.8 ns/op\n")
                                << QByteArray("               │    before     │                after                │\n"
                                              "               │    sec/op     │    sec/op     vs base               │\n"
                                              "FloatSub/100-4   115.00n ± ∞ ¹   78.80n ± ∞ ¹  -31.48% (p=0.008 n=5)\n"
                                              "¹ need >= 6 samples for confidence interval at level 0.95\n");
}

void TestBenchstat::matchesBenchstatGoldenFiles()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    BenchUnitMetadata units;
    const auto results = parse(view(input), nullptr, &units);
    BenchstatOptions options;
    options.units = units;
    const auto report = benchstat(splitByNote(results), options);
    QCOMPARE(formatBenchstatText(report), std::string(view(expected)));
}

void TestBenchstat::smallComparisonTextAndJson()
{
    // Reads got 25 % faster (sec/op down, B/s up: each change keeps its own sign), writes
    // did not change significantly, allocations dropped from 3 to 2 per op, bytes did not
    // move at all.
    std::string oldText = "goos: linux\ngoarch: amd64\npkg: strata\ncpu: Example CPU\n";
    std::string newText = oldText;
    for (int i = 0; i < 6; ++i) {
        const std::string jitter = std::to_string(i);
        oldText += "BenchmarkRead/4KiB-2 1000 200" + jitter + " ns/op 204" + jitter + ".5 MB/s 64 B/op 3 allocs/op\n";
        newText += "BenchmarkRead/4KiB-2 1000 150" + jitter + " ns/op 272" + jitter + ".5 MB/s 64 B/op 2 allocs/op\n";
        oldText += "BenchmarkWrite/4KiB-2 1000 " + std::to_string(3000 + 10 * i) + " ns/op\n";
        newText += "BenchmarkWrite/4KiB-2 1000 " + std::to_string(3005 + 10 * (5 - i)) + " ns/op\n";
    }
    const auto report = benchstat({{"old.txt", parse(oldText)}, {"new.txt", parse(newText)}});
    QCOMPARE(formatBenchstatText(report),
             std::string("goos: linux\n"
                         "goarch: amd64\n"
                         "pkg: strata\n"
                         "cpu: Example CPU\n"
                         "             │   old.txt   │              new.txt               │\n"
                         "             │   sec/op    │   sec/op     vs base               │\n"
                         "Read/4KiB-2    2.002µ ± 0%   1.503µ ± 0%  -24.97% (p=0.002 n=6)\n"
                         "Write/4KiB-2   3.025µ ± 1%   3.030µ ± 1%        ~ (p=0.699 n=6)\n"
                         "geomean        2.461µ        2.134µ       -13.31%\n"
                         "\n"
                         "            │   old.txt    │               new.txt               │\n"
                         "            │     B/s      │     B/s       vs base               │\n"
                         "Read/4KiB-2   1.903Gi ± 0%   2.536Gi ± 0%  +33.28% (p=0.002 n=6)\n"
                         "\n"
                         "            │  old.txt   │            new.txt            │\n"
                         "            │    B/op    │    B/op     vs base           │\n"
                         "Read/4KiB-2   64.00 ± 0%   64.00 ± 0%  ~ (p=1.000 n=6) ¹\n"
                         "¹ all samples are equal\n"
                         "\n"
                         "            │  old.txt   │              new.txt              │\n"
                         "            │ allocs/op  │ allocs/op   vs base               │\n"
                         "Read/4KiB-2   3.000 ± 0%   2.000 ± 0%  -33.33% (p=0.002 n=6)\n"));

    const std::string json = formatBenchstatJson(report);
    const auto has = [&](std::string_view needle) { return json.find(needle) != std::string::npos; };
    QVERIFY(json.starts_with(
        "{\n  \"alpha\": 0.05,\n  \"confidence\": 0.95,\n  \"inputs\": [\"old.txt\", \"new.txt\"],\n  \"rows\": [\n"));
    QVERIFY2(
        has(R"({"unit": "sec/op", "name": "Read/4KiB-2", "config": {"goos": "linux", "goarch": "amd64", "pkg": "strata", "cpu": "Example CPU"}, "better": "lower", "base": "old.txt", "input": "new.txt", "old": {"center": 2.0025e-06, "ci_low": 2.0000000000000003e-06, "ci_high": 2.0050000000000003e-06, "n": 6}, "new": {"center": 1.5025e-06, "ci_low": 1.5e-06, "ci_high": 1.505e-06, "n": 6}, "delta_pct": -24.968789013732827, "delta": "-24.97%", "p": 0.002164502164502165})"),
        json.c_str());
    // Not significant: no delta_pct, the p-value all the same.
    QVERIFY2(has(R"("name": "Write/4KiB-2", )"), json.c_str());
    QVERIFY2(has(R"("delta_pct": null, "delta": "~", "p": 0.6991341991341993})"), json.c_str());
    // The geomean row: no interval, n = benchmarks, no p.
    QVERIFY2(
        has(R"({"unit": "sec/op", "name": "geomean", "config": {"goos": "linux", "goarch": "amd64", "pkg": "strata", "cpu": "Example CPU"}, "better": "lower", "base": "old.txt", "input": "new.txt", "old": {"center": 2.461211591879091e-06, "ci_low": null, "ci_high": null, "n": 2}, "new": {"center": 2.133676404706206e-06, "ci_low": null, "ci_high": null, "n": 2}, "delta_pct": -13.307884143468396})"),
        json.c_str());
    // Throughput: higher is better, and the change is positive.
    QVERIFY2(
        has(R"({"unit": "B/s", "name": "Read/4KiB-2", "config": {"goos": "linux", "goarch": "amd64", "pkg": "strata", "cpu": "Example CPU"}, "better": "higher", )"),
        json.c_str());
    QVERIFY2(has(R"("delta_pct": 33.2843857072932, "delta": "+33.28%", "p": 0.002164502164502165})"), json.c_str());
    QVERIFY2(
        has(R"("old": {"center": 3, "ci_low": 3, "ci_high": 3, "n": 6}, "new": {"center": 2, "ci_low": 2, "ci_high": 2, "n": 6}, "delta_pct": -33.333333333333336, "delta": "-33.33%", "p": 0.0021645021645021645})"),
        json.c_str());
    QVERIFY2(json.ends_with("\n  ],\n  \"warnings\": [\n    \"all samples are equal: old.txt vs new.txt Read/4KiB-2 "
                            "(B/op) n=6\"\n  ]\n}\n"),
             json.c_str());
    QCOMPARE(benchstatWarnings(report),
             std::vector<std::string>{"all samples are equal: old.txt vs new.txt Read/4KiB-2 (B/op) n=6"});
}

void TestBenchstat::geomeanOverDifferingSets()
{
    // B doubles; C is gone and D is new. The geomean change is that of the pairs (B), with
    // benchstat's warning that the sets differ.
    std::string a, b;
    for (int i = 0; i < 6; ++i) {
        a += "BenchmarkB 1 " + std::to_string(100 + i) + " ns/op\nBenchmarkC 1 " + std::to_string(400 + i) + " ns/op\n";
        b += "BenchmarkB 1 " + std::to_string(200 + 2 * i) + " ns/op\nBenchmarkD 1 7 ns/op\n";
    }
    const auto report = benchstat({{"a", parse(a)}, {"b", parse(b)}});
    QCOMPARE(int(report.tables.size()), 1);
    const auto &g = report.tables[0].geomean;
    QVERIFY(std::abs(*g[1].ratio - 2) < 1e-12);
    QCOMPARE(g[1].warnings,
             std::vector<std::string>{"benchmark set differs from baseline; geomeans may not be comparable"});
    QCOMPARE(g[0].count, 2);
    QCOMPARE(g[1].count, 2);
    QCOMPARE(formatBenchstatText(report),
             std::string("        │      a      │                   b                   │\n"
                         "        │   sec/op    │   sec/op     vs base                  │\n"
                         "B         102.5n ± 2%   205.0n ± 2%  +100.00% (p=0.002 n=6)\n"
                         "C         402.5n ± 1%\n"
                         "D                       7.000n ± 0%\n"
                         "geomean   203.1n        37.88n       +100.00%               ¹\n"
                         "¹ benchmark set differs from baseline; geomeans may not be comparable\n"));
    const std::string json = formatBenchstatJson(report);
    QVERIFY2(
        json.find(
            R"({"unit": "sec/op", "name": "D", "config": {}, "better": "lower", "base": "a", "input": "b", "old": null, "new": {"center": 7.000000000000001e-09, )")
            != std::string::npos,
        json.c_str());
    QVERIFY2(
        json.find(
            R"({"unit": "sec/op", "name": "C", "config": {}, "better": "lower", "base": "a", "input": "b", "old": {"center": 4.0250000000000006e-07, )")
            != std::string::npos,
        json.c_str());
    QVERIFY2(json.find(R"("new": null, "delta_pct": null, "delta": null, "p": null})") != std::string::npos,
             json.c_str());
}

void TestBenchstat::multipleInputsCompareToTheFirst()
{
    std::string a, b, c;
    for (int i = 0; i < 6; ++i) {
        a += "BenchmarkX-4 1 " + std::to_string(100 + i) + " ns/op\n";
        b += "BenchmarkX-4 1 " + std::to_string(50 + i) + " ns/op\n";
        c += "BenchmarkX-4 1 " + std::to_string(200 + i) + " ns/op\n";
    }
    const auto report = benchstat({{"a", parse(a)}, {"b", parse(b)}, {"c", parse(c)}});
    QCOMPARE(
        formatBenchstatText(report),
        std::string("    │      a       │                 b                  │                  c                  │\n"
                    "    │    sec/op    │   sec/op     vs base               │    sec/op     vs base               │\n"
                    "X-4   102.50n ± 2%   52.50n ± 5%  -48.78% (p=0.002 n=6)   202.50n ± 1%  +97.56% (p=0.002 n=6)\n"));
    const std::string json = formatBenchstatJson(report);
    QVERIFY(json.find(R"("base": "a", "input": "b")") != std::string::npos);
    QVERIFY(json.find(R"("base": "a", "input": "c")") != std::string::npos);

    // A single input still summarises (no comparison).
    const auto one = benchstat({{"a", parse(a)}});
    QCOMPARE(formatBenchstatText(one),
             std::string("    │      a      │\n"
                         "    │   sec/op    │\n"
                         "X-4   102.5n ± 2%\n"));
    QVERIFY(
        formatBenchstatJson(one).find(
            R"("input": null, "old": {"center": 1.025e-07, "ci_low": 1.0000000000000001e-07, "ci_high": 1.05e-07, "n": 6}, "new": null, "delta_pct": null, "delta": null, "p": null})")
        != std::string::npos);
}

void TestBenchstat::tablesPerPackageAndUnit()
{
    // Two packages from one `go test ./...` run: a table per package and unit, the
    // configuration header printing only what changes.
    const auto results = parse(kGoTest);
    const auto report = benchstat({{"x", results}});
    std::vector<std::string> titles;
    for (const auto &t : report.tables) {
        const auto pkg =
            std::find_if(t.config.begin(), t.config.end(), [](const auto &kv) { return kv.first == "pkg"; });
        titles.push_back(pkg->second.substr(pkg->second.rfind('/') + 1) + ' ' + t.unit);
    }
    QCOMPARE(titles,
             (std::vector<std::string>{"store sec/op", "store B/s", "store B/op", "store allocs/op", "store hit-ratio",
                                       "walk sec/op"}));
    const std::string text = formatBenchstatText(report);
    QVERIFY(text.starts_with(
        "goos: linux\ngoarch: amd64\npkg: example.com/strata/store\ncpu: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz\n"));
    QVERIFY(text.find("\npkg: example.com/strata/walk\n") != std::string::npos);
    QVERIFY(text.find("\ngoos:", 1) == std::string::npos);
    // Every sample is too small for an interval (one line for all of them), and 0 B/op and
    // 0 allocs/op leave those geomeans undefined, as in benchstat.
    const auto warnings = benchstatWarnings(report);
    QCOMPARE(int(warnings.size()), 2);
    QCOMPARE(warnings[0],
             std::string("need >= 6 samples for confidence interval at level 0.95: x Put/size=4KiB-8 (sec/op) n=2, "
                         "x Put/size=1MiB-8 (sec/op) n=2, x Get-8 (sec/op) n=2 and 13 more"));
    QCOMPARE(warnings[1],
             std::string("summaries must be >0 to compute geomean: x geomean (B/op), x geomean (allocs/op)"));
    QVERIFY(text.find("Get-8               0.000 ± ∞ ¹\n") != std::string::npos);
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestBenchstat)
#include "test_benchstat.moc"

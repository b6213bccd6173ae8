#pragma once

// Go's benchstat (golang.org/x/perf/cmd/benchstat and its benchmath package), reproduced:
// per table (configuration and unit) and benchmark, the median of each input's sample
// with the 95 % confidence interval of the median from order statistics, each later input
// compared to the first with a two-sided Mann-Whitney U test (exact for small samples,
// ties included), the change shown only when p ≤ alpha, and a geomean row.
//
// Units are tidied as benchstat does (ns/op → sec/op, MB/s → B/s), and the change is
// always new/old − 1 whatever the unit: +25 % in B/s is faster, +25 % in sec/op slower.

#include "core/bench/go_bench.h"
#include "core/storage/result.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata {

// The q-quantile of sorted values, Hyndman and Fan's method R8 (the median for q = 0.5).
double quantile(std::span<const double> sorted, double q);
double median(std::vector<double> values);

// Geometric mean; NaN when empty or when a value is not positive.
double geomean(std::span<const double> values);

// Which order statistics (1-based; 0 and n+1 stand for −∞ and +∞) bound the confidence
// interval of the q-quantile of a sample of n, and the interval's actual confidence.
// Binomial sums from the mode outwards, left-biased, for n ≤ 30; a normal approximation
// above. When n is too small the interval reaches an infinite bound (n < 6 at 95 %).
struct OrderStatisticCI {
    int loOrder = 0;
    int hiOrder = 0;
    double confidence = 0;
    bool ambiguous = false;
};
OrderStatisticCI quantileCI(int n, double q, double confidence);

// The two-sided Mann-Whitney U test. u is the smaller of the two U statistics (ties count
// ½). Exact distribution without ties up to 50 values per sample, exact with ties up to 25
// (the Klotz / Cheung-Klotz counting), otherwise the normal approximation with tie and
// continuity corrections. Fails when a sample is empty ("sample is too small") or all
// values are equal ("all samples are equal").
struct MannWhitneyResult {
    double u = 0;
    double p = 1;
};
Result<MannWhitneyResult> mannWhitneyUTest(std::span<const double> x1, std::span<const double> x2);

// A sample's summary: median and the interval [lo, hi] (±∞ when the sample is too small),
// or with exact=true the mode and the range, as benchmath's AssumeNothing / AssumeExact.
struct BenchSummary {
    double center = 0;
    double lo = 0;
    double hi = 0;
    double confidence = 0;
    std::vector<std::string> warnings;

    // "1%", "∞" when a bound is infinite, "?" when the bounds straddle zero.
    std::string pctRange() const;
};
BenchSummary summarizeSample(std::vector<double> values, double confidence, bool exact = false);

// A comparison of a sample with its baseline. p is 0 (and not shown) for exact units.
struct BenchComparison {
    double p = 1;
    int n1 = 0;
    int n2 = 0;
    double alpha = 0;
    std::vector<std::string> warnings;

    bool significant() const { return !(p > alpha); }
    // "p=0.002 n=6", "p=0.008 n=5+6", "n=1" for exact units.
    std::string text() const;
    // "-17.20%", "~" when not significant, "0.00%" when equal, "?" from a zero baseline.
    std::string delta(double oldCenter, double newCenter) const;
};
BenchComparison compareSamples(std::vector<double> base, std::vector<double> other, double alpha, bool exact = false);

// ns → sec and MB → B in a unit's numerator: the tidied unit and the factor to apply.
std::pair<std::string, double> tidyUnit(std::string_view unit);
// Values in units counting bytes are scaled by 1024 (Ki, Mi…), others by 1000 (k, M, µ…).
bool isBinaryUnit(std::string_view unit);
// At least three significant digits with an SI or IEC prefix: "1.718µ", "307.3Mi".
std::string scaleValue(double value, bool binary);

struct BenchstatInput {
    std::string label; // the column header: a file name
    std::vector<BenchResult> results;
};

struct BenchstatOptions {
    double alpha = 0.05;
    double confidence = 0.95;
    // Unit metadata from parseGoBench: units with assume=exact are summarised as exact.
    BenchUnitMetadata units;
};

struct BenchstatCell {
    std::vector<double> values; // tidied, ascending
    BenchSummary summary;
    // Against the first column of the table when that column has this benchmark.
    std::optional<BenchComparison> comparison;
};

struct BenchstatGeomean {
    std::optional<double> center; // geomean of the column's centers; absent when one is ≤ 0
    std::optional<double> ratio;  // geomean of new/old per benchmark; base column: absent
    int count = 0;                // benchmarks in the column
    std::vector<std::string> warnings;
};

// One table: one configuration (goos, goarch, pkg, cpu, …) and one unit. Columns are the
// inputs that have results in it, in input order; the first is the baseline.
struct BenchstatTable {
    std::vector<std::pair<std::string, std::string>> config;      // every key seen, "" if absent
    std::string unit;                                             // tidied: "sec/op", "B/s", …
    bool exact = false;                                           // the unit has assume=exact
    int better = 0;                                               // +1 higher is better, -1 lower, 0 unknown
    std::vector<int> columns;                                     // indices into the inputs
    std::vector<std::string> rows;                                // full names: "Read/4KiB-8"
    std::vector<std::vector<std::optional<BenchstatCell>>> cells; // [row][column]
    std::vector<BenchstatGeomean> geomean;                        // [column]
};

struct BenchstatReport {
    std::vector<std::string> labels;
    double alpha = 0.05;
    double confidence = 0.95;
    std::vector<BenchstatTable> tables;
};

BenchstatReport benchstat(const std::vector<BenchstatInput> &inputs, const BenchstatOptions &options = {});

// benchstat's text tables, byte for byte: configuration headers, one table per
// configuration and unit with "center ± ci" per input, "vs base" change with (p=… n=…),
// the geomean row, and numbered footnotes for warnings.
std::string formatBenchstatText(const BenchstatReport &report);
// benchstat -format csv; its warnings (with spreadsheet cell references) go to *warnings.
std::string formatBenchstatCsv(const BenchstatReport &report, std::vector<std::string> *warnings = nullptr);
// {"alpha", "confidence", "inputs", "rows": [{"unit", "name", "config", "old", "new",
// "delta_pct", "p", …}], "warnings"}: one row per benchmark and later input, "old"/"new"
// as {"center", "ci_low", "ci_high", "n"} (null when absent), values in the tidied unit,
// "delta_pct" null unless significant; per table a "geomean" row without "p".
std::string formatBenchstatJson(const BenchstatReport &report);

// One line per kind of warning, naming the first inputs, benchmarks and units it concerns:
// too few samples for the confidence interval (n < 6 at 95 %) or for a significant
// difference (n < 4 at alpha 0.05), all values equal, geomeans over differing sets, …
std::vector<std::string> benchstatWarnings(const BenchstatReport &report);

} // namespace strata

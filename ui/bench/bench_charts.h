#pragma once

#include "core/bench/bench_flags.h"
#include "core/bench/go_bench.h"
#include "core/bench/timeline.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

class QChart;

namespace strata {

// One set of benchmark results: a run of Strata, or a Go benchmark file from anyone.
struct BenchSet {
    QString label;
    std::vector<BenchResult> results;
    std::vector<BenchFlag> flags; // what the numbers should be read with (bench_flags.h)
};

// Reads a Go benchmark text file (`go test -bench -benchmem`, `strata bench`); the label
// is the file's name. An error is one sentence.
// A run from many hosts keeps only its lines for all hosts together (`host: all`).
struct LoadedBenchSet {
    std::optional<BenchSet> set;
    QString error;
    QStringList warnings; // lines that were skipped
};
LoadedBenchSet loadBenchFile(const QString &path);

// A benchmark's name read as operation and payload size: "Write/4KiB" → ("Write", 4096);
// names without a size keep the whole name as the operation and size 0.
struct BenchKey {
    QString op;
    QString sizeLabel;
    std::uint64_t size = 0;
};
BenchKey benchKey(const BenchResult &result);

// The values of one unit for one (operation, size) of a set, over its runs, ascending.
std::vector<double> samplesOf(const BenchSet &set, const QString &op, std::uint64_t size, const char *unit);

// The charts of the benchmark page, built from result sets (the caller owns them):
// - throughput: grouped bars of the median rate per size (in KiB/s, MiB/s or GiB/s, as
//   suits the largest), one bar set per set × operation; on a logarithmic axis when the
//   sizes are more than 10x apart (a missing value sits on its floor);
// - latency: where the results carry percentiles (p50-ns … max-ns, as strata bench
//   writes), a line per set × operation × size through p50, p90, p99, p99.9 and max
//   (medians of the runs) on a logarithmic time axis ("LABEL · Operation SIZE"); else box
//   plots of ns/op per size (minimum, quartiles, median, maximum of the runs), one series
//   per set × operation, in the time unit that suits the values;
// - allocations: B/op and allocs/op medians per size on a logarithmic axis (values below
//   1 sit on the axis floor; tooltips and the table say exactly).
// Each series' name is "LABEL · Operation"; the bar sets and box sets carry the exact
// values (in the unit of the chart's axis title) for tests and tooltips. A click on a
// legend entry hides or shows its series.
QChart *throughputChart(const std::vector<BenchSet> &sets);
QChart *latencyChart(const std::vector<BenchSet> &sets);
QChart *allocationChart(const std::vector<BenchSet> &sets, const char *unit); // "B/op" or "allocs/op"

// The timeline of fixed-time runs (TimelinePoint, timeline.h): per target (`targets` names
// them by TimelinePoint::target) a line of operations per second (left axis) and lines of
// p50 (dashed) and p99 in µs (right, logarithmic), against seconds, the runs laid end to end.
// `sideBySide`: the targets ran at once (the hosts of a run from many, and their total),
// so one run of every target shares its stretch of the time axis.
QChart *timelineChart(const std::vector<TimelinePoint> &points, const QStringList &targets, bool sideBySide = false);

// The sizes (ascending, 0 for size-less benchmarks) and operations present in the sets.
std::vector<BenchKey> benchCategories(const std::vector<BenchSet> &sets);

} // namespace strata

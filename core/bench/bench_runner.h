#pragma once

#include "core/bench/latency_histogram.h"
#include "core/io/size_text.h" // sizeLabel: "4KiB" in benchmark names
#include "core/storage/operator.h"
#include "core/storage/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace strata {

enum class BenchOp { Write, Read, Stat, List, Delete };

std::string_view toString(BenchOp op);  // "write"
std::string_view benchName(BenchOp op); // "Write"
std::optional<BenchOp> parseBenchOp(std::string_view name);

struct BenchOptions {
    std::vector<BenchOp> ops{BenchOp::Write, BenchOp::Read};
    std::vector<std::uint64_t> sizes{4u << 10, 256u << 10, 4u << 20, 16u << 20};
    int count = 6; // runs of each case
    std::chrono::nanoseconds benchtime = std::chrono::seconds(1);
    // When positive: each run lasts this long (every worker runs operations until then)
    // instead of growing its iteration count to about benchtime, as warp and fio time.
    std::chrono::nanoseconds duration{0};
    std::vector<int> concurrency{1}; // workers sharing the iterations
};

// One measured run of one case, in Go's terms.
struct BenchRun {
    std::string name; // "Write/4KiB", "Read/16MiB/c=4" (without "Benchmark")
    BenchOp op = BenchOp::Write;
    std::uint64_t size = 0;
    int concurrency = 1;
    std::uint64_t iterations = 0;
    double nsPerOp = 0;
    double mbPerSecond = 0; // 0 for operations that move no payload
    double bytesPerOp = 0;  // heap bytes allocated per operation, every library included
    double allocsPerOp = 0;
    LatencySummary latency;                          // of every operation of the run
    std::vector<LatencyHistogram::Bucket> histogram; // the whole distribution (buckets that hold any)
    double clientBusy = 0;                           // the busiest worker thread's CPU time over its wall time (0..1)
};

// The latency percentiles as extra Go benchmark metrics, in this order: p50-ns, p90-ns,
// p99-ns, p99.9-ns, max-ns (none for a run without them).
std::vector<std::pair<std::string, std::uint64_t>> latencyMetrics(const BenchRun &run);

// A run as a Go benchmark result (ns/op, MB/s when payload moved, B/op, allocs/op), with
// the -N suffix `procs`.
struct BenchResult;
BenchResult toBenchResult(const BenchRun &run, int procs);

// Where finished runs are kept as Go benchmark text, for the desktop app's history:
// $XDG_DATA_HOME/strata/bench (~/.local/share/strata/bench).
std::string benchHistoryDir();

// A history file starts with a line naming what ran: "# strata bench of TARGET (LABEL)"
// (no parentheses without a label); its name is the UTC time and a slug of the label or
// the target: "20261202-203000-nightly.txt", "20261202-203000-memory-demo.txt".
std::string historyHeader(std::string_view target, std::string_view label);
std::string historyFileName(std::string_view stamp, std::string_view label, std::string_view target);
struct HistoryHeader {
    std::string target;
    std::string label;
};
// What a history file's first line names; nullopt when it is no such line.
std::optional<HistoryHeader> parseHistoryHeader(std::string_view firstLine);
// `text` with its header naming `label` (added when it had none).
std::string relabelHistory(std::string_view text, std::string_view label);

using BenchObserver = std::function<void(const BenchRun &)>;

// Runs the matrix ops × sizes × concurrency `count` times on each target (two targets
// take turns run by run, so drift of the machine hits both alike), like Go's testing
// package: each run grows its iteration count until it lasts about benchtime. Objects go
// under a fresh random directory below each base path and are removed afterwards, also
// when stopped. Reads go into one reused buffer per worker. Returns the runs per target.
Result<std::vector<std::vector<BenchRun>>> runBench(const std::vector<std::pair<Operator *, std::string>> &targets,
                                                    const BenchOptions &options, const std::stop_token &stop = {},
                                                    const BenchObserver &observer = {});

} // namespace strata

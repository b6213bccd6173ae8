#pragma once

#include "core/bench/latency_histogram.h"
#include "core/bench/timeline.h"
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

enum class BlockPattern { Random, Sequential };

// One block workload on a disk image: KDiskMark's profiles ("SEQ1M Q8T1") are these.
struct BlockProfile {
    BenchOp op = BenchOp::Read; // Read or Write
    BlockPattern pattern = BlockPattern::Random;
    std::uint64_t blockSize = 4u << 10;
    int queueDepth = 1; // requests in flight per thread
    int threads = 1;
};

// KDiskMark's four standard profiles, each read and then written: SEQ1M Q8T1, SEQ1M Q1T1,
// RND4K Q32T1, RND4K Q1T1.
std::vector<BlockProfile> defaultBlockProfiles();
// "SeqRead/1MiB/q8t1", "RndWrite/4KiB/q1t1": a profile's benchmark name.
std::string blockName(const BlockProfile &profile);

struct BenchOptions {
    std::vector<BenchOp> ops{BenchOp::Write, BenchOp::Read};
    std::vector<std::uint64_t> sizes{4u << 10, 256u << 10, 4u << 20, 16u << 20};
    int count = 6; // runs of each case
    std::chrono::nanoseconds benchtime = std::chrono::seconds(1);
    // When positive: each run lasts this long (every worker runs operations until then)
    // instead of growing its iteration count to about benchtime, as warp and fio time.
    std::chrono::nanoseconds duration{0};
    std::vector<int> concurrency{1}; // workers sharing the iterations
    // Per-request latency (a clock reading and a histogram record per operation); off
    // only to measure what that costs: the runs then have no percentiles.
    bool latency = true;
    // Fixed-time runs (duration) report intervals of this length while they go, to the
    // timeline observer of runBench (0: none).
    std::chrono::nanoseconds timelineInterval{0};
    // Each timeline point carries its interval's histogram (TimelinePoint::latency, about
    // 60 KiB): for a benchmark agent, whose coordinator merges the hosts' intervals.
    bool timelineHistograms = false;
    // When set: warp's mixed mode. Each case (sizes × concurrency) is one pool of workers
    // drawing write, read, stat and delete by these weights; its results are one run per
    // operation ("Mixed/Read/4KiB"), `ops` is not used.
    std::vector<std::pair<BenchOp, int>> mix;
    // Called in each measured run once it is set up, just before its workers start (false
    // stops the benchmark): an agent of a benchmark from many hosts waits there for the
    // common start (bench_hosts.h).
    std::function<bool()> startGate;

    // On a disk image (an NBD export, a local file or block device) the benchmarks are
    // block workloads on a region of it: ops (read, write) × sizes (block sizes) ×
    // concurrency (threads), each at `queueDepth` requests in flight per thread, in
    // `pattern` order; or `profiles`, when given, of those whose op is in `ops`.
    BlockPattern pattern = BlockPattern::Random;
    int queueDepth = 1;
    std::vector<BlockProfile> profiles;
    bool direct = false;         // local files: O_DIRECT, past the page cache
    bool allowOverwrite = false; // write into a region that holds data (else refused)
    std::uint64_t regionOffset = 0;
    std::uint64_t regionLength = 0; // 0: from regionOffset up to 1 GiB, within the image
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
    LatencySummary latency;   // of every operation of the run
    LatencySummary firstByte; // reads of objects: time to first byte
    std::vector<LatencyHistogram::Bucket> firstByteHistogram;
    std::vector<LatencyHistogram::Bucket> histogram; // the whole distribution (buckets that hold any)
    double clientBusy = 0;                           // the busiest worker thread's CPU time over its wall time (0..1)
    // Block workloads: the order, the requests in flight per thread, the region's bytes.
    bool block = false;
    BlockPattern pattern = BlockPattern::Random;
    int queueDepth = 1;
    std::uint64_t workingSet = 0; // bytes the run touches (objects: size × workers)
    bool direct = false;          // past the page cache (O_DIRECT)
};

// The latency percentiles as extra Go benchmark metrics, in this order: p50-ns, p90-ns,
// p99-ns, p99.9-ns, max-ns, then for reads of objects ttfb-p50-ns, ttfb-p99-ns (none for
// a run without them).
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
// A target that is a disk image (an NBD export, or a file:// URI naming a regular file or
// a block device) gets block workloads instead, only inside the region: writes are
// refused where the region holds data (unless allowOverwrite); a region found empty is
// filled once for reads and handed back empty (zeroed, holes where the storage keeps them).
Result<std::vector<std::vector<BenchRun>>> runBench(const std::vector<std::pair<Operator *, std::string>> &targets,
                                                    const BenchOptions &options, const std::stop_token &stop = {},
                                                    const BenchObserver &observer = {},
                                                    const TimelineObserver &timeline = {});

} // namespace strata

#pragma once

// What one benchmark case is and what its workers measure, for the runner
// (bench_runner.cpp): the case, a worker's tallies and time to first byte, a measurement's
// results, the read of a whole object, where a block workload's next block is, and Go's
// growth of the iteration count.
#include "core/bench/alloc_counter.h"
#include "core/bench/bench_runner.h"
#include "core/bench/bench_target.h"
#include "core/bench/latency_histogram.h"
#include "core/io/tick_clock.h"
#include "core/storage/first_byte.h"
#include "core/storage/operator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::bench_detail {

inline constexpr std::uint64_t kMaxIterations = 1'000'000'000;

// Go's testing.predictN: aim for the goal, grow at most 100x, always make progress.
inline std::uint64_t predictN(std::int64_t goalNs, std::uint64_t prevIters, std::int64_t prevNs, std::uint64_t last)
{
    if (prevNs <= 0)
        prevNs = 1;
    long double n = (long double)goalNs * (long double)prevIters / (long double)prevNs;
    n += n / 5;
    n = std::min(n, (long double)last * 100);
    n = std::max(n, (long double)last + 1);
    n = std::min(n, (long double)kMaxIterations);
    return std::uint64_t(n);
}

struct Measure {
    std::int64_t ns = 0;
    AllocCounts allocs;
    LatencyHistogram latency;   // every operation's duration, all workers merged
    LatencyHistogram firstByte; // reads: time to first byte
    struct OpStats {
        std::uint64_t count = 0;
        LatencyHistogram latency, firstByte;
    };
    std::vector<OpStats> perOp; // a mixed run: by BenchOp
    std::uint64_t iterations = 0;
    double busy = 0; // the busiest worker's CPU time over its wall time
    std::optional<Error> error;
};

// A worker's time to first byte of its reads. A read whose first call brought it whole
// (memory, files, NBD) has its first byte at its end: it is marked `atEnd`, and the loop
// records the operation's own duration here, one clock reading fewer per read.
struct FirstByteSink {
    LatencyHistogram histogram;
    bool atEnd = false;
};

// Reads the object `name` whole into `buffer` (its size); with `firstByte`, records there
// the time from `start` (ticks) to its first byte: noted by the backend as it arrived, else
// the first read's return.
inline Status readWhole(Operator &op, const std::string &name, std::span<std::byte> buffer, std::uint64_t start,
                        FirstByteSink *firstByte)
{
    if (firstByte)
        first_byte::arm();
    std::size_t pos = 0;
    while (pos < buffer.size()) {
        auto got = op.read(name, pos, buffer.subspan(pos));
        if (!got)
            return std::move(got).error();
        if (*got == 0)
            return Error(ErrorKind::Corrupt, "the object read back shorter than it was written");
        if (pos == 0 && firstByte) {
            const TickClock &clock = TickClock::instance();
            std::uint64_t first = first_byte::take();
            if (first == 0 && *got == buffer.size()) {
                firstByte->atEnd = true;
            } else {
                if (first == 0)
                    first = clock.now();
                firstByte->histogram.record(first > start ? clock.toNs(first - start) : 0);
            }
        }
        pos += *got;
    }
    return {};
}

struct Case {
    BenchOp op;
    std::uint64_t size;
    int concurrency; // workers; on a disk image, threads (each with queueDepth requests in flight)
    std::string name;
    bool block = false;
    BlockPattern pattern = BlockPattern::Random;
    int queueDepth = 1;
    bool mixed = false; // ops drawn by the options' mix weights
};

inline constexpr std::size_t kOps = 5; // BenchOp values

// What a worker counts as it goes, on a cache line of its own (workers side by side would
// otherwise take the line from each other on every operation).
struct alignas(64) WorkerTally {
    std::uint64_t count = 0;
    std::array<std::uint64_t, kOps> mixCounts{}; // a mixed run: by operation
    int kind = 0;                                // a mixed run: what the step being timed drew
};

// "Mixed/Read/4KiB", "Mixed/Stat/c=4": one operation of a mixed case.
inline std::string mixedName(const Case &c, BenchOp op)
{
    std::string name("Mixed/");
    name.append(benchName(op));
    if (op != BenchOp::Stat && op != BenchOp::List)
        name.append("/").append(sizeLabel(c.size));
    const auto slash = c.name.find("/c=");
    if (slash != std::string::npos)
        name.append(c.name.substr(slash));
    return name;
}

// Where a thread's next block is: at random in the region, or (sequential) the next of
// its own slice of the region, which its requests in flight take in turn.
struct BlockPicker {
    BlockPattern pattern;
    std::uint64_t start;  // the region's first byte
    std::uint64_t bs;     // block size
    std::uint64_t blocks; // in the region
    std::uint64_t slice;  // blocks per thread (sequential)

    BlockPicker(const Target &target, const Case &c)
        : pattern(c.pattern), start(target.regionOffset()), bs(c.size), blocks(target.regionLength() / c.size),
          slice(std::max<std::uint64_t>(1, blocks / std::uint64_t(std::max(1, c.concurrency))))
    {
    }
    // `state`: the request's own random state; `cursor`: its thread's.
    std::uint64_t offset(int thread, std::uint64_t &state, std::atomic<std::uint64_t> &cursor) const
    {
        std::uint64_t block;
        if (pattern == BlockPattern::Sequential) {
            block = std::uint64_t(thread) * slice + cursor.fetch_add(1, std::memory_order_relaxed) % slice;
        } else {
            // xorshift64*: a uniform block, no lock, no allocation.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            block = (state * 0x2545F4914F6CDD1Dull) % blocks;
        }
        return start + block * bs;
    }
};

} // namespace strata::bench_detail

// Benchmark names and the forms a finished run takes (bench_runner.h): Go benchmark
// results, latency metrics, operation and block-profile names.
#include "core/bench/bench_runner.h"

#include "core/bench/go_bench.h"
#include "core/io/size_text.h"

#include <algorithm>
#include <optional>

namespace strata {

BenchResult toBenchResult(const BenchRun &r, int procs)
{
    BenchResult b;
    b.name = r.name;
    b.procs = procs;
    b.iterations = r.iterations;
    b.values.emplace_back("ns/op", r.nsPerOp);
    if (r.mbPerSecond > 0)
        b.values.emplace_back("MB/s", r.mbPerSecond);
    b.values.emplace_back("B/op", std::floor(r.bytesPerOp));
    b.values.emplace_back("allocs/op", std::floor(r.allocsPerOp));
    for (const auto &[unit, value] : latencyMetrics(r))
        b.values.emplace_back(unit, double(value));
    return b;
}

std::vector<std::pair<std::string, std::uint64_t>> latencyMetrics(const BenchRun &r)
{
    if (r.histogram.empty())
        return {};
    std::vector<std::pair<std::string, std::uint64_t>> out{{"p50-ns", r.latency.p50},
                                                           {"p90-ns", r.latency.p90},
                                                           {"p99-ns", r.latency.p99},
                                                           {"p99.9-ns", r.latency.p999},
                                                           {"max-ns", r.latency.max}};
    if (!r.firstByteHistogram.empty()) {
        out.emplace_back("ttfb-p50-ns", r.firstByte.p50);
        out.emplace_back("ttfb-p99-ns", r.firstByte.p99);
    }
    return out;
}

std::string_view toString(BenchOp op)
{
    switch (op) {
    case BenchOp::Write: return "write";
    case BenchOp::Read: return "read";
    case BenchOp::Stat: return "stat";
    case BenchOp::List: return "list";
    case BenchOp::Delete: return "delete";
    }
    return "?";
}

std::string_view benchName(BenchOp op)
{
    switch (op) {
    case BenchOp::Write: return "Write";
    case BenchOp::Read: return "Read";
    case BenchOp::Stat: return "Stat";
    case BenchOp::List: return "List";
    case BenchOp::Delete: return "Delete";
    }
    return "?";
}

std::vector<BlockProfile> defaultBlockProfiles()
{
    std::vector<BlockProfile> out;
    const BlockProfile kinds[] = {{BenchOp::Read, BlockPattern::Sequential, 1u << 20, 8, 1},
                                  {BenchOp::Read, BlockPattern::Sequential, 1u << 20, 1, 1},
                                  {BenchOp::Read, BlockPattern::Random, 4u << 10, 32, 1},
                                  {BenchOp::Read, BlockPattern::Random, 4u << 10, 1, 1}};
    for (auto op : {BenchOp::Read, BenchOp::Write})
        for (BlockProfile p : kinds) {
            p.op = op;
            out.push_back(p);
        }
    return out;
}

std::string blockName(const BlockProfile &p)
{
    std::string name(p.pattern == BlockPattern::Sequential ? "Seq" : "Rnd");
    name.append(benchName(p.op)).append("/").append(sizeLabel(p.blockSize));
    name.append("/q").append(std::to_string(p.queueDepth)).append("t").append(std::to_string(p.threads));
    return name;
}

std::optional<BenchOp> parseBenchOp(std::string_view name)
{
    for (auto op : {BenchOp::Write, BenchOp::Read, BenchOp::Stat, BenchOp::List, BenchOp::Delete})
        if (toString(op) == name)
            return op;
    return std::nullopt;
}

} // namespace strata

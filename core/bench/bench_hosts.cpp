#include "core/bench/bench_hosts.h"

#include <algorithm>
#include <chrono>

namespace strata {

std::int64_t wallClockNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::optional<ClockOffset> estimateClockOffset(std::span<const ClockSample> samples)
{
    const ClockSample *best = nullptr;
    for (const auto &s : samples)
        if (s.received >= s.sent && (!best || s.received - s.sent < best->received - best->sent))
            best = &s;
    if (!best)
        return std::nullopt;
    const std::int64_t roundTrip = best->received - best->sent;
    return ClockOffset{best->hostAt - (best->sent + roundTrip / 2), (roundTrip + 1) / 2};
}

namespace {

LatencyHistogram histogramOf(const std::vector<LatencyHistogram::Bucket> &buckets, const LatencySummary &summary)
{
    return LatencyHistogram::fromBuckets(buckets, summary.min, summary.max);
}

json::Array bucketsToJson(const std::vector<LatencyHistogram::Bucket> &buckets)
{
    json::Array out;
    out.reserve(buckets.size());
    for (const auto &b : buckets)
        out.push_back(json::Array{b.from, b.width, b.count});
    return out;
}

std::optional<std::vector<LatencyHistogram::Bucket>> bucketsFromJson(const json::Value &value)
{
    std::vector<LatencyHistogram::Bucket> out;
    if (value.is_null())
        return out;
    if (!value.is_array())
        return std::nullopt;
    for (const auto &b : value) {
        if (!b.is_array() || b.size() != 3 || !b[0].is_number_unsigned() || !b[1].is_number_unsigned()
            || !b[2].is_number_unsigned())
            return std::nullopt;
        out.push_back({b[0].get<std::uint64_t>(), b[1].get<std::uint64_t>(), b[2].get<std::uint64_t>()});
    }
    return out;
}

json::Object summaryToJson(const LatencySummary &s)
{
    return {{"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"p999", s.p999}, {"max", s.max}, {"min", s.min}};
}

LatencySummary summaryFromJson(const json::Value &v)
{
    LatencySummary s;
    s.p50 = json::get<std::uint64_t>(v, "p50", 0);
    s.p90 = json::get<std::uint64_t>(v, "p90", 0);
    s.p99 = json::get<std::uint64_t>(v, "p99", 0);
    s.p999 = json::get<std::uint64_t>(v, "p999", 0);
    s.max = json::get<std::uint64_t>(v, "max", 0);
    s.min = json::get<std::uint64_t>(v, "min", 0);
    return s;
}

} // namespace

BenchRun mergeRuns(std::span<const BenchRun> perHost)
{
    if (perHost.empty())
        return {};
    BenchRun out = perHost.front();
    LatencyHistogram latency, firstByte;
    double opsPerSecond = 0, allocBytes = 0, allocs = 0;
    out.iterations = 0;
    out.mbPerSecond = 0;
    out.workingSet = 0;
    out.clientBusy = 0;
    for (const BenchRun &r : perHost) {
        out.iterations += r.iterations;
        opsPerSecond += r.nsPerOp > 0 ? 1e9 / r.nsPerOp : 0;
        out.mbPerSecond += r.mbPerSecond;
        allocBytes += r.bytesPerOp * double(r.iterations);
        allocs += r.allocsPerOp * double(r.iterations);
        out.workingSet += r.workingSet;
        out.clientBusy = std::max(out.clientBusy, r.clientBusy);
        latency.merge(histogramOf(r.histogram, r.latency));
        firstByte.merge(histogramOf(r.firstByteHistogram, r.firstByte));
    }
    out.nsPerOp = opsPerSecond > 0 ? 1e9 / opsPerSecond : 0;
    out.bytesPerOp = out.iterations ? allocBytes / double(out.iterations) : 0;
    out.allocsPerOp = out.iterations ? allocs / double(out.iterations) : 0;
    out.latency = latency.count() ? summarize(latency) : LatencySummary{};
    out.histogram = latency.buckets();
    out.firstByte = firstByte.count() ? summarize(firstByte) : LatencySummary{};
    out.firstByteHistogram = firstByte.buckets();
    return out;
}

json::Value benchRunToJson(const BenchRun &run)
{
    return json::Object{{"name", run.name},
                        {"op", std::string(toString(run.op))},
                        {"size", run.size},
                        {"concurrency", run.concurrency},
                        {"iterations", run.iterations},
                        {"ns_per_op", run.nsPerOp},
                        {"mb_per_s", run.mbPerSecond},
                        {"bytes_per_op", run.bytesPerOp},
                        {"allocs_per_op", run.allocsPerOp},
                        {"latency", summaryToJson(run.latency)},
                        {"first_byte", summaryToJson(run.firstByte)},
                        {"histogram", bucketsToJson(run.histogram)},
                        {"first_byte_histogram", bucketsToJson(run.firstByteHistogram)},
                        {"client_busy", run.clientBusy},
                        {"block", run.block},
                        {"pattern", run.pattern == BlockPattern::Sequential ? "seq" : "rand"},
                        {"queue_depth", run.queueDepth},
                        {"working_set", run.workingSet},
                        {"direct", run.direct}};
}

Result<BenchRun> benchRunFromJson(const json::Value &value)
{
    const auto bad = [](std::string_view what) {
        return Error(ErrorKind::Corrupt, "an agent's run is malformed: " + std::string(what));
    };
    if (!value.is_object())
        return bad("not an object");
    BenchRun r;
    r.name = json::get<std::string>(value, "name", "");
    if (r.name.empty())
        return bad("no name");
    const auto op = parseBenchOp(json::get<std::string>(value, "op", ""));
    if (!op)
        return bad("no known operation");
    r.op = *op;
    r.size = json::get<std::uint64_t>(value, "size", 0);
    r.concurrency = json::get<int>(value, "concurrency", 1);
    r.iterations = json::get<std::uint64_t>(value, "iterations", 0);
    r.nsPerOp = json::get<double>(value, "ns_per_op", 0);
    r.mbPerSecond = json::get<double>(value, "mb_per_s", 0);
    r.bytesPerOp = json::get<double>(value, "bytes_per_op", 0);
    r.allocsPerOp = json::get<double>(value, "allocs_per_op", 0);
    r.clientBusy = json::get<double>(value, "client_busy", 0);
    r.block = json::get<bool>(value, "block", false);
    r.pattern =
        json::get<std::string>(value, "pattern", "rand") == "seq" ? BlockPattern::Sequential : BlockPattern::Random;
    r.queueDepth = json::get<int>(value, "queue_depth", 1);
    r.workingSet = json::get<std::uint64_t>(value, "working_set", 0);
    r.direct = json::get<bool>(value, "direct", false);
    if (value.contains("latency"))
        r.latency = summaryFromJson(value["latency"]);
    if (value.contains("first_byte"))
        r.firstByte = summaryFromJson(value["first_byte"]);
    auto histogram = bucketsFromJson(value.value("histogram", json::Value()));
    auto firstByte = bucketsFromJson(value.value("first_byte_histogram", json::Value()));
    if (!histogram || !firstByte)
        return bad("a histogram is not [from, width, count] triples");
    r.histogram = std::move(*histogram);
    r.firstByteHistogram = std::move(*firstByte);
    std::uint64_t counted = 0;
    for (const auto &b : r.histogram)
        counted += b.count;
    if (counted > r.iterations)
        return bad("its histogram holds more operations than it ran");
    return r;
}

json::Value timelinePointToJson(const TimelinePoint &point)
{
    json::Object out{{"benchmark", point.benchmark},
                     {"run", point.run},
                     {"at", point.at},
                     {"seconds", point.seconds},
                     {"ops", point.ops},
                     {"bytes", point.bytes},
                     {"p50", point.p50},
                     {"p99", point.p99}};
    if (point.latency) {
        out["histogram"] = bucketsToJson(point.latency->buckets());
        out["min"] = point.latency->min();
        out["max"] = point.latency->max();
    }
    return out;
}

Result<TimelinePoint> timelinePointFromJson(const json::Value &value)
{
    const auto bad = [](std::string_view what) {
        return Error(ErrorKind::Corrupt, "an agent's interval is malformed: " + std::string(what));
    };
    if (!value.is_object())
        return bad("not an object");
    TimelinePoint p;
    p.benchmark = json::get<std::string>(value, "benchmark", "");
    p.run = json::get<int>(value, "run", 0);
    p.at = json::get<double>(value, "at", 0);
    p.seconds = json::get<double>(value, "seconds", 0);
    p.ops = json::get<std::uint64_t>(value, "ops", 0);
    p.bytes = json::get<std::uint64_t>(value, "bytes", 0);
    p.p50 = json::get<std::uint64_t>(value, "p50", 0);
    p.p99 = json::get<std::uint64_t>(value, "p99", 0);
    if (p.benchmark.empty() || !(p.seconds > 0) || !(p.at >= p.seconds))
        return bad("no benchmark, or no time");
    if (value.contains("histogram")) {
        auto buckets = bucketsFromJson(value["histogram"]);
        if (!buckets)
            return bad("its histogram is not [from, width, count] triples");
        std::uint64_t counted = 0;
        for (const auto &b : *buckets)
            counted += b.count;
        if (counted > p.ops)
            return bad("its histogram holds more operations than it counted");
        p.latency = std::make_shared<const LatencyHistogram>(LatencyHistogram::fromBuckets(
            *buckets, json::get<std::uint64_t>(value, "min", 0), json::get<std::uint64_t>(value, "max", 0)));
    }
    return p;
}

TimelinePoint mergePoints(std::span<const TimelinePoint> perHost)
{
    if (perHost.empty())
        return {};
    TimelinePoint out = perHost.front();
    out.ops = out.bytes = 0;
    out.at = out.seconds = 0;
    auto latency = std::make_shared<LatencyHistogram>();
    bool exact = true;
    for (const TimelinePoint &p : perHost) {
        out.ops += p.ops;
        out.bytes += p.bytes;
        out.at = std::max(out.at, p.at);
        out.seconds = std::max(out.seconds, p.seconds);
        if (p.latency)
            latency->merge(*p.latency);
        else
            exact = exact && p.ops == 0;
    }
    // Without every host's histogram, no percentile is claimed.
    out.p50 = exact ? latency->percentile(50) : 0;
    out.p99 = exact ? latency->percentile(99) : 0;
    out.latency = exact ? std::shared_ptr<const LatencyHistogram>(std::move(latency)) : nullptr;
    return out;
}

} // namespace strata

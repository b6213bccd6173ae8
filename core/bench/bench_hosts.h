#pragma once

// Benchmarks from many hosts at once (issue 44): what the coordinator (`strata bench
// --hosts`) and its agents (`strata bench --agent`, started over OpenSSH) share. They speak
// one JSON object a line over the agent's stdin and stdout; the runs travel whole, with
// their histograms, so the coordinator adds bucket counts and never averages percentiles.
#include "core/bench/bench_runner.h"
#include "core/bench/timeline.h"
#include "core/io/json.h"
#include "core/storage/result.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata {

// The protocol's version: an agent that speaks another is refused by name.
inline constexpr int kBenchAgentProtocol = 1;

// The wall clock (the one hosts share, through NTP), in nanoseconds since the Unix epoch:
// the clock of the protocol's readings and start times.
std::int64_t wallClockNs();

// One exchange with a host: we sent at `sent` and heard back at `received` (our clock);
// the host read its own clock at `hostAt` in between. Nanoseconds since the Unix epoch.
struct ClockSample {
    std::int64_t sent = 0;
    std::int64_t hostAt = 0;
    std::int64_t received = 0;
};

// The host's clock minus ours, as NTP estimates it: from the exchange with the shortest
// round trip, the host read its clock halfway through, give or take half that round trip
// (`uncertainty`). nullopt without a sample.
struct ClockOffset {
    std::int64_t offset = 0;
    std::int64_t uncertainty = 0;
};
std::optional<ClockOffset> estimateClockOffset(std::span<const ClockSample> samples);

// One run of the same case on every host, as one: iterations, operations per second and
// MB/s add up (the hosts ran for the same time, side by side), the latency histograms add
// bucket for bucket (every percentile is the one all the samples would give in one
// process), allocations are per operation over all, and the busiest client is the busiest
// host's. Name and case are the first run's.
BenchRun mergeRuns(std::span<const BenchRun> perHost);

// A run as an agent sends it: every field, the histograms as [from, width, count] triples.
json::Value benchRunToJson(const BenchRun &run);
Result<BenchRun> benchRunFromJson(const json::Value &value);

// One interval of a host's timeline as its agent sends it (its histogram as buckets), and
// back; the agent's run index goes beside it.
json::Value timelinePointToJson(const TimelinePoint &point);
Result<TimelinePoint> timelinePointFromJson(const json::Value &value);

// The same interval of every host, as one: operations and bytes add, the histograms add
// bucket for bucket (p50 and p99 are the merged histogram's), the length is the longest.
TimelinePoint mergePoints(std::span<const TimelinePoint> perHost);

} // namespace strata

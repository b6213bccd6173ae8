#pragma once

// A run's timeline: per interval, the operations completed, the bytes they moved and their
// latency percentiles, while the run goes. Workers record into their own slot (no lock, no
// allocation per operation) and hand each finished interval over once, when their clock
// passes its end; a sampler thread merges the workers' intervals and reports each one as
// soon as every worker has handed it over (or two intervals later: a worker inside a long
// operation then adds what it completed to the next interval still open).
#include "core/bench/latency_histogram.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace strata {

struct TimelinePoint {
    std::string benchmark; // as BenchRun::name
    int run = 0;           // which run of that benchmark (0, 1, …)
    int target = 0;        // which target of runBench's (0, or 1 for --vs)
    double at = 0;         // seconds from the run's start to the interval's end
    double seconds = 0;    // the interval's length (the last one may be shorter)
    std::uint64_t ops = 0;
    std::uint64_t bytes = 0;
    std::uint64_t p50 = 0, p99 = 0; // ns
    // The interval's latencies, p50's and p99's source (null when not kept): what a
    // benchmark agent sends, so intervals of many hosts merge exactly.
    std::shared_ptr<const LatencyHistogram> latency;
    double opsPerSecond() const { return seconds > 0 ? double(ops) / seconds : 0; }
    double mbPerSecond() const { return seconds > 0 ? double(bytes) / seconds / 1e6 : 0; }
};
using TimelineObserver = std::function<void(const TimelinePoint &)>;

// A timeline as CSV, the same from the command line (--timeline) and beside a saved run:
//   target,benchmark,run,t_s,interval_s,ops,ops_per_s,mb_per_s,p50_ns,p99_ns
// (benchmark with its "Benchmark" prefix; the target quoted).
std::string timelineCsvHeader();
std::string timelineCsvLine(const TimelinePoint &point, std::string_view target);
// The points of such a text (the header and lines it cannot read skipped); `targets`, when
// given, receives each point's target text, in order of first appearance, and
// TimelinePoint::target indexes it.
std::vector<TimelinePoint> parseTimelineCsv(std::string_view text, std::vector<std::string> *targets = nullptr);

class Timeline {
public:
    // Times in TickClock ticks; `start` is the run's start.
    // `histograms`: each point carries its interval's histogram (TimelinePoint::latency).
    Timeline(int workers, std::uint64_t start, std::uint64_t interval, TimelinePoint identity, TimelineObserver emit,
             bool histograms = false);
    ~Timeline(); // finish() must have been called

    // A worker: one operation completed at `now` (ticks), taking `latencyNs`, moving `bytes`.
    void record(int worker, std::uint64_t now, std::uint64_t latencyNs, std::uint64_t bytes)
    {
        Slot &s = m_slots[std::size_t(worker)];
        if (now >= s.end)
            handOver(worker, now);
        s.latency.record(latencyNs);
        ++s.ops;
        s.bytes += bytes;
    }
    // A worker is done (at `now`): hands over what it has.
    void done(int worker, std::uint64_t now);
    // Every worker is done: reports what is left (the last interval as long as it ran) and
    // stops the sampler.
    void finish(std::uint64_t now);

private:
    struct Slot {
        LatencyHistogram latency;
        std::uint64_t ops = 0, bytes = 0;
        std::uint64_t end = 0; // ticks: the end of the interval being filled
        int index = 0;
    };
    struct Pending {
        LatencyHistogram latency;
        std::uint64_t ops = 0, bytes = 0;
        int handedOver = 0;
    };
    void handOver(int worker, std::uint64_t now);
    // Hands slot s's interval over; doneAt (ticks, 0: not done) when it is the worker's last.
    void publish(int worker, Slot &s, std::uint64_t doneAt);
    void sample();
    void emit(int index, Pending &p, std::uint64_t end);

    int m_workers;
    std::uint64_t m_start, m_interval;
    TimelinePoint m_identity;
    TimelineObserver m_emit;
    bool m_histograms;
    std::vector<Slot> m_slots;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::map<int, Pending> m_pending; // by interval index
    int m_next = 0;                   // the next interval to report
    std::vector<int> m_doneAt;        // per worker: the interval it stopped in (-1: running)
    int m_finishedAt = -1;            // the last interval, once every worker is done
    std::uint64_t m_finishTicks = 0;
    std::uint64_t m_lastDone = 0; // when the last worker to stop stopped
    bool m_stop = false;
    std::thread m_sampler;
};

} // namespace strata

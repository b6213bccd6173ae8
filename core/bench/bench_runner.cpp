#include "core/bench/bench_runner.h"

#include "core/bench/alloc_counter.h"
#include "core/bench/bench_case.h"
#include "core/bench/bench_target.h"
#include "core/bench/block_device.h"
#include "core/bench/go_bench.h"
#include "core/bench/timeline.h"
#include "core/io/tick_clock.h"
#include "core/storage/first_byte.h"
#include "core/storage/path.h"
#include "core/storage/random.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

namespace strata {

namespace {

using bench_detail::AlignedBuffer;
using bench_detail::BlockPicker;
using bench_detail::blockProfiles;
using bench_detail::Case;
using bench_detail::FirstByteSink;
using bench_detail::kMaxIterations;
using bench_detail::kOps;
using bench_detail::Measure;
using bench_detail::mixedName;
using bench_detail::predictN;
using bench_detail::readWhole;
using bench_detail::Target;
using bench_detail::WorkerTally;

class Runner {
public:
    Runner(const BenchOptions &options, std::stop_token stop, TimelineObserver timeline)
        : m_options(options), m_stop(std::move(stop)), m_timeline(std::move(timeline))
    {
        std::uint64_t largest = 1;
        for (auto s : options.sizes)
            largest = std::max(largest, s);
        for (const auto &profile : options.profiles)
            largest = std::max(largest, profile.blockSize);
        (void)TickClock::instance(); // calibrated here, not inside a timed run
        m_payload.resize(std::size_t(largest));
        std::mt19937_64 gen(42);
        for (auto &b : m_payload)
            b = std::byte(gen());
    }

    // One case, `count`-th run: grows n like Go until the run lasts about benchtime, or
    // (with a duration) runs every worker for that long.
    Result<std::vector<BenchRun>> run(Target &target, const Case &c, int round, int targetIndex)
    {
        m_round = round;
        m_target = targetIndex;
        Measure m;
        if (m_options.duration.count() > 0) {
            m = measure(target, c, 0, m_options.duration);
        } else {
            const std::int64_t goal = m_options.benchtime.count();
            m = measure(target, c, 1);
            while (!m.error && m.ns < goal && m.iterations < kMaxIterations && !m_stop.stop_requested()) {
                const std::uint64_t last = m.iterations;
                m = measure(target, c, predictN(goal, last, m.ns, last));
            }
        }
        const std::uint64_t n = std::max<std::uint64_t>(1, m.iterations);
        if (m.error)
            return std::move(*m.error);
        if (m_stop.stop_requested())
            return Error(ErrorKind::Cancelled, "stopped");
        if (c.mixed)
            return mixedRuns(c, m, n);
        BenchRun r;
        r.name = c.name;
        r.op = c.op;
        r.size = c.size;
        r.concurrency = c.concurrency;
        r.iterations = n;
        r.nsPerOp = double(m.ns) / double(n);
        if (c.op == BenchOp::Write || c.op == BenchOp::Read)
            r.mbPerSecond = m.ns > 0 ? double(c.size) * double(n) / (double(m.ns) / 1e9) / 1e6 : 0;
        r.bytesPerOp = double(m.allocs.bytes) / double(n);
        r.allocsPerOp = double(m.allocs.allocs) / double(n);
        r.latency = summarize(m.latency);
        r.clientBusy = m.busy;
        r.histogram = m.latency.buckets();
        if (m.firstByte.count() > 0) {
            r.firstByte = summarize(m.firstByte);
            r.firstByteHistogram = m.firstByte.buckets();
        }
        r.block = c.block;
        r.pattern = c.pattern;
        r.queueDepth = c.queueDepth;
        r.direct = c.block && m_options.direct;
        r.workingSet = c.block ? target.regionLength() : c.size * std::uint64_t(std::max(1, c.concurrency));
        return std::vector<BenchRun>{std::move(r)};
    }

    // A mixed run as one line per operation drawn: its count, the wall time over that count
    // (so 1e9 / ns/op is its rate), its bytes over the wall time, its own latencies; B/op
    // and allocs/op are the mix's (allocations cannot be told apart by operation).
    std::vector<BenchRun> mixedRuns(const Case &c, const Measure &m, std::uint64_t total)
    {
        std::vector<BenchRun> out;
        for (const auto &[op, weight] : m_options.mix) {
            const auto &stats = m.perOp[std::size_t(op)];
            if (stats.count == 0)
                continue;
            BenchRun r;
            r.name = mixedName(c, op);
            r.op = op;
            r.size = c.size;
            r.concurrency = c.concurrency;
            r.iterations = stats.count;
            r.nsPerOp = double(m.ns) / double(stats.count);
            if (op == BenchOp::Write || op == BenchOp::Read)
                r.mbPerSecond = m.ns > 0 ? double(c.size) * double(stats.count) / (double(m.ns) / 1e9) / 1e6 : 0;
            r.bytesPerOp = double(m.allocs.bytes) / double(total);
            r.allocsPerOp = double(m.allocs.allocs) / double(total);
            if (stats.latency.count() > 0) {
                r.latency = summarize(stats.latency);
                r.histogram = stats.latency.buckets();
            }
            if (stats.firstByte.count() > 0) {
                r.firstByte = summarize(stats.firstByte);
                r.firstByteHistogram = stats.firstByte.buckets();
            }
            r.clientBusy = m.busy;
            r.workingSet = c.size * std::uint64_t(std::max(1, c.concurrency));
            out.push_back(std::move(r));
        }
        return out;
    }

private:
    // Runs n iterations of the case split over its workers, or (`duration` > 0) every
    // worker until it has spent that long in operations; only the loop is timed and counted
    // (setup and thread start-up are not).
    Measure measure(Target &target, const Case &c, std::uint64_t n, std::chrono::nanoseconds duration = {})
    {
        const bool fixedTime = duration.count() > 0;
        Measure m;
        // A block device that keeps its queue from one thread (NBD, io_uring) runs a worker per thread;
        // otherwise each request in flight is a worker of its own.
        const bool queued = c.block && target.device().queues();
        const int workers = std::max(1, c.concurrency) * (c.block && !queued ? std::max(1, c.queueDepth) : 1);
        std::vector<WorkerTally> tallies(static_cast<std::size_t>(workers));
        // One histogram per worker, allocated here: recording allocates and locks nothing.
        std::vector<LatencyHistogram> latencies(static_cast<std::size_t>(workers));
        // Reads of objects: from the start of each read to its first byte.
        std::vector<FirstByteSink> firstBytes(
            static_cast<std::size_t>(!c.block && (c.op == BenchOp::Read || c.mixed) ? workers : 0));
        // A mixed run: what each worker's step drew, and per worker and operation its
        // count and latencies.
        const std::size_t mixSlots = c.mixed ? std::size_t(workers) * kOps : 0;
        std::vector<LatencyHistogram> mixLatencies(m_options.latency ? mixSlots : 0);
        std::array<std::uint64_t, kOps> mixBytes{};
        mixBytes[std::size_t(BenchOp::Read)] = mixBytes[std::size_t(BenchOp::Write)] = c.size;
        std::atomic<bool> failed{false};
        std::optional<Error> firstError;
        std::mutex errorMutex;
        // A fixed-time run's timeline, when asked for: intervals reported while it runs.
        std::optional<Timeline> timeline;
        const std::uint64_t opBytes = c.op == BenchOp::Read || c.op == BenchOp::Write ? c.size : 0;
        // Runs worker w's share of the iterations (or until the deadline), timing each step.
        auto loop = [&](int w, auto &&step) {
            const std::uint64_t from = fixedTime ? 0 : n * std::uint64_t(w) / std::uint64_t(workers);
            const std::uint64_t to = fixedTime ? UINT64_MAX : n * std::uint64_t(w + 1) / std::uint64_t(workers);
            auto &latency = latencies[std::size_t(w)];
            FirstByteSink *firstByte = firstBytes.empty() ? nullptr : &firstBytes[std::size_t(w)];
            // One clock reading per operation: each one ends the last and starts the next
            // (none without latencies, unless the run has a deadline).
            const bool clocked = fixedTime || m_options.latency;
            Timeline *intervals = timeline ? &*timeline : nullptr;
            const TickClock &clock = TickClock::instance();
            std::uint64_t last = clock.now();
            const std::uint64_t deadline =
                last + clock.fromNs(std::uint64_t(std::max<std::int64_t>(0, duration.count())));
            for (std::uint64_t i = from; i < to && !failed.load(std::memory_order_relaxed); ++i) {
                if (Status st = step(i, last); !st) {
                    std::lock_guard lock(errorMutex);
                    if (!firstError)
                        firstError = std::move(st).error();
                    failed = true;
                    return;
                }
                WorkerTally &tally = tallies[std::size_t(w)];
                ++tally.count;
                const std::size_t kind = c.mixed ? std::size_t(tally.kind) : 0;
                if (c.mixed)
                    ++tally.mixCounts[kind];
                if (!clocked)
                    continue;
                const std::uint64_t now = clock.now();
                const std::uint64_t ns =
                    now > last ? clock.toNs(now - last) : 0; // cores' counters may differ by a tick
                if (m_options.latency)
                    (c.mixed ? mixLatencies[std::size_t(w) * kOps + kind] : latency).record(ns);
                if (firstByte && firstByte->atEnd) {
                    firstByte->histogram.record(ns);
                    firstByte->atEnd = false;
                }
                if (intervals)
                    intervals->record(w, now, ns, c.mixed ? mixBytes[kind] : opBytes);
                last = now;
                if (fixedTime && (now >= deadline || m_stop.stop_requested()))
                    break;
            }
        };
        // Runs worker w's requests through a device's queue: run(start, finish) asks start()
        // before each request (false once w's share or time is used up) and calls
        // finish(tick it started) as each completes.
        auto queueLoop = [&](int w, auto &&run) {
            const std::uint64_t to = fixedTime ? UINT64_MAX : n * std::uint64_t(w + 1) / std::uint64_t(workers);
            std::uint64_t issued = fixedTime ? 0 : n * std::uint64_t(w) / std::uint64_t(workers);
            auto &latency = latencies[std::size_t(w)];
            Timeline *intervals = timeline ? &*timeline : nullptr;
            const TickClock &clock = TickClock::instance();
            const std::uint64_t deadline =
                clock.now() + clock.fromNs(std::uint64_t(std::max<std::int64_t>(0, duration.count())));
            bool over = false;
            const auto start = [&]() {
                over = over || issued >= to || failed.load(std::memory_order_relaxed)
                    || (fixedTime && (clock.now() >= deadline || m_stop.stop_requested()));
                issued += over ? 0 : 1;
                return !over;
            };
            const auto finish = [&](std::uint64_t started) {
                ++tallies[std::size_t(w)].count;
                const std::uint64_t now = clock.now();
                const std::uint64_t ns = now > started ? clock.toNs(now - started) : 0;
                if (m_options.latency)
                    latency.record(ns);
                if (intervals)
                    intervals->record(w, now, ns, opBytes);
            };
            if (Status st = run(start, finish); !st) {
                std::lock_guard lock(errorMutex);
                if (!firstError)
                    firstError = std::move(st).error();
                failed = true;
            }
        };
        std::function<void(int)> body;
        if (queued) {
            setUpQueuedBlock(target, c, queueLoop, body);
        } else if (c.block) {
            if (!setUpBlock(target, c, workers, loop, body, m))
                return m;
        } else if (c.mixed) {
            if (!setUpMixed(target, c, workers, loop, body, m, firstBytes, tallies))
                return m;
        } else if (!setUpObjects(target, c, n, workers, loop, body, m, firstBytes)) {
            return m;
        }
        const TickClock &clock = TickClock::instance();

        // Each worker's CPU time against its wall time: a client busy all the time may be
        // what sets the pace (bench_flags.h).
        std::vector<double> busy(static_cast<std::size_t>(workers), 0);
        auto timedBody = [&](int w) {
            timespec cpu0{}, cpu1{};
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
            const auto wall0 = std::chrono::steady_clock::now();
            body(w);
            if (timeline)
                timeline->done(w, clock.now());
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
            const double cpu = double(cpu1.tv_sec - cpu0.tv_sec) + double(cpu1.tv_nsec - cpu0.tv_nsec) / 1e9;
            busy[std::size_t(w)] = wall > 0 ? cpu / wall : 0;
        };
        std::latch start(1);
        std::latch done(workers > 1 ? workers : 0);
        std::vector<std::jthread> pool;
        if (workers > 1)
            for (int w = 0; w < workers; ++w)
                pool.emplace_back([&, w] {
                    start.wait();
                    timedBody(w);
                    done.count_down();
                });
        // Set up, workers waiting: a benchmark from many hosts waits here for their
        // common start.
        if (m_options.startGate && !m_options.startGate()) {
            failed = true; // the workers leave at once
            start.count_down();
            pool.clear();
            m.error = Error(ErrorKind::Cancelled, "stopped before the run's common start");
            return m;
        }
        // The timeline's clock starts with the run (after the gate: the hosts of a run
        // from many count their intervals from one moment). Workers read it after the latch.
        if (fixedTime && m_timeline && m_options.timelineInterval.count() > 0) {
            TimelinePoint identity;
            identity.benchmark = c.name;
            identity.run = m_round;
            identity.target = m_target;
            timeline.emplace(workers, clock.now(), clock.fromNs(std::uint64_t(m_options.timelineInterval.count())),
                             std::move(identity), m_timeline, m_options.timelineHistograms);
        }

        const AllocCounts before = allocCounts();
        setAllocCounting(true);
        const auto t0 = std::chrono::steady_clock::now();
        if (workers > 1) {
            start.count_down();
            done.wait();
        } else {
            timedBody(0);
        }
        const auto t1 = std::chrono::steady_clock::now();
        setAllocCounting(false);
        if (timeline)
            timeline->finish(clock.now());
        const AllocCounts after = allocCounts();
        pool.clear();
        m.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
        m.allocs = {after.allocs - before.allocs, after.bytes - before.bytes};
        for (const auto &tally : tallies)
            m.iterations += tally.count;
        m.busy = *std::max_element(busy.begin(), busy.end());
        for (const auto &l : latencies)
            m.latency.merge(l);
        if (c.mixed) {
            m.perOp.resize(kOps);
            for (std::size_t i = 0; i < mixSlots; ++i) {
                auto &stats = m.perOp[i % kOps];
                stats.count += tallies[i / kOps].mixCounts[i % kOps];
                if (!mixLatencies.empty())
                    stats.latency.merge(mixLatencies[i]);
            }
            for (const auto &l : firstBytes)
                m.perOp[std::size_t(BenchOp::Read)].firstByte.merge(l.histogram);
        } else {
            for (const auto &l : firstBytes)
                m.firstByte.merge(l.histogram);
        }
        if (firstError)
            m.error = std::move(*firstError);
        return m;
    }

    // Objects: the fixture a read or stat needs, one key per worker, the victims a delete
    // removes (made untimed); `body` runs worker w's operations.
    template <typename Loop>
    bool setUpObjects(Target &target, const Case &c, std::uint64_t n, int workers, Loop &loop,
                      std::function<void(int)> &body, Measure &m, std::vector<FirstByteSink> &firstBytes)
    {
        Operator &op = target.op();
        const auto payload = std::span(m_payload).first(std::size_t(c.size));
        std::string fixture;
        if (c.op == BenchOp::Read || c.op == BenchOp::Stat) {
            auto f = target.fixture(c.op == BenchOp::Stat ? 1 : c.size, m_payload);
            if (!f) {
                m.error = std::move(f).error();
                return false;
            }
            fixture = *f;
        } else if (c.op == BenchOp::List) {
            auto d = target.listDir();
            if (!d) {
                m.error = std::move(d).error();
                return false;
            }
            fixture = *d;
        }
        auto keys = std::make_shared<std::vector<std::string>>(static_cast<std::size_t>(workers));
        for (int w = 0; w < workers; ++w)
            (*keys)[std::size_t(w)] =
                target.path(std::string(toString(c.op)) + "-" + sizeLabel(c.size) + "-" + std::to_string(w));
        auto victims = std::make_shared<std::vector<std::string>>(); // delete: one per iteration
        if (c.op == BenchOp::Delete) {
            victims->reserve(std::size_t(n));
            for (std::uint64_t i = 0; i < n; ++i) {
                victims->push_back(target.path("delete-" + std::to_string(i)));
                if (auto st = op.writeAll(victims->back(), payload); !st) {
                    m.error = std::move(st).error();
                    return false;
                }
            }
        }
        // Reads land in page-aligned buffers: where the heap happens to put them would
        // otherwise change the copy's speed from one run to the next.
        auto buffers = std::make_shared<std::vector<AlignedBuffer>>(std::size_t(workers));
        if (c.op == BenchOp::Read)
            for (auto &b : *buffers)
                b = AlignedBuffer(std::size_t(c.size), 4096);
        const bool timed = m_options.latency;
        body = [&op, &loop, &firstBytes, timed, c, payload, fixture, keys, victims, buffers](int w) {
            const std::string &key = (*keys)[std::size_t(w)];
            const auto buffer = (*buffers)[std::size_t(w)].span();
            loop(w, [&](std::uint64_t i, std::uint64_t start) -> Status {
                switch (c.op) {
                case BenchOp::Write: return op.writeAll(key, payload);
                case BenchOp::Read:
                    return readWhole(op, fixture, buffer, start, timed ? &firstBytes[std::size_t(w)] : nullptr);
                case BenchOp::Stat: {
                    auto e = op.stat(fixture);
                    return e ? Status() : Status(std::move(e).error());
                }
                case BenchOp::List: {
                    ListOptions options;
                    auto page = op.list(fixture, options);
                    return page ? Status() : Status(std::move(page).error());
                }
                case BenchOp::Delete: return op.remove((*victims)[std::size_t(i)]);
                }
                return {};
            });
        };
        return true;
    }

    // A mixed run (warp's mixed mode): each worker draws every operation by the weights
    // from its own pool of objects (kMixPreload written untimed; writes add new ones up to
    // kMixCap, then overwrite one; deletes take one out; a read, stat or delete with the
    // pool empty writes instead). Pools are per worker: no lock, and no worker reads what
    // another deletes.
    template <typename Loop>
    bool setUpMixed(Target &target, const Case &c, int workers, Loop &loop, std::function<void(int)> &body, Measure &m,
                    std::vector<FirstByteSink> &firstBytes, std::vector<WorkerTally> &tallies)
    {
        constexpr std::size_t kMixPreload = 16, kMixCap = 256;
        Operator &op = target.op();
        const auto payload = std::span(m_payload).first(std::size_t(c.size));
        auto pools = std::make_shared<std::vector<std::vector<std::string>>>(std::size_t(workers));
        for (int w = 0; w < workers; ++w)
            for (std::size_t i = 0; i < kMixPreload; ++i) {
                auto name = target.path("mix-" + std::to_string(w) + "-" + std::to_string(i));
                if (auto st = op.writeAll(name, payload); !st) {
                    m.error = std::move(st).error();
                    return false;
                }
                (*pools)[std::size_t(w)].push_back(std::move(name));
            }
        // Cumulative weights: draw r in [0, total) and take the first op whose bound exceeds it.
        auto bounds = std::make_shared<std::vector<std::pair<std::uint64_t, BenchOp>>>();
        std::uint64_t total = 0;
        for (const auto &[o, weight] : m_options.mix) {
            total += std::uint64_t(weight);
            bounds->emplace_back(total, o);
        }
        auto buffers = std::make_shared<std::vector<AlignedBuffer>>(std::size_t(workers));
        for (auto &b : *buffers)
            b = AlignedBuffer(std::size_t(c.size), 4096);
        const bool timed = m_options.latency;
        body = [&op, &loop, &firstBytes, &tallies, &target, timed, c, payload, pools, bounds, total, buffers](int w) {
            auto &pool = (*pools)[std::size_t(w)];
            const auto buffer = (*buffers)[std::size_t(w)].span();
            std::uint64_t state = 0x9E3779B97F4A7C15ull * std::uint64_t(w + 1) ^ randomU64();
            auto next = [&state] { // xorshift64*
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                return state * 0x2545F4914F6CDD1Dull;
            };
            std::uint64_t made = pool.size();
            loop(w, [&](std::uint64_t, std::uint64_t start) -> Status {
                const std::uint64_t r = next() % total;
                BenchOp o =
                    std::find_if(bounds->begin(), bounds->end(), [r](const auto &b) { return r < b.first; })->second;
                if (o != BenchOp::Write && pool.empty())
                    o = BenchOp::Write;
                tallies[std::size_t(w)].kind = int(o);
                switch (o) {
                case BenchOp::Write:
                    if (pool.size() >= kMixCap)
                        return op.writeAll(pool[next() % pool.size()], payload);
                    pool.push_back(target.path("mix-" + std::to_string(w) + "-" + std::to_string(made++)));
                    return op.writeAll(pool.back(), payload);
                case BenchOp::Read:
                    return readWhole(op, pool[next() % pool.size()], buffer, start,
                                     timed ? &firstBytes[std::size_t(w)] : nullptr);
                case BenchOp::Stat: {
                    auto e = op.stat(pool[next() % pool.size()]);
                    return e ? Status() : Status(std::move(e).error());
                }
                case BenchOp::Delete: {
                    const std::size_t i = std::size_t(next() % pool.size());
                    std::string name = std::move(pool[i]);
                    pool[i] = std::move(pool.back());
                    pool.pop_back();
                    return op.remove(name);
                }
                case BenchOp::List: break;
                }
                return Error(ErrorKind::InvalidInput, "list has no place in a mix");
            });
        };
        return true;
    }

    // A disk image that keeps its queue from one thread: `c.concurrency` workers, each
    // keeping `c.queueDepth` requests in flight through the device's queue, as fio's nbd
    // and io_uring engines; each request's latency runs from its issue to its completion.
    template <typename QueueLoop>
    void setUpQueuedBlock(Target &target, const Case &c, QueueLoop &queueLoop, std::function<void(int)> &body)
    {
        if (c.op == BenchOp::Write)
            target.markWritten();
        const BlockPicker picker(target, c);
        const std::size_t depth = std::size_t(std::max(1, c.queueDepth));
        const bool write = c.op == BenchOp::Write;
        body = [this, &target, &queueLoop, picker, depth, write](int w) {
            BlockDevice &device = target.device();
            std::vector<AlignedBuffer> buffers;
            buffers.reserve(depth);
            for (std::size_t i = 0; i < depth; ++i) {
                buffers.emplace_back(std::size_t(picker.bs), device.alignment());
                if (write)
                    std::memcpy(buffers.back().data.get(), m_payload.data(), std::size_t(picker.bs));
            }
            std::vector<std::uint64_t> started(depth, 0);
            std::atomic<std::uint64_t> cursor{0};
            std::uint64_t state = 0x9E3779B97F4A7C15ull * std::uint64_t(w + 1) ^ randomU64();
            queueLoop(w, [&](auto &&start, auto &&finish) {
                IoQueue queue;
                queue.depth = depth;
                queue.next = [&](IoQueue::Request &r) {
                    if (!start())
                        return false;
                    r.offset = picker.offset(w, state, cursor);
                    r.buffer = buffers[r.slot].span();
                    started[r.slot] = TickClock::instance().now();
                    return true;
                };
                queue.done = [&](const IoQueue::Request &r) { finish(started[r.slot]); };
                return device.runQueue(write, queue);
            });
        };
    }

    // A disk image: `c.concurrency` threads of `c.queueDepth` workers each (every worker
    // one request in flight), reading or writing blocks of the region at random, or each
    // thread walking its own slice of it in order, its workers taking the next block in turn.
    template <typename Loop>
    bool setUpBlock(Target &target, const Case &c, int workers, Loop &loop, std::function<void(int)> &body, Measure &)
    {
        BlockDevice &device = target.device();
        const std::size_t align = device.alignment();
        const BlockPicker picker(target, c);
        const std::uint64_t bs = c.size;
        const int threads = std::max(1, c.concurrency);
        const int depth = std::max(1, c.queueDepth);
        auto buffers = std::make_shared<std::vector<AlignedBuffer>>();
        buffers->reserve(std::size_t(workers));
        for (int w = 0; w < workers; ++w) {
            buffers->emplace_back(std::size_t(bs), align);
            if (c.op == BenchOp::Write)
                std::memcpy(buffers->back().data.get(), m_payload.data(), std::size_t(bs));
        }
        auto cursors = std::make_shared<std::vector<std::atomic<std::uint64_t>>>(std::size_t(threads));
        if (c.op == BenchOp::Write)
            target.markWritten();
        body = [&device, &loop, c, picker, depth, buffers, cursors](int w) {
            const auto buffer = (*buffers)[std::size_t(w)].span();
            const int thread = w / depth;
            auto &cursor = (*cursors)[std::size_t(thread)];
            std::uint64_t state = 0x9E3779B97F4A7C15ull * std::uint64_t(w + 1) ^ randomU64();
            loop(w, [&](std::uint64_t, std::uint64_t) -> Status {
                const std::uint64_t offset = picker.offset(thread, state, cursor);
                return c.op == BenchOp::Read ? device.readAt(offset, buffer) : device.writeAt(offset, buffer);
            });
        };
        return true;
    }

    const BenchOptions &m_options;
    std::stop_token m_stop;
    TimelineObserver m_timeline;
    int m_round = 0;
    int m_target = 0;
    std::vector<std::byte> m_payload;
};

} // namespace

Result<std::vector<std::vector<BenchRun>>> runBench(const std::vector<std::pair<Operator *, std::string>> &targets,
                                                    const BenchOptions &options, const std::stop_token &stop,
                                                    const BenchObserver &observer, const TimelineObserver &timeline)
{
    if (targets.empty())
        return Error(ErrorKind::InvalidInput, "nothing to benchmark");
    if (options.count < 1 || options.benchtime.count() <= 0 || options.ops.empty())
        return Error(ErrorKind::InvalidInput, "count and benchtime must be positive, and at least one operation named");
    for (const auto &entry : options.mix)
        if (entry.second <= 0 || entry.first == BenchOp::List
            || std::count_if(options.mix.begin(), options.mix.end(),
                             [&](const auto &m) { return m.first == entry.first; })
                > 1)
            return Error(ErrorKind::InvalidInput,
                         "a mix weighs write, read, stat and delete, each once, with positive weights");
    if (options.duration.count() > 0
        && std::find(options.ops.begin(), options.ops.end(), BenchOp::Delete) != options.ops.end())
        return Error(ErrorKind::InvalidInput,
                     "a fixed duration times writes, reads, stats and lists; each delete needs an object made "
                     "beforehand, as many as a fixed time cannot know: time deletes by iterations (benchtime)");
    std::vector<Target> prepared;
    prepared.reserve(targets.size());
    for (const auto &[op, base] : targets) {
        prepared.emplace_back(*op, base);
        Status st = prepared.back().prepare(options);
        if (st && prepared.back().block() != prepared.front().block())
            st = Error(ErrorKind::InvalidInput,
                       "a disk image is measured in blocks, other storage in objects: compare like with like");
        if (!st) {
            for (auto &t : prepared)
                t.cleanup();
            return std::move(st).error();
        }
    }
    std::vector<Case> cases;
    if (prepared.front().block()) {
        for (const auto &p : blockProfiles(options))
            cases.push_back({p.op, p.blockSize, p.threads, blockName(p), true, p.pattern, p.queueDepth});
    } else if (!options.mix.empty()) {
        const bool showConcurrency = options.concurrency.size() > 1
            || std::any_of(options.concurrency.begin(), options.concurrency.end(), [](int c) { return c != 1; });
        for (auto size : options.sizes)
            for (int c : options.concurrency) {
                std::string name("Mixed/");
                name.append(sizeLabel(size));
                if (showConcurrency)
                    name.append("/c=").append(std::to_string(c));
                Case mixed{BenchOp::Read, size, c, std::move(name)};
                mixed.mixed = true;
                cases.push_back(std::move(mixed));
            }
    } else {
        const bool showConcurrency = options.concurrency.size() > 1
            || std::any_of(options.concurrency.begin(), options.concurrency.end(), [](int c) { return c != 1; });
        for (auto op : options.ops) {
            const bool sized = op == BenchOp::Write || op == BenchOp::Read || op == BenchOp::Delete;
            const std::vector<std::uint64_t> sizes = sized ? options.sizes : std::vector<std::uint64_t>{0};
            for (auto size : sizes)
                for (int c : options.concurrency) {
                    std::string name(benchName(op));
                    // Appended piece by piece: "/" + … trips GCC 12's -Wrestrict at -O3.
                    if (sized)
                        name.append("/").append(sizeLabel(size));
                    if (showConcurrency)
                        name.append("/c=").append(std::to_string(c));
                    cases.push_back({op, size, c, std::move(name)});
                }
        }
    }
    Runner runner(options, stop, timeline);
    std::vector<std::vector<BenchRun>> results(targets.size());
    Status failure;
    for (int round = 0; round < options.count && failure && !stop.stop_requested(); ++round)
        for (const auto &c : cases) {
            for (std::size_t t = 0; t < prepared.size() && failure; ++t) {
                auto r = runner.run(prepared[t], c, round, int(t));
                if (!r) {
                    failure = std::move(r).error();
                    break;
                }
                for (auto &run : *r) {
                    if (observer)
                        observer(run);
                    results[t].push_back(std::move(run));
                }
            }
            if (!failure || stop.stop_requested())
                break;
        }
    for (auto &t : prepared)
        t.cleanup();
    if (!failure)
        return std::move(failure).error();
    if (stop.stop_requested())
        return Error(ErrorKind::Cancelled, "stopped; the objects it wrote were removed");
    return results;
}

} // namespace strata

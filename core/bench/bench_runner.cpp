#include "core/bench/bench_runner.h"

#include "core/bench/alloc_counter.h"
#include "core/bench/go_bench.h"
#include "core/storage/path.h"
#include "core/storage/random.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <latch>
#include <map>
#include <random>
#include <thread>

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
    return {{"p50-ns", r.latency.p50},
            {"p90-ns", r.latency.p90},
            {"p99-ns", r.latency.p99},
            {"p99.9-ns", r.latency.p999},
            {"max-ns", r.latency.max}};
}

std::string benchHistoryDir()
{
    // $XDG_DATA_HOME, else ~/.local/share (the XDG base directory rules).
    if (const char *data = std::getenv("XDG_DATA_HOME"); data && *data == '/')
        return std::string(data) + "/strata/bench";
    const char *home = std::getenv("HOME");
    return std::string(home && *home ? home : "") + "/.local/share/strata/bench";
}

namespace {
constexpr std::string_view kHistoryPrefix = "# strata bench of ";
} // namespace

std::string historyHeader(std::string_view target, std::string_view label)
{
    std::string h(kHistoryPrefix);
    h += target;
    if (!label.empty())
        h += " (" + std::string(label) + ")";
    return h + "\n";
}

std::string historyFileName(std::string_view stamp, std::string_view label, std::string_view target)
{
    // Letters, digits, '.' and '_' kept; every other run of characters one '-', none at the
    // ends; the scheme's "://" and a trailing '/' make no "-" of their own.
    std::string slug;
    for (const char c : label.empty() ? target : label) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_')
            slug.push_back(c);
        else if (!slug.empty() && slug.back() != '-')
            slug.push_back('-');
    }
    while (!slug.empty() && (slug.back() == '-' || slug.back() == '.'))
        slug.pop_back();
    if (slug.size() > 60)
        slug.resize(60);
    return std::string(stamp) + (slug.empty() ? "" : "-" + slug) + ".txt";
}

std::optional<HistoryHeader> parseHistoryHeader(std::string_view line)
{
    if (!line.starts_with(kHistoryPrefix))
        return std::nullopt;
    line.remove_prefix(kHistoryPrefix.size());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    HistoryHeader h;
    const auto open = line.rfind(" (");
    if (line.ends_with(')') && open != std::string_view::npos) {
        h.label = std::string(line.substr(open + 2, line.size() - open - 3));
        line = line.substr(0, open);
    }
    h.target = std::string(line);
    return h;
}

std::string relabelHistory(std::string_view text, std::string_view label)
{
    const auto end = text.find('\n');
    const std::string_view first = text.substr(0, end);
    if (auto h = parseHistoryHeader(first))
        return historyHeader(h->target, label) + std::string(end == std::string_view::npos ? "" : text.substr(end + 1));
    return historyHeader("", label) + std::string(text);
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

std::optional<BenchOp> parseBenchOp(std::string_view name)
{
    for (auto op : {BenchOp::Write, BenchOp::Read, BenchOp::Stat, BenchOp::List, BenchOp::Delete})
        if (toString(op) == name)
            return op;
    return std::nullopt;
}

namespace {

constexpr std::uint64_t kMaxIterations = 1'000'000'000;
constexpr int kListEntries = 100;

// Go's testing.predictN: aim for the goal, grow at most 100x, always make progress.
std::uint64_t predictN(std::int64_t goalNs, std::uint64_t prevIters, std::int64_t prevNs, std::uint64_t last)
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
    LatencyHistogram latency; // every operation's duration, all workers merged
    std::uint64_t iterations = 0;
    double busy = 0; // the busiest worker's CPU time over its wall time
    std::optional<Error> error;
};

std::string randomSuffix()
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::uint64_t bits = randomU64(); // 36^10 < 2^52: ten digits from one draw
    char s[10];
    for (char &c : s) {
        c = digits[bits % 36];
        bits /= 36;
    }
    return std::string(s, sizeof s);
}

// One target: its operator, its scratch directory and the objects prepared in it.
class Target {
public:
    Target(Operator &op, std::string base) : m_op(op), m_base(std::move(base)) {}

    Status prepare()
    {
        const auto caps = m_op.capabilities();
        if (caps.has(Capability::SingleObject))
            return Error(ErrorKind::Unsupported,
                         "benchmarks write objects of their own; an NBD export is one fixed image");
        if (!caps.has(Capability::Write) || !caps.has(Capability::Read))
            return Error(ErrorKind::Unsupported, "benchmarks need storage that can be written and read");
        if (caps.has(Capability::RealDirectories)) {
            // Into an existing directory only: a mistyped path must not grow new parents.
            auto there = m_op.stat(m_base);
            if (!there)
                return std::move(there).error();
            if (!there->isDir())
                return Error(ErrorKind::NotDirectory, "benchmarks run in a directory")
                    .withContext("bench", m_op.display(m_base));
        }
        m_dir = joinPath(m_base, "strata-bench-" + randomSuffix());
        if (caps.has(Capability::CreateDir))
            if (auto st = m_op.createDir(m_dir, true); !st)
                return st;
        return {};
    }

    void cleanup()
    {
        if (!m_dir.empty())
            (void)m_op.removeAll(m_dir);
    }

    Operator &op() { return m_op; }
    std::string path(std::string_view name) const { return joinPath(m_dir, name); }

    // An object of `size` bytes for reads and stats, written once.
    Result<std::string> fixture(std::uint64_t size, const std::vector<std::byte> &data)
    {
        auto it = m_fixtures.find(size);
        if (it != m_fixtures.end())
            return it->second;
        std::string p = path("read-" + sizeLabel(size));
        if (auto st = m_op.writeAll(p, std::span(data).first(std::size_t(size))); !st)
            return std::move(st).error();
        m_fixtures.emplace(size, p);
        return p;
    }

    // A directory of kListEntries small objects, written once.
    Result<std::string> listDir()
    {
        if (!m_list.empty())
            return m_list;
        std::string dir = path("list");
        if (m_op.capabilities().has(Capability::CreateDir))
            if (auto st = m_op.createDir(dir, true); !st)
                return std::move(st).error();
        const std::byte one[1] = {std::byte{1}};
        for (int i = 0; i < kListEntries; ++i) {
            std::string name("e");
            name.append(std::to_string(i)); // "e" + … trips GCC 12's -Wrestrict at -O3
            if (auto st = m_op.writeAll(joinPath(dir, name), one); !st)
                return std::move(st).error();
        }
        m_list = dir;
        return dir;
    }

private:
    Operator &m_op;
    std::string m_base;
    std::string m_dir;
    std::map<std::uint64_t, std::string> m_fixtures;
    std::string m_list;
};

struct Case {
    BenchOp op;
    std::uint64_t size;
    int concurrency;
    std::string name;
};

class Runner {
public:
    Runner(const BenchOptions &options, std::stop_token stop) : m_options(options), m_stop(std::move(stop))
    {
        std::uint64_t largest = 1;
        for (auto s : options.sizes)
            largest = std::max(largest, s);
        m_payload.resize(std::size_t(largest));
        std::mt19937_64 gen(42);
        for (auto &b : m_payload)
            b = std::byte(gen());
    }

    // One case, `count`-th run: grows n like Go until the run lasts about benchtime, or
    // (with a duration) runs every worker for that long.
    Result<BenchRun> run(Target &target, const Case &c)
    {
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
        return r;
    }

private:
    // Runs n iterations of the case split over its workers, or (`duration` > 0) every
    // worker until it has spent that long in operations; only the loop is timed and counted
    // (setup and thread start-up are not).
    Measure measure(Target &target, const Case &c, std::uint64_t n, std::chrono::nanoseconds duration = {})
    {
        const bool fixedTime = duration.count() > 0;
        Measure m;
        Operator &op = target.op();
        const auto payload = std::span(m_payload).first(std::size_t(c.size));
        std::string fixture;
        if (c.op == BenchOp::Read || c.op == BenchOp::Stat) {
            auto f = target.fixture(c.op == BenchOp::Stat ? 1 : c.size, m_payload);
            if (!f) {
                m.error = std::move(f).error();
                return m;
            }
            fixture = *f;
        } else if (c.op == BenchOp::List) {
            auto d = target.listDir();
            if (!d) {
                m.error = std::move(d).error();
                return m;
            }
            fixture = *d;
        }
        const int workers = std::max(1, c.concurrency);
        std::vector<std::string> keys(static_cast<std::size_t>(workers));
        for (int w = 0; w < workers; ++w)
            keys[std::size_t(w)] =
                target.path(std::string(toString(c.op)) + "-" + sizeLabel(c.size) + "-" + std::to_string(w));
        std::vector<std::string> victims; // delete: one object per iteration, made untimed
        if (c.op == BenchOp::Delete) {
            victims.reserve(std::size_t(n));
            for (std::uint64_t i = 0; i < n; ++i) {
                victims.push_back(target.path("delete-" + std::to_string(i)));
                if (auto st = op.writeAll(victims.back(), payload); !st) {
                    m.error = std::move(st).error();
                    return m;
                }
            }
        }
        std::vector<std::vector<std::byte>> buffers(static_cast<std::size_t>(workers));
        // One histogram per worker, allocated here: recording allocates and locks nothing.
        std::vector<LatencyHistogram> latencies(static_cast<std::size_t>(workers));
        if (c.op == BenchOp::Read)
            for (auto &b : buffers)
                b.resize(std::size_t(c.size));

        std::vector<std::uint64_t> counts(static_cast<std::size_t>(workers), 0);
        std::atomic<bool> failed{false};
        std::optional<Error> firstError;
        std::mutex errorMutex;
        auto body = [&](int w) {
            const std::uint64_t from = fixedTime ? 0 : n * std::uint64_t(w) / std::uint64_t(workers);
            const std::uint64_t to = fixedTime ? UINT64_MAX : n * std::uint64_t(w + 1) / std::uint64_t(workers);
            auto fail = [&](Error e) {
                std::lock_guard lock(errorMutex);
                if (!firstError)
                    firstError = std::move(e);
                failed = true;
            };
            const std::string &key = keys[std::size_t(w)];
            auto &buffer = buffers[std::size_t(w)];
            auto &latency = latencies[std::size_t(w)];
            // One clock reading per operation: each one ends the last and starts the next.
            auto last = std::chrono::steady_clock::now();
            const auto deadline = last + duration;
            for (std::uint64_t i = from; i < to && !failed.load(std::memory_order_relaxed); ++i) {
                switch (c.op) {
                case BenchOp::Write:
                    if (auto st = op.writeAll(key, payload); !st)
                        return fail(std::move(st).error());
                    break;
                case BenchOp::Read: {
                    std::uint64_t pos = 0;
                    while (pos < c.size) {
                        auto got = op.read(fixture, pos, std::span(buffer).subspan(std::size_t(pos)));
                        if (!got)
                            return fail(std::move(got).error());
                        if (*got == 0)
                            return fail(Error(ErrorKind::Corrupt, "the object read back shorter than it was written"));
                        pos += *got;
                    }
                    break;
                }
                case BenchOp::Stat:
                    if (auto e = op.stat(fixture); !e)
                        return fail(std::move(e).error());
                    break;
                case BenchOp::List: {
                    ListOptions options;
                    auto page = op.list(fixture, options);
                    if (!page)
                        return fail(std::move(page).error());
                    break;
                }
                case BenchOp::Delete:
                    if (auto st = op.remove(victims[std::size_t(i)]); !st)
                        return fail(std::move(st).error());
                    break;
                }
                const auto now = std::chrono::steady_clock::now();
                latency.record(std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last).count()));
                last = now;
                ++counts[std::size_t(w)];
                if (fixedTime && (now >= deadline || m_stop.stop_requested()))
                    break;
            }
        };

        // Each worker's CPU time against its wall time: a client busy all the time may be
        // what sets the pace (bench_flags.h).
        std::vector<double> busy(static_cast<std::size_t>(workers), 0);
        auto timedBody = [&](int w) {
            timespec cpu0{}, cpu1{};
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
            const auto wall0 = std::chrono::steady_clock::now();
            body(w);
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
        const AllocCounts after = allocCounts();
        pool.clear();
        m.ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
        m.allocs = {after.allocs - before.allocs, after.bytes - before.bytes};
        for (const auto count : counts)
            m.iterations += count;
        m.busy = *std::max_element(busy.begin(), busy.end());
        for (const auto &l : latencies)
            m.latency.merge(l);
        if (firstError)
            m.error = std::move(*firstError);
        return m;
    }

    const BenchOptions &m_options;
    std::stop_token m_stop;
    std::vector<std::byte> m_payload;
};

} // namespace

Result<std::vector<std::vector<BenchRun>>> runBench(const std::vector<std::pair<Operator *, std::string>> &targets,
                                                    const BenchOptions &options, const std::stop_token &stop,
                                                    const BenchObserver &observer)
{
    if (targets.empty())
        return Error(ErrorKind::InvalidInput, "nothing to benchmark");
    if (options.count < 1 || options.benchtime.count() <= 0 || options.ops.empty())
        return Error(ErrorKind::InvalidInput, "count and benchtime must be positive, and at least one operation named");
    if (options.duration.count() > 0
        && std::find(options.ops.begin(), options.ops.end(), BenchOp::Delete) != options.ops.end())
        return Error(ErrorKind::InvalidInput,
                     "a fixed duration times writes, reads, stats and lists; each delete needs an object made "
                     "beforehand, as many as a fixed time cannot know: time deletes by iterations (benchtime)");
    std::vector<Case> cases;
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
    std::vector<Target> prepared;
    prepared.reserve(targets.size());
    for (const auto &[op, base] : targets) {
        prepared.emplace_back(*op, base);
        if (auto st = prepared.back().prepare(); !st) {
            for (auto &t : prepared)
                t.cleanup();
            return std::move(st).error();
        }
    }
    Runner runner(options, stop);
    std::vector<std::vector<BenchRun>> results(targets.size());
    Status failure;
    for (int round = 0; round < options.count && failure && !stop.stop_requested(); ++round)
        for (const auto &c : cases) {
            for (std::size_t t = 0; t < prepared.size() && failure; ++t) {
                auto r = runner.run(prepared[t], c);
                if (!r) {
                    failure = std::move(r).error();
                    break;
                }
                if (observer)
                    observer(*r);
                results[t].push_back(std::move(*r));
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

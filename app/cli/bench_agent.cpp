// `strata bench --agent`: one host of a benchmark run from many (issue 44), started by the
// coordinator over OpenSSH and driven over its stdin and stdout, one JSON object a line
// (core/bench/bench_hosts.h). It says hello (protocol, version, host name), answers clock
// readings at once, takes one run (the URI, the coordinator's bench options, and the
// environment that carries secrets: never a command line, never a file), waits at each
// measured run's start gate for the common start, streams the run's timeline interval by
// interval (histograms as buckets), and sends each result whole. Its stdin
// closing (the coordinator stopped, or its ssh died) stops the run; what it wrote is
// removed as after Ctrl+C.
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt_watch.h"
#include "app/version.h"
#include "core/bench/bench_hosts.h"
#include "core/bench/bench_runner.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>

namespace strata::cli {

namespace {

// The agent's side of the channel: lines out under a lock (the runner's thread and the
// reader's both write), lines in from a reader thread that answers clock readings at once
// and queues the rest.
class Channel {
public:
    explicit Channel(std::FILE *out) : m_out(out) {}

    void send(const json::Value &message)
    {
        const std::string line = json::write(message, json::Format::Compact) + "\n";
        std::lock_guard lock(m_writeMutex);
        std::fputs(line.c_str(), m_out);
        std::fflush(m_out);
    }

    // The reader runs until stdin closes, which may be after the agent's work is done: it
    // is detached, and the channel is never destroyed (see runBenchAgent).
    void start(std::function<void()> onClosed)
    {
        std::thread([this, onClosed = std::move(onClosed)] {
            std::string line;
            while (std::getline(std::cin, line)) {
                auto message = json::parse(line);
                if (!message || !message->is_object())
                    continue;
                if (json::get<std::string>(*message, "type", "") == "clock") {
                    send(json::Object{{"type", "clock"}, {"at", wallClockNs()}});
                    continue;
                }
                std::lock_guard lock(m_mutex);
                m_queue.push_back(std::move(*message));
                m_cv.notify_all();
            }
            {
                std::lock_guard lock(m_mutex);
                m_closed = true;
                m_cv.notify_all();
            }
            onClosed();
        }).detach();
    }

    // The next message (other than a clock reading); nullopt once stdin closed.
    std::optional<json::Value> next()
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [&] { return !m_queue.empty() || m_closed; });
        if (m_queue.empty())
            return std::nullopt;
        json::Value v = std::move(m_queue.front());
        m_queue.pop_front();
        return v;
    }

private:
    std::FILE *m_out;
    std::mutex m_writeMutex, m_mutex;
    std::condition_variable m_cv;
    std::deque<json::Value> m_queue;
    bool m_closed = false;
};

std::string hostName()
{
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return name;
}

} // namespace

int runBenchAgent(Context &context, const ArgParser &parser)
{
    // A write to a coordinator that is gone fails (EPIPE) rather than ending the process
    // before what the run wrote is removed.
    std::signal(SIGPIPE, SIG_IGN);
    // Never destroyed: its reader thread may outlast this function (stdin closes when the
    // coordinator is done with us). The stop source is shared with it by value.
    auto &channel = *new Channel(context.out);
    std::stop_source stop;
    InterruptWatch interrupts;
    interrupts.watch([&stop] { stop.request_stop(); });
    channel.send(json::Object{{"type", "hello"},
                              {"protocol", kBenchAgentProtocol},
                              {"version", std::string(STRATA_VERSION)},
                              {"host", hostName()}});
    channel.start([stop]() mutable { stop.request_stop(); });
    const auto failed = [&](const std::string &message) {
        channel.send(json::Object{{"type", "error"}, {"message", message}});
        return Failure;
    };

    auto run = channel.next();
    if (!run)
        return Failure; // the coordinator went before saying what to run
    if (json::get<std::string>(*run, "type", "") != "run")
        return failed("expected a run, got " + json::write(*run, json::Format::Compact));
    // The coordinator's environment (secrets included) before anything opens the URI.
    if (const auto env = run->find("env"); env != run->end() && env->is_object())
        for (const auto &[name, value] : env->items())
            if (value.is_string())
                ::setenv(name.c_str(), value.get<std::string>().c_str(), 1);
    const std::string uri = json::get<std::string>(*run, "uri", "");
    std::vector<std::string> args{"strata bench"};
    if (const auto given = run->find("args"); given != run->end() && given->is_array())
        for (const auto &a : *given)
            if (a.is_string())
                args.push_back(a.get<std::string>());
    args.push_back(uri);
    ArgParser benchArgs;
    benchArgs.addOptions(parser.options());
    if (!benchArgs.parse(args))
        return failed(benchArgs.errorText());
    BenchOptions options;
    if (auto wrong = parseBenchOptions(benchArgs, options))
        return failed(*wrong);
    if (options.duration.count() <= 0)
        return failed("runs on many hosts are fixed-time: give --duration");
    // Intervals streamed as they end (a few a second at most: their cost does not grow with
    // the operations), for the coordinator's live timeline.
    const std::int64_t interval = json::get<std::int64_t>(*run, "interval_ns", 0);
    if (interval > 0)
        options.timelineInterval = std::chrono::nanoseconds(std::max<std::int64_t>(interval, 10'000'000));
    options.timelineHistograms = true;
    auto location = context.open(uri);
    if (!location)
        return failed(location.error().message());

    // Each measured run: ready, then the coordinator's common start (this host's clock).
    std::atomic<int> index = -1; // read by the timeline's sampler too
    std::int64_t started = 0, late = 0;
    options.startGate = [&]() {
        ++index;
        if (stop.stop_requested())
            return false;
        channel.send(json::Object{{"type", "ready"}, {"run", index.load()}});
        for (;;) {
            auto message = channel.next();
            if (!message)
                return false;
            const std::string type = json::get<std::string>(*message, "type", "");
            if (type == "stop")
                return false;
            if (type == "go" && json::get<int>(*message, "run", -1) == index.load()) {
                // Until the moment asked, on the steady clock (a step of the wall clock
                // meanwhile moves nothing), in slices that look at the stop.
                const auto wait = std::chrono::nanoseconds(json::get<std::int64_t>(*message, "at", 0) - wallClockNs());
                const auto until = std::chrono::steady_clock::now() + wait;
                while (!stop.stop_requested()
                       && std::chrono::steady_clock::now() + std::chrono::milliseconds(50) < until)
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                std::this_thread::sleep_until(until);
                started = wallClockNs();
                late = started - json::get<std::int64_t>(*message, "at", 0);
                return !stop.stop_requested();
            }
        }
    };
    auto results = runBench(
        {{location->op.get(), location->path}}, options, stop.get_token(),
        [&](const BenchRun &r) {
            channel.send(json::Object{{"type", "result"},
                                      {"run", index.load()},
                                      {"started", started},
                                      {"late", late},
                                      {"data", benchRunToJson(r)}});
        },
        [&](const TimelinePoint &p) {
            channel.send(json::Object{{"type", "interval"}, {"run", index.load()}, {"data", timelinePointToJson(p)}});
        });
    if (!results)
        return failed(results.error().message());
    channel.send(json::Object{{"type", "done"}});
    return Success;
}

} // namespace strata::cli

// `strata bench URI --hosts h1,h2,…`: the same benchmark from many hosts at once (issue 44),
// run by core/bench/bench_fleet.h; here the options are read and the results printed: the
// merged lines as each case ends (under `host: all`), then each host's own (benchstat
// tells them apart by the host: key), the start skew, and the timeline (--timeline) with
// a line per interval for all hosts together and one per host.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt_watch.h"
#include "app/version.h"
#include "core/bench/bench_fleet.h"
#include "core/storage/backend_description.h"
#include "core/storage/error.h"
#include "core/storage/printable.h"
#include "core/storage/registry.h"
#include "core/storage/uri.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

namespace strata::cli {

namespace {

// The bench options given here that agents get too (the rest are the coordinator's).
const char *const kForwarded[] = {"ops",    "sizes",           "count",     "duration",    "concurrency",
                                  "mix",    "profile",         "pattern",   "queue-depth", "direct",
                                  "region", "allow-overwrite", "no-latency"};

} // namespace

int runBenchOnHosts(Context &context, const ArgParser &parser)
{
    // The hosts, from --hosts (separated by commas) and --hosts-file (a host a line; #
    // starts a comment).
    std::string given;
    for (const auto &list : parser.values("hosts"))
        given += list + "\n";
    if (parser.isSet("hosts-file")) {
        std::ifstream file(parser.value("hosts-file"));
        if (!file)
            return context.fail(errorFromErrno(errno).withContext("read", parser.value("hosts-file")));
        std::ostringstream text;
        text << file.rdbuf();
        given += text.str();
    }
    auto hosts = parseFleetHosts(given);
    if (!hosts)
        return context.usage(hosts.error().message());
    if (hosts->empty())
        return context.usage("--hosts names no host");
    if (parser.isSet("vs"))
        return context.usage("--hosts runs one location from every host: --vs is not for it");
    const std::string policy = parser.isSet("on-host-failure") ? parser.value("on-host-failure") : "stop";
    if (policy != "stop" && policy != "continue")
        return context.usage("--on-host-failure takes stop or continue");
    // Checked here first, as the agents will read them.
    BenchOptions options;
    if (auto wrong = parseBenchOptions(parser, options))
        return context.usage(*wrong);
    if (parser.isSet("benchtime"))
        return context.usage("runs on many hosts are fixed-time, to start and end together: give --duration");
    FleetPlan plan;
    plan.hosts = std::move(*hosts);
    for (const char *name : kForwarded) {
        if (!parser.isSet(name))
            continue;
        const auto option = std::find_if(parser.options().begin(), parser.options().end(),
                                         [&](const Option &o) { return o.names.front() == name; });
        plan.args.push_back(std::string("--") + name);
        if (option != parser.options().end() && !option->valueName.empty())
            plan.args.push_back(parser.value(name));
    }
    if (!parser.isSet("duration"))
        plan.args.insert(plan.args.end(), {"--duration", "1s"});
    plan.duration = options.duration.count() > 0 ? options.duration : std::chrono::seconds(1);
    if (options.timelineInterval.count() > 0)
        plan.interval = options.timelineInterval;
    plan.uri = parser.positionalArguments().front(); // to the agents only
    // What is printed and kept: no password or secret-looking query value.
    const auto parsedUri = Uri::parse(plan.uri);
    const std::string shown = parsedUri ? parsedUri->redacted() : printable(plan.uri);
    // The agents run this same version: an option its backend does not take is refused
    // here, before any host is asked (the message names the option, never its value).
    if (parsedUri)
        if (const BackendFactory *factory = context.registry.factory(parsedUri->scheme()))
            if (auto known = checkOptions(*parsedUri, factory->describe()); !known)
                return context.fail(known.error());
    auto ssh = splitCommand(parser.isSet("ssh") ? parser.value("ssh") : "ssh");
    if (!ssh || ssh->empty())
        return context.usage("--ssh takes a command, like 'ssh -F ~/.ssh/bench_config'");
    plan.launcher = std::move(*ssh);
    plan.strataPath = parser.isSet("strata-path") ? parser.value("strata-path") : "strata";
    plan.version = STRATA_VERSION;
    plan.env = fleetEnvironment();
    plan.continueOnFailure = policy == "continue";
    const std::string label = parser.value("label");

    // The timeline, line by line as intervals come (flushed: `tail -f` follows it).
    TimelineFile timeline(nullptr, &std::fclose);
    if (parser.isSet("timeline")) {
        timeline = openTimelineFile(parser.value("timeline"));
        if (!timeline)
            return context.fail(errorFromErrno(errno).withContext("write", parser.value("timeline")));
    }

    InterruptWatch interrupts;
    const bool json = parser.isSet("json");
    std::string text =
        benchGoHeader(shown, label) + "# on " + std::to_string(plan.hosts.size()) + " hosts\nhost: all\n";
    if (!json) {
        std::fputs(text.c_str(), context.out);
        std::fflush(context.out);
    }
    FleetObserver observer;
    observer.stopRequested = [&] { return interrupts.arrived(); };
    observer.merged = [&](const BenchRun &run) {
        const std::string line = benchGoLine(run);
        text += line;
        if (!json) {
            std::fputs(line.c_str(), context.out);
            std::fflush(context.out);
        }
    };
    if (timeline)
        observer.interval = [&](int host, const TimelinePoint &p) {
            const std::string &who = host < 0 ? std::string("all") : plan.hosts[std::size_t(host)].name;
            std::fputs(timelineCsvLine(p, who).c_str(), timeline.get());
            std::fflush(timeline.get());
        };
    auto report = runFleet(plan, observer);
    if (!report) {
        if (report.error().kind() == ErrorKind::Cancelled) {
            write(context.err, "strata bench: " + report.error().message() + "\n");
            return 130;
        }
        return context.fail(report.error());
    }

    // Each host's own lines (benchstat tells them apart by the host: key), the skew.
    std::string tail;
    for (const auto &h : report->hosts) {
        tail += "host: " + h.name + "\n";
        for (const auto &r : h.runs)
            tail += benchGoLine(r);
    }
    char skew[160];
    std::snprintf(skew, sizeof skew, "# start skew: at most %.2f ms; clocks read within %.2f ms\n",
                  double(report->largestSkew) / 1e6, double(report->clockWithin) / 1e6);
    tail += skew;
    for (const auto &h : report->hosts)
        if (!h.failure.empty())
            tail += "# left: " + printable(h.name) + ": " + h.failure + "\n";
    if (!json)
        std::fputs(tail.c_str(), context.out);
    keepBenchHistory(context, label, {{shown, text + tail}});
    if (json) {
        json::Array runs, hostList, skews;
        for (const auto &r : report->merged)
            runs.push_back(benchRunToJson(r));
        for (const auto ns : report->skews)
            skews.push_back(ns);
        for (const auto &h : report->hosts) {
            json::Array own;
            for (const auto &r : h.runs)
                own.push_back(benchRunToJson(r));
            hostList.push_back(json::Object{{"host", h.name},
                                            {"start_late_ns", h.late},
                                            {"starts_ns", h.starts},
                                            {"hostname", h.hostname},
                                            {"clock_offset_ns", h.clock.offset},
                                            {"clock_uncertainty_ns", h.clock.uncertainty},
                                            {"failure", h.failure},
                                            {"runs", std::move(own)}});
        }
        writeJson(context.out,
                  json::Object{{"label", label},
                               {"uri", shown},
                               {"start_skew_ns", report->largestSkew},
                               {"start_skews_ns", std::move(skews)},
                               {"runs", std::move(runs)},
                               {"hosts", std::move(hostList)}});
    }
    std::fflush(context.out);
    return Success;
}

} // namespace strata::cli

#pragma once

// One benchmark from many hosts at once (issue 44), for `strata bench --hosts` and the
// bench page alike. No daemon and no port of ours: each host runs `strata bench --agent`
// started through OpenSSH (the user's ssh, config, agent, keys and known_hosts; another
// launcher replaces it as rsync's -e does), and the coordinator speaks to it over that
// channel, one JSON object a line (app/cli/bench_agent.cpp). Before anything runs every
// host says its protocol and version, and its clock is read a few times (its offset from
// ours, as NTP estimates it). Then every measured run starts on every host at one moment
// of our clock, each host's own reading of it given; the runs of one case, and the
// intervals of its timeline, are merged exactly (bench_hosts.h). A host that fails is
// named; FleetPlan::continueOnFailure says whether the others go on. A stop ends every
// agent (its stdin closes: it removes what it wrote and ends), then the launchers.
#include "core/bench/bench_hosts.h"
#include "core/bench/timeline.h"
#include "core/io/json.h"
#include "core/storage/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

// One host: "[user@]host[:port]" ("[v6]:port" for an IPv6 address).
struct FleetHost {
    std::string name; // as given
    std::string destination;
    std::string port;
};
// nullopt for text that is no host, or whose parts could be taken for a launcher's option
// (a leading '-') or hold blanks, slashes, quotes or backslashes.
std::optional<FleetHost> parseFleetHost(std::string_view text);
// Hosts from a list separated by commas, blanks or line breaks ('#' starts a comment that
// runs to the line's end); the first that is no host is named in the error.
Result<std::vector<FleetHost>> parseFleetHosts(std::string_view text);

// Words of a command as a shell would split it (quotes group, a backslash escapes), for
// `--ssh 'ssh -F cfg -o X=y'`; nothing is expanded. nullopt for an open quote.
std::optional<std::vector<std::string>> splitCommand(std::string_view text);

struct FleetPlan {
    std::vector<FleetHost> hosts;
    // ssh (by its basename) gets `-T -o BatchMode=yes [-p PORT] -- DEST 'STRATA' bench
    // --agent`; any other launcher (srun -w, kubectl exec -i, a script) `LAUNCHER NAME
    // STRATA bench --agent`, each word its own argument.
    std::vector<std::string> launcher{"ssh"};
    std::string strataPath = "strata";
    std::string version;           // the one every agent must run (ours)
    std::string uri;               // to the agents only: it may hold a secret
    std::vector<std::string> args; // the bench options the agents get (--duration among them)
    json::Object env;              // the environment they get (secrets: never a command line)
    std::chrono::nanoseconds duration{std::chrono::seconds(1)}; // of one measured run
    std::chrono::nanoseconds interval{std::chrono::seconds(1)}; // of the timeline they stream
    bool continueOnFailure = false;
};

// The environment an agent gets: every STRATA_* and AWS_* variable of ours.
json::Object fleetEnvironment();

struct FleetHostReport {
    std::string name;     // as given
    std::string hostname; // as the host says
    std::string version;
    ClockOffset clock;
    std::string failure;              // why it left (empty: it ran to the end)
    std::vector<BenchRun> runs;       // its own, in order
    std::vector<std::int64_t> starts; // each measured run's start, our clock (ns since the epoch)
    std::vector<std::int64_t> late;   // how long after the moment asked for each started (its clock)
};

struct FleetReport {
    std::vector<BenchRun> merged; // one per case (per operation drawn, in a mix)
    std::vector<FleetHostReport> hosts;
    std::vector<std::int64_t> skews; // per measured run: the last host's start after the first's
    std::int64_t largestSkew = 0;
    std::int64_t clockWithin = 0; // the clocks were read within this (the slowest half round trip)
};

struct FleetObserver {
    std::function<bool()> stopRequested;          // asked every 100 ms at most
    std::function<void(const BenchRun &)> merged; // each case's merged run, as it is merged
    // Each host's intervals (its index in the plan) as they come, and all hosts' together
    // (-1) once every host running has sent it.
    std::function<void(int host, const TimelinePoint &)> interval;
};

// Runs the plan. Errors: a host refused or lost before anything ran (all named), a host
// failed while continueOnFailure is false, or ErrorKind::Cancelled once stopRequested said
// so (the agents were told to remove what they wrote).
Result<FleetReport> runFleet(const FleetPlan &plan, const FleetObserver &observer);

// Each host reached as a run would (hello, version, clock), and let go with nothing run:
// what the bench page's Test shows. `stopRequested` may be empty.
std::vector<FleetHostReport> checkFleet(const FleetPlan &plan, const std::function<bool()> &stopRequested);

} // namespace strata

// `strata bench URI --hosts h1,h2,…`: the same benchmark from many hosts at once (issue 44).
// No daemon and no port of ours: each host runs `strata bench --agent` started through
// OpenSSH (the user's ssh, config, agent, keys and known_hosts; `--ssh` replaces the
// command as rsync's -e does), and the coordinator speaks to it over that channel, one
// JSON object a line (bench_agent.cpp). Before anything runs every host says its protocol
// and version, and its clock is read a few times (its offset from ours, as NTP estimates
// it). Then every measured run starts on every host at one moment of our clock, each
// host's own reading of it given; the runs of one case are merged exactly
// (core/bench/bench_hosts.h). A host that fails is named; --on-host-failure says whether
// the others go on. Ctrl+C stops every agent (its stdin closes: it removes what it wrote
// and ends), then the ssh processes.
#include "core/bench/bench_hosts.h"
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt_watch.h"
#include "app/version.h"
#include "core/storage/error.h"
#include "core/storage/printable.h"
#include "core/storage/uri.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace strata::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Words of a command as a shell would split it (quotes group, a backslash escapes), for
// --ssh 'ssh -F cfg -o X=y'; nothing is expanded.
std::optional<std::vector<std::string>> splitCommand(std::string_view text)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            if (c == quote)
                quote = 0;
            else if (c == '\\' && quote == '"' && i + 1 < text.size())
                word += text[++i];
            else
                word += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            word += text[++i];
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord)
                words.push_back(std::move(word));
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (quote)
        return std::nullopt;
    if (inWord)
        words.push_back(std::move(word));
    return words;
}

// A word for the remote shell, quoted.
std::string shellQuoted(std::string_view word)
{
    std::string out = "'";
    for (char c : word)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// One host: "[user@]host[:port]" ("[v6]:port" for an IPv6 address).
struct HostSpec {
    std::string name; // as given
    std::string destination;
    std::string port;
};

std::optional<HostSpec> parseHost(std::string_view text)
{
    HostSpec h;
    h.name = std::string(text);
    const auto at = text.rfind('@');
    const std::string_view user = at == std::string_view::npos ? std::string_view() : text.substr(0, at + 1);
    std::string_view rest = at == std::string_view::npos ? text : text.substr(at + 1);
    std::string_view host = rest;
    if (rest.starts_with('[')) {
        const auto close = rest.find(']');
        if (close == std::string_view::npos)
            return std::nullopt;
        host = rest.substr(1, close - 1);
        if (close + 1 < rest.size()) {
            if (rest[close + 1] != ':')
                return std::nullopt;
            h.port = std::string(rest.substr(close + 2));
        }
    } else if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
        host = rest.substr(0, colon);
        h.port = std::string(rest.substr(colon + 1));
    }
    // A name, never an option of the launcher's: no leading '-', no blank, no '/'.
    const auto plain = [](std::string_view part) {
        return !part.starts_with('-') && part.find_first_of(" \t\n/'\"\\") == std::string_view::npos;
    };
    if (host.empty() || !plain(host) || !plain(user) || !plain(h.port))
        return std::nullopt;
    if (!h.port.empty()
        && (h.port.size() > 5 || h.port.find_first_not_of("0123456789") != std::string::npos || std::stoi(h.port) < 1
            || std::stoi(h.port) > 65535))
        return std::nullopt;
    h.destination = std::string(user) + std::string(host);
    return h;
}

struct Agent {
    HostSpec spec;
    pid_t pid = -1;
    int in = -1, out = -1, err = -1;
    std::string pending; // stdout not yet a whole line
    std::string errText; // what ssh or the agent said on stderr (its last 4 KiB)
    std::string failure; // why it left (empty while it runs)
    std::string version, host;
    int protocol = 0;
    bool hello = false, done = false;
    int ready = -1;             // the run it waits to start
    std::int64_t clockSent = 0; // our clock when the last reading was asked
    std::vector<ClockSample> clockSamples;
    ClockOffset clock;
    std::map<int, std::int64_t> started;       // run → its start, its clock
    std::map<int, std::int64_t> late;          // run → its start after the one asked for
    std::map<int, std::vector<BenchRun>> runs; // run → its results
    bool alive() const { return failure.empty(); }
    // The last line it said on stderr, printable: ssh's and the remote shell's reasons.
    std::string said() const
    {
        std::string_view text = errText;
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
            text.remove_suffix(1);
        const auto nl = text.rfind('\n');
        return printable(nl == std::string_view::npos ? text : text.substr(nl + 1));
    }
};

class Fleet {
public:
    explicit Fleet(std::vector<HostSpec> hosts)
    {
        for (auto &h : hosts) {
            Agent a;
            a.spec = std::move(h);
            m_agents.push_back(std::move(a));
        }
    }
    ~Fleet() { end(); }
    std::vector<Agent> &agents() { return m_agents; }

    // ssh (its basename): `ssh -T -o BatchMode=yes [-p PORT] -- DEST 'STRATA' bench --agent`,
    // the command one word for the remote shell. Any other launcher (srun -w, kubectl exec
    // -i, a script): `LAUNCHER DEST STRATA bench --agent`, each word its own argument.
    Status spawn(const std::vector<std::string> &ssh, const std::string &strataPath)
    {
        const std::string_view launcher = ssh.front();
        const bool isSsh = launcher == "ssh" || launcher.ends_with("/ssh");
        for (auto &a : m_agents) {
            std::vector<std::string> argv = ssh;
            if (isSsh) {
                argv.insert(argv.end(), {"-T", "-o", "BatchMode=yes"});
                if (!a.spec.port.empty())
                    argv.insert(argv.end(), {"-p", a.spec.port});
                argv.insert(argv.end(), {"--", a.spec.destination, shellQuoted(strataPath) + " bench --agent"});
            } else {
                argv.insert(argv.end(), {a.spec.name, strataPath, "bench", "--agent"});
            }
            int in[2], out[2], err[2];
            if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC))
                return errorFromErrno(errno).withContext("start", argv.front());
            posix_spawn_file_actions_t actions;
            posix_spawn_file_actions_init(&actions);
            posix_spawn_file_actions_adddup2(&actions, in[0], 0);
            posix_spawn_file_actions_adddup2(&actions, out[1], 1);
            posix_spawn_file_actions_adddup2(&actions, err[1], 2);
            std::vector<char *> cargv;
            cargv.reserve(argv.size() + 1);
            for (auto &s : argv)
                cargv.push_back(s.data());
            cargv.push_back(nullptr);
            // ssh starts with no signal blocked (ours are, for InterruptWatch), in a process
            // group of its own: Ctrl+C reaches us, and we end the agents in order.
            posix_spawnattr_t attr;
            posix_spawnattr_init(&attr);
            sigset_t none;
            sigemptyset(&none);
            posix_spawnattr_setsigmask(&attr, &none);
            sigset_t defaults;
            sigemptyset(&defaults);
            sigaddset(&defaults, SIGPIPE); // ignored here, its default there
            posix_spawnattr_setsigdefault(&attr, &defaults);
            posix_spawnattr_setpgroup(&attr, 0);
            posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
            const int rc = posix_spawnp(&a.pid, cargv[0], &actions, &attr, cargv.data(), environ);
            posix_spawnattr_destroy(&attr);
            posix_spawn_file_actions_destroy(&actions);
            ::close(in[0]);
            ::close(out[1]);
            ::close(err[1]);
            a.in = in[1];
            a.out = out[0];
            a.err = err[0];
            if (rc != 0) {
                a.pid = -1;
                return Error(ErrorKind::NotFound,
                             "cannot start '" + printable(argv.front()) + "': " + std::strerror(rc));
            }
        }
        return {};
    }

    void send(Agent &a, const json::Value &message)
    {
        if (!a.alive() || a.in < 0)
            return;
        const std::string line = json::write(message, json::Format::Compact) + "\n";
        std::size_t at = 0;
        while (at < line.size()) {
            const ssize_t n = ::write(a.in, line.data() + at, line.size() - at);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                lost(a, "its connection closed");
                return;
            }
            at += std::size_t(n);
        }
    }

    // Reads what the agents say until `enough` holds for every agent still running (or
    // `deadline` passes: those that did not get there are named), handing each message to
    // handle(). False when Ctrl+C came.
    bool pump(Clock::time_point deadline, const std::function<bool(const Agent &)> &enough, InterruptWatch &interrupts)
    {
        for (;;) {
            if (interrupts.arrived())
                return false;
            bool waiting = false;
            std::vector<pollfd> fds;
            std::vector<std::pair<Agent *, bool>> who; // agent, stderr
            for (auto &a : m_agents) {
                if (!a.alive())
                    continue;
                waiting = waiting || !enough(a);
                if (a.out >= 0) {
                    fds.push_back({a.out, POLLIN, 0});
                    who.emplace_back(&a, false);
                }
                if (a.err >= 0) {
                    fds.push_back({a.err, POLLIN, 0});
                    who.emplace_back(&a, true);
                }
            }
            if (!waiting)
                return true;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) {
                for (auto &a : m_agents)
                    if (a.alive() && !enough(a))
                        lost(a, "no answer in time");
                return true;
            }
            const int n = ::poll(fds.data(), nfds_t(fds.size()), int(std::min<long long>(left, 100)));
            if (n <= 0)
                continue;
            for (std::size_t i = 0; i < fds.size(); ++i) {
                if (!fds[i].revents)
                    continue;
                auto [a, isErr] = who[i];
                char buf[65536];
                const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
                if (got <= 0) {
                    ::close(fds[i].fd);
                    (isErr ? a->err : a->out) = -1;
                    if (!isErr) {
                        drainErrors(*a); // ssh's reason may still be on its way
                        lost(*a, a->done ? "" : "it ended");
                    }
                    continue;
                }
                if (isErr) {
                    a->errText.append(buf, std::size_t(got));
                    if (a->errText.size() > 4096)
                        a->errText.erase(0, a->errText.size() - 4096);
                    continue;
                }
                a->pending.append(buf, std::size_t(got));
                if (a->pending.size() > (16u << 20) && a->pending.find('\n') == std::string::npos) {
                    lost(*a, "it sent 16 MiB without a line break");
                    continue;
                }
                for (auto nl = a->pending.find('\n'); nl != std::string::npos; nl = a->pending.find('\n')) {
                    const std::string line = a->pending.substr(0, nl);
                    a->pending.erase(0, nl + 1);
                    handle(*a, line);
                }
            }
        }
    }

    // Asks the agents to stop (their stdin closes), waits up to `grace` for them, then ends
    // the ssh processes that are left.
    void end(std::chrono::milliseconds grace = std::chrono::seconds(5))
    {
        for (auto &a : m_agents)
            if (a.in >= 0) {
                ::close(a.in);
                a.in = -1;
            }
        const auto until = Clock::now() + grace;
        for (auto &a : m_agents) {
            if (a.pid <= 0)
                continue;
            // Then its whole process group (a launcher's children too), TERM, CONT (a
            // stopped one), then KILL if it is still there a second later.
            int status = 0;
            bool termed = false;
            auto killAt = until + std::chrono::seconds(1);
            while (::waitpid(a.pid, &status, WNOHANG) == 0) {
                if (!termed && Clock::now() >= until) {
                    ::kill(-a.pid, SIGTERM);
                    ::kill(-a.pid, SIGCONT);
                    termed = true;
                    killAt = Clock::now() + std::chrono::seconds(1);
                } else if (termed && Clock::now() >= killAt) {
                    ::kill(-a.pid, SIGKILL);
                    ::waitpid(a.pid, &status, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            a.pid = -1;
        }
        for (auto &a : m_agents)
            for (int *fd : {&a.out, &a.err})
                if (*fd >= 0) {
                    ::close(*fd);
                    *fd = -1;
                }
    }

    void lost(Agent &a, const std::string &why)
    {
        if (!a.alive() || why.empty())
            return;
        const std::string said = a.said();
        a.failure = why + (said.empty() ? "" : " (" + said + ")");
    }

private:
    // What is left on an agent's stderr once its stdout ended (its process is ending):
    // read for at most half a second.
    static void drainErrors(Agent &a)
    {
        const auto until = Clock::now() + std::chrono::milliseconds(500);
        while (a.err >= 0 && Clock::now() < until) {
            pollfd p{a.err, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            char buf[4096];
            const ssize_t got = ::read(a.err, buf, sizeof buf);
            if (got <= 0) {
                ::close(a.err);
                a.err = -1;
                break;
            }
            a.errText.append(buf, std::size_t(got));
        }
        if (a.errText.size() > 4096)
            a.errText.erase(0, a.errText.size() - 4096);
    }

    void handle(Agent &a, const std::string &line)
    {
        auto message = json::parse(line);
        if (!message || !message->is_object())
            return lost(a, "it said something that is not the agent protocol: " + printable(line.substr(0, 200)));
        const std::string type = json::get<std::string>(*message, "type", "");
        if (type == "hello") {
            a.hello = true;
            a.protocol = json::get<int>(*message, "protocol", 0);
            a.version = json::get<std::string>(*message, "version", "");
            a.host = json::get<std::string>(*message, "host", "");
        } else if (type == "clock") {
            a.clockSamples.push_back({a.clockSent, json::get<std::int64_t>(*message, "at", 0), wallClockNs()});
        } else if (type == "ready") {
            a.ready = json::get<int>(*message, "run", -1);
        } else if (type == "result") {
            const int run = json::get<int>(*message, "run", -1);
            auto r = benchRunFromJson(message->value("data", json::Value()));
            if (!r)
                return lost(a, r.error().message());
            a.started[run] = json::get<std::int64_t>(*message, "started", 0);
            a.late[run] = json::get<std::int64_t>(*message, "late", 0);
            a.runs[run].push_back(std::move(*r));
        } else if (type == "done") {
            a.done = true;
        } else if (type == "error") {
            a.failure = printable(json::get<std::string>(*message, "message", "it failed"));
        }
    }

    std::vector<Agent> m_agents;
};

// The bench options given here that agents get too (the rest are the coordinator's).
const char *const kForwarded[] = {"ops",    "sizes",           "count",     "duration",    "concurrency",
                                  "mix",    "profile",         "pattern",   "queue-depth", "direct",
                                  "region", "allow-overwrite", "no-latency"};

} // namespace

int runBenchOnHosts(Context &context, const ArgParser &parser)
{
    // The hosts, from --hosts and --hosts-file (a host a line; # starts a comment).
    std::vector<std::string> names;
    for (const auto &list : parser.values("hosts")) {
        std::string_view rest = list;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            const auto part = rest.substr(0, comma);
            if (!part.empty())
                names.emplace_back(part);
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
    if (parser.isSet("hosts-file")) {
        std::ifstream file(parser.value("hosts-file"));
        if (!file)
            return context.fail(errorFromErrno(errno).withContext("read", parser.value("hosts-file")));
        for (std::string line; std::getline(file, line);) {
            line = line.substr(0, line.find('#'));
            line.erase(0, line.find_first_not_of(" \t\r"));
            line.erase(line.find_last_not_of(" \t\r") + 1);
            if (!line.empty())
                names.push_back(line);
        }
    }
    std::vector<HostSpec> hosts;
    for (const auto &n : names) {
        auto h = parseHost(n);
        if (!h)
            return context.usage("'" + printable(n) + "' is no host: give [user@]host[:port]");
        hosts.push_back(std::move(*h));
    }
    if (hosts.empty())
        return context.usage("--hosts names no host");
    if (parser.isSet("vs") || parser.isSet("timeline"))
        return context.usage("--hosts runs one location from every host: --vs and --timeline are not for it yet");
    const std::string policy = parser.isSet("on-host-failure") ? parser.value("on-host-failure") : "stop";
    if (policy != "stop" && policy != "continue")
        return context.usage("--on-host-failure takes stop or continue");
    // Checked here first, as the agents will read them.
    BenchOptions options;
    if (auto wrong = parseBenchOptions(parser, options))
        return context.usage(*wrong);
    if (parser.isSet("benchtime"))
        return context.usage("runs on many hosts are fixed-time, to start and end together: give --duration");
    std::vector<std::string> forwarded;
    for (const char *name : kForwarded) {
        if (!parser.isSet(name))
            continue;
        const auto option = std::find_if(parser.options().begin(), parser.options().end(),
                                         [&](const Option &o) { return o.names.front() == name; });
        forwarded.push_back(std::string("--") + name);
        if (option != parser.options().end() && !option->valueName.empty())
            forwarded.push_back(parser.value(name));
    }
    if (!parser.isSet("duration"))
        forwarded.insert(forwarded.end(), {"--duration", "1s"});
    const std::string uri = parser.positionalArguments().front(); // to the agents only
    // What is printed and kept: no password or secret-looking query value.
    const auto parsedUri = Uri::parse(uri);
    const std::string shown = parsedUri ? parsedUri->redacted() : printable(uri);
    auto ssh = splitCommand(parser.isSet("ssh") ? parser.value("ssh") : "ssh");
    if (!ssh || ssh->empty())
        return context.usage("--ssh takes a command, like 'ssh -F ~/.ssh/bench_config'");
    const std::string strataPath = parser.isSet("strata-path") ? parser.value("strata-path") : "strata";
    const std::string label = parser.value("label");

    std::signal(SIGPIPE, SIG_IGN); // an agent gone is a failed write, named, not our end
    InterruptWatch interrupts;
    Fleet fleet(hosts);
    auto &agents = fleet.agents();
    const auto stopped = [&] {
        for (auto &a : agents)
            fleet.send(a, json::Object{{"type", "stop"}});
        fleet.end();
        write(context.err, "strata bench: stopped; every host's agent was told to remove what it wrote\n");
        return 130;
    };
    const auto named = [&](bool all) {
        std::string text;
        for (const auto &a : agents)
            if (all || !a.alive())
                text +=
                    (text.empty() ? "" : "; ") + printable(a.spec.name) + ": " + (a.failure.empty() ? "ok" : a.failure);
        return text;
    };

    // 1. Every host says hello: the protocol and the version of its strata.
    if (auto st = fleet.spawn(*ssh, strataPath); !st)
        return context.fail(st.error());
    if (!fleet.pump(
            Clock::now() + std::chrono::seconds(30), [](const Agent &a) { return a.hello; }, interrupts))
        return stopped();
    for (auto &a : agents) {
        if (!a.alive())
            continue;
        if (a.protocol != kBenchAgentProtocol || a.version != STRATA_VERSION)
            a.failure = "it runs strata " + printable(a.version) + " (agent protocol " + std::to_string(a.protocol)
                + "), this is " + STRATA_VERSION + " (protocol " + std::to_string(kBenchAgentProtocol) + ")";
    }
    if (std::any_of(agents.begin(), agents.end(), [](const Agent &a) { return !a.alive(); })) {
        fleet.end();
        return context.fail(Error(ErrorKind::InvalidInput, "hosts refused before anything ran: " + named(false)));
    }

    // 2. Each host's clock against ours, from the quickest of 8 readings.
    for (auto &a : agents)
        for (int i = 0; i < 8 && a.alive(); ++i) {
            const std::size_t had = a.clockSamples.size();
            a.clockSent = wallClockNs();
            fleet.send(a, json::Object{{"type", "clock"}});
            if (!fleet.pump(
                    Clock::now() + std::chrono::seconds(10),
                    [&](const Agent &b) { return &b != &a || b.clockSamples.size() > had; }, interrupts))
                return stopped();
        }
    std::int64_t slowest = 0;
    for (auto &a : agents) {
        if (auto c = estimateClockOffset(a.clockSamples)) {
            a.clock = *c;
            slowest = std::max(slowest, 2 * c->uncertainty);
        } else {
            fleet.lost(a, "its clock could not be read");
        }
    }
    if (std::any_of(agents.begin(), agents.end(), [](const Agent &a) { return !a.alive(); })) {
        fleet.end();
        return context.fail(Error(ErrorKind::Network, "hosts lost before anything ran: " + named(false)));
    }

    // 3. The run: the environment goes through the channel (secrets never on a command line).
    json::Object env;
    for (char **e = environ; *e; ++e) {
        const std::string_view entry = *e;
        const auto eq = entry.find('=');
        const auto name = entry.substr(0, eq);
        if (eq != std::string_view::npos && (name.starts_with("STRATA_") || name.starts_with("AWS_")))
            env[std::string(name)] = std::string(entry.substr(eq + 1));
    }
    for (auto &a : agents)
        fleet.send(a, json::Object{{"type", "run"}, {"uri", uri}, {"args", forwarded}, {"env", env}});

    // 4. Run by run: when every host waits at run k, all start at one moment.
    const auto margin = std::chrono::nanoseconds(std::max<std::int64_t>(100'000'000, 4 * slowest));
    std::vector<BenchRun> merged;
    std::vector<std::vector<BenchRun>> perHost(agents.size()); // by host, as listed
    std::int64_t largestSkew = 0;
    json::Array skews; // each run's
    const bool json = parser.isSet("json");
    std::string text = benchGoHeader(shown, label) + "# on " + std::to_string(agents.size()) + " hosts\nhost: all\n";
    if (!json) {
        std::fputs(text.c_str(), context.out);
        std::fflush(context.out);
    }
    const auto mergeRun = [&](int k) {
        std::vector<const Agent *> had;
        for (const auto &a : agents)
            if (a.runs.count(k))
                had.push_back(&a);
        if (had.empty())
            return;
        std::int64_t first = INT64_MAX, last = INT64_MIN;
        for (const Agent *a : had) {
            const std::int64_t ours = a->started.at(k) - a->clock.offset;
            first = std::min(first, ours);
            last = std::max(last, ours);
        }
        largestSkew = std::max(largestSkew, last - first);
        skews.push_back(last - first);
        // Runs by name (a mixed case gives one per operation drawn, none for one a host
        // never drew): every name any host has, in the order they came.
        std::vector<std::string> runNames;
        for (const Agent *a : had)
            for (const auto &o : a->runs.at(k))
                if (std::find(runNames.begin(), runNames.end(), o.name) == runNames.end())
                    runNames.push_back(o.name);
        for (const auto &name : runNames) {
            std::vector<BenchRun> same;
            for (const Agent *a : had) {
                for (const auto &o : a->runs.at(k))
                    if (o.name == name)
                        same.push_back(o);
            }
            merged.push_back(mergeRuns(same));
            const std::string line = benchGoLine(merged.back());
            text += line;
            if (!json) {
                std::fputs(line.c_str(), context.out);
                std::fflush(context.out);
            }
        }
        for (const Agent *a : had)
            for (const auto &o : a->runs.at(k))
                perHost[std::size_t(a - agents.data())].push_back(o);
    };
    for (int k = 0;; ++k) {
        // The run's own time, and ten minutes for its setup (a large read set to write).
        if (!fleet.pump(
                Clock::now() + options.duration + std::chrono::minutes(10),
                [&](const Agent &a) { return a.done || a.ready >= k; }, interrupts))
            return stopped();
        if (std::any_of(agents.begin(), agents.end(), [](const Agent &a) { return !a.alive(); })) {
            const bool others = std::any_of(agents.begin(), agents.end(), [](const Agent &a) { return a.alive(); });
            if (policy == "stop" || !others) {
                for (auto &a : agents)
                    fleet.send(a, json::Object{{"type", "stop"}});
                fleet.end();
                return context.fail(Error(ErrorKind::Network, "a host failed: " + named(false)));
            }
        }
        if (k > 0)
            mergeRun(k - 1);
        const bool over =
            std::all_of(agents.begin(), agents.end(), [](const Agent &a) { return !a.alive() || a.done; });
        if (over)
            break;
        const std::int64_t at = wallClockNs() + margin.count();
        for (auto &a : agents)
            if (a.alive() && !a.done)
                fleet.send(a, json::Object{{"type", "go"}, {"run", k}, {"at", at + a.clock.offset}});
    }
    fleet.end();

    // 5. Each host's own lines (benchstat tells them apart by the host: key), the skew.
    std::string tail;
    for (const auto &a : agents) {
        tail += "host: " + a.spec.name + "\n";
        for (const auto &r : perHost[std::size_t(&a - agents.data())])
            tail += benchGoLine(r);
    }
    char skew[160];
    std::snprintf(skew, sizeof skew, "# start skew: at most %.2f ms; clocks read within %.2f ms\n",
                  double(largestSkew) / 1e6, double(slowest) / 2e6);
    tail += skew;
    for (const auto &a : agents)
        if (!a.alive())
            tail += "# left: " + printable(a.spec.name) + ": " + a.failure + "\n";
    if (!json)
        std::fputs(tail.c_str(), context.out);
    keepBenchHistory(context, label, {{shown, text + tail}});
    if (json) {
        json::Array runs, hostList;
        for (const auto &r : merged)
            runs.push_back(benchRunToJson(r));
        for (const auto &a : agents) {
            json::Array own;
            for (const auto &r : perHost[std::size_t(&a - agents.data())])
                own.push_back(benchRunToJson(r));
            json::Array late, starts;
            for (const auto &[run, ns] : a.late)
                late.push_back(ns);
            for (const auto &[run, ns] : a.started)
                starts.push_back(ns - a.clock.offset);
            hostList.push_back(json::Object{{"host", a.spec.name},
                                            {"start_late_ns", std::move(late)},
                                            {"starts_ns", std::move(starts)},
                                            {"hostname", a.host},
                                            {"clock_offset_ns", a.clock.offset},
                                            {"clock_uncertainty_ns", a.clock.uncertainty},
                                            {"failure", a.failure},
                                            {"runs", std::move(own)}});
        }
        writeJson(context.out,
                  json::Object{{"label", label},
                               {"uri", shown},
                               {"start_skew_ns", largestSkew},
                               {"start_skews_ns", std::move(skews)},
                               {"runs", std::move(runs)},
                               {"hosts", std::move(hostList)}});
    }
    std::fflush(context.out);
    return Success;
}

} // namespace strata::cli

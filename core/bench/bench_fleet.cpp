#include "core/bench/bench_fleet.h"

#include "core/storage/error.h"
#include "core/storage/printable.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <thread>
#include <tuple>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace strata {

namespace {

using Clock = std::chrono::steady_clock;

// A word for the remote shell, quoted.
std::string shellQuoted(std::string_view word)
{
    std::string out = "'";
    for (char c : word)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

struct Agent {
    FleetHost spec;
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
    Fleet(const FleetPlan &plan, const FleetObserver &observer) : m_plan(plan), m_observer(observer)
    {
        for (const auto &h : plan.hosts) {
            Agent a;
            a.spec = h;
            m_agents.push_back(std::move(a));
        }
    }
    ~Fleet() { end(); }
    std::vector<Agent> &agents() { return m_agents; }
    bool stopRequested() const { return m_observer.stopRequested && m_observer.stopRequested(); }

    Status spawn()
    {
        const auto &launcher = m_plan.launcher;
        if (launcher.empty())
            return Error(ErrorKind::InvalidInput, "no command to reach the hosts with");
        const std::string_view first = launcher.front();
        const bool isSsh = first == "ssh" || first.ends_with("/ssh");
        for (auto &a : m_agents) {
            std::vector<std::string> argv = launcher;
            if (isSsh) {
                argv.insert(argv.end(), {"-T", "-o", "BatchMode=yes"});
                if (!a.spec.port.empty())
                    argv.insert(argv.end(), {"-p", a.spec.port});
                argv.insert(argv.end(), {"--", a.spec.destination, shellQuoted(m_plan.strataPath) + " bench --agent"});
            } else {
                argv.insert(argv.end(), {a.spec.name, m_plan.strataPath, "bench", "--agent"});
            }
            // Its stdin a socket: a write to an agent that is gone fails (MSG_NOSIGNAL)
            // instead of raising SIGPIPE in a process (the desktop app's) that keeps it.
            int in[2], out[2], err[2];
            if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) || ::pipe2(out, O_CLOEXEC)
                || ::pipe2(err, O_CLOEXEC))
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
            // The launcher starts with no signal blocked (the command line blocks its own,
            // for its interrupt watch) and SIGPIPE at its default, in a process group of its
            // own: Ctrl+C reaches us, and we end the agents in order.
            posix_spawnattr_t attr;
            posix_spawnattr_init(&attr);
            sigset_t none;
            sigemptyset(&none);
            posix_spawnattr_setsigmask(&attr, &none);
            sigset_t defaults;
            sigemptyset(&defaults);
            sigaddset(&defaults, SIGPIPE);
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
            const ssize_t n = ::send(a.in, line.data() + at, line.size() - at, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                lost(a, "its connection closed");
                return;
            }
            at += std::size_t(n);
        }
    }
    void sendAll(const json::Value &message)
    {
        for (auto &a : m_agents)
            send(a, message);
    }

    // Reads what the agents say until `enough` holds for every agent still running (or
    // `deadline` passes: those that did not get there are named), handing each message to
    // handle(). False when a stop was asked for.
    bool pump(Clock::time_point deadline, const std::function<bool(const Agent &)> &enough)
    {
        for (;;) {
            if (stopRequested())
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
                if ((isErr ? a->err : a->out) != fds[i].fd)
                    continue; // closed earlier in this pass (drainErrors): its number may be another's now
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
                for (auto nl = a->pending.find('\n'); nl != std::string::npos && a->alive();
                     nl = a->pending.find('\n')) {
                    const std::string line = a->pending.substr(0, nl);
                    a->pending.erase(0, nl + 1);
                    handle(*a, line);
                }
            }
        }
    }

    // Asks the agents to stop (their stdin closes), waits up to `grace` for them, then ends
    // the launchers that are left.
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
    bool anyLost() const
    {
        return std::any_of(m_agents.begin(), m_agents.end(), [](const Agent &a) { return !a.alive(); });
    }
    // "host: why; host: why" for the hosts that left (every host with `all`).
    std::string named(bool all) const
    {
        std::string text;
        for (const auto &a : m_agents)
            if (all || !a.alive())
                text +=
                    (text.empty() ? "" : "; ") + printable(a.spec.name) + ": " + (a.failure.empty() ? "ok" : a.failure);
        return text;
    }

    // Says hello, and refuses an agent of another protocol or version. Error (every host
    // named) when any did not get there; false in *stopped when a stop was asked for.
    Status greet(bool &stopped)
    {
        if (auto st = spawn(); !st)
            return st;
        stopped = !pump(Clock::now() + std::chrono::seconds(30), [](const Agent &a) { return a.hello; });
        if (stopped)
            return {};
        for (auto &a : m_agents) {
            if (!a.alive())
                continue;
            if (a.protocol != kBenchAgentProtocol || a.version != m_plan.version)
                a.failure = "it runs strata " + printable(a.version) + " (agent protocol " + std::to_string(a.protocol)
                    + "), this is " + m_plan.version + " (protocol " + std::to_string(kBenchAgentProtocol) + ")";
        }
        if (anyLost())
            return Error(ErrorKind::InvalidInput, "hosts refused before anything ran: " + named(false));
        return {};
    }

    // Each host's clock against ours, from the quickest of `readings`.
    Status readClocks(int readings, bool &stopped)
    {
        for (auto &a : m_agents)
            for (int i = 0; i < readings && a.alive(); ++i) {
                const std::size_t had = a.clockSamples.size();
                a.clockSent = wallClockNs();
                send(a, json::Object{{"type", "clock"}});
                if (!pump(Clock::now() + std::chrono::seconds(10),
                          [&](const Agent &b) { return &b != &a || b.clockSamples.size() > had; })) {
                    stopped = true;
                    return {};
                }
            }
        for (auto &a : m_agents) {
            if (auto c = estimateClockOffset(a.clockSamples)) {
                a.clock = *c;
                m_clockWithin = std::max(m_clockWithin, c->uncertainty);
            } else {
                lost(a, "its clock could not be read");
            }
        }
        if (anyLost())
            return Error(ErrorKind::Network, "hosts lost before anything ran: " + named(false));
        return {};
    }
    std::int64_t clockWithin() const { return m_clockWithin; }

    // The intervals of run k not yet reported for every host: reported as they are.
    void flushIntervals(int k)
    {
        for (auto it = m_intervals.begin(); it != m_intervals.end();) {
            if (std::get<0>(it->first) == k) {
                reportTotal(it->second);
                it = m_intervals.erase(it);
            } else {
                ++it;
            }
        }
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
        } else if (type == "interval") {
            auto p = timelinePointFromJson(message->value("data", json::Value()));
            if (!p)
                return lost(a, p.error().message());
            interval(a, json::get<int>(*message, "run", -1), std::move(*p));
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

    // One host's interval: reported as it is, and kept until every host running has sent
    // the same one (run, benchmark, its number), when their sum is reported.
    void interval(Agent &a, int k, TimelinePoint p)
    {
        const int host = int(&a - m_agents.data());
        p.target = host;
        if (m_observer.interval)
            m_observer.interval(host, p);
        const double step = std::chrono::duration<double>(m_plan.interval).count();
        const long index = step > 0 ? std::lround((p.at - p.seconds) / step) : 0;
        const auto key = std::make_tuple(k, p.benchmark, index);
        auto &same = m_intervals[key];
        same.push_back(std::move(p));
        const auto running =
            std::count_if(m_agents.begin(), m_agents.end(), [](const Agent &b) { return b.alive() && !b.done; });
        if (std::ptrdiff_t(same.size()) >= running) {
            reportTotal(same);
            m_intervals.erase(key);
        }
    }
    void reportTotal(const std::vector<TimelinePoint> &same)
    {
        if (same.empty() || !m_observer.interval)
            return;
        TimelinePoint total = mergePoints(same);
        total.target = -1;
        m_observer.interval(-1, total);
    }

    const FleetPlan &m_plan;
    const FleetObserver &m_observer;
    std::vector<Agent> m_agents;
    std::int64_t m_clockWithin = 0;
    std::map<std::tuple<int, std::string, long>, std::vector<TimelinePoint>> m_intervals;
};

FleetHostReport reportOf(const Agent &a)
{
    FleetHostReport r;
    r.name = a.spec.name;
    r.hostname = a.host;
    r.version = a.version;
    r.clock = a.clock;
    r.failure = a.failure;
    for (const auto &[run, ns] : a.started)
        r.starts.push_back(ns - a.clock.offset);
    for (const auto &[run, ns] : a.late)
        r.late.push_back(ns);
    return r;
}

} // namespace

std::optional<FleetHost> parseFleetHost(std::string_view text)
{
    FleetHost h;
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

Result<std::vector<FleetHost>> parseFleetHosts(std::string_view text)
{
    std::vector<FleetHost> hosts;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        line = line.substr(0, line.find('#'));
        while (!line.empty()) {
            const auto cut = line.find_first_of(", \t\r");
            const auto word = line.substr(0, cut);
            line = cut == std::string_view::npos ? std::string_view() : line.substr(cut + 1);
            if (word.empty())
                continue;
            auto h = parseFleetHost(word);
            if (!h)
                return Error(ErrorKind::InvalidInput, "'" + printable(word) + "' is no host: give [user@]host[:port]");
            hosts.push_back(std::move(*h));
        }
    }
    return hosts;
}

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

json::Object fleetEnvironment()
{
    json::Object env;
    for (char **e = environ; *e; ++e) {
        const std::string_view entry = *e;
        const auto eq = entry.find('=');
        const auto name = entry.substr(0, eq);
        if (eq != std::string_view::npos && (name.starts_with("STRATA_") || name.starts_with("AWS_")))
            env[std::string(name)] = std::string(entry.substr(eq + 1));
    }
    return env;
}

std::vector<FleetHostReport> checkFleet(const FleetPlan &plan, const std::function<bool()> &stopRequested)
{
    FleetObserver observer;
    observer.stopRequested = stopRequested;
    Fleet fleet(plan, observer);
    bool stopped = false;
    Status st = fleet.greet(stopped);
    if (st && !stopped)
        st = fleet.readClocks(3, stopped);
    if (!st && !fleet.anyLost())
        for (auto &a : fleet.agents())
            a.failure = st.error().message(); // the launcher could not start
    fleet.end();
    std::vector<FleetHostReport> out;
    for (const auto &a : fleet.agents())
        out.push_back(reportOf(a));
    if (stopped)
        for (auto &r : out)
            if (r.failure.empty())
                r.failure = "stopped";
    return out;
}

Result<FleetReport> runFleet(const FleetPlan &plan, const FleetObserver &observer)
{
    const Error stoppedError(ErrorKind::Cancelled, "stopped; every host's agent was told to remove what it wrote");
    Fleet fleet(plan, observer);
    auto &agents = fleet.agents();
    const auto stop = [&]() -> Result<FleetReport> {
        fleet.sendAll(json::Object{{"type", "stop"}});
        fleet.end();
        return stoppedError;
    };

    // 1. Every host says hello: the protocol and the version of its strata.
    bool stopped = false;
    if (auto st = fleet.greet(stopped); !st || stopped) {
        fleet.end();
        return stopped ? stoppedError : std::move(st).error();
    }
    // 2. Each host's clock against ours, from the quickest of 8 readings.
    if (auto st = fleet.readClocks(8, stopped); !st || stopped) {
        fleet.end();
        return stopped ? stoppedError : std::move(st).error();
    }

    // 3. The run: the environment goes through the channel (secrets never on a command line).
    fleet.sendAll(json::Object{{"type", "run"},
                               {"uri", plan.uri},
                               {"args", plan.args},
                               {"env", plan.env},
                               {"interval_ns", observer.interval ? std::int64_t(plan.interval.count()) : 0}});

    // 4. Run by run: when every host waits at run k, all start at one moment.
    FleetReport report;
    report.clockWithin = fleet.clockWithin();
    const auto margin = std::chrono::nanoseconds(std::max<std::int64_t>(100'000'000, 8 * report.clockWithin));
    std::vector<std::vector<BenchRun>> perHost(agents.size()); // by host, as listed
    const auto mergeRun = [&](int k) {
        fleet.flushIntervals(k);
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
        report.largestSkew = std::max(report.largestSkew, last - first);
        report.skews.push_back(last - first);
        // Runs by name (a mixed case gives one per operation drawn, none for one a host
        // never drew): every name any host has, in the order they came.
        std::vector<std::string> runNames;
        for (const Agent *a : had)
            for (const auto &o : a->runs.at(k))
                if (std::find(runNames.begin(), runNames.end(), o.name) == runNames.end())
                    runNames.push_back(o.name);
        for (const auto &name : runNames) {
            std::vector<BenchRun> same;
            for (const Agent *a : had)
                for (const auto &o : a->runs.at(k))
                    if (o.name == name)
                        same.push_back(o);
            report.merged.push_back(mergeRuns(same));
            if (observer.merged)
                observer.merged(report.merged.back());
        }
        for (const Agent *a : had)
            for (const auto &o : a->runs.at(k))
                perHost[std::size_t(a - agents.data())].push_back(o);
    };
    for (int k = 0;; ++k) {
        // The run's own time, and ten minutes for its setup (a large read set to write).
        if (!fleet.pump(Clock::now() + plan.duration + std::chrono::minutes(10),
                        [&](const Agent &a) { return a.done || a.ready >= k; }))
            return stop();
        if (fleet.anyLost()) {
            const bool others = std::any_of(agents.begin(), agents.end(), [](const Agent &a) { return a.alive(); });
            if (!plan.continueOnFailure || !others) {
                fleet.sendAll(json::Object{{"type", "stop"}});
                fleet.end();
                return Error(ErrorKind::Network, "a host failed: " + fleet.named(false));
            }
        }
        if (k > 0)
            mergeRun(k - 1);
        if (std::all_of(agents.begin(), agents.end(), [](const Agent &a) { return !a.alive() || a.done; }))
            break;
        const std::int64_t at = wallClockNs() + margin.count();
        for (auto &a : agents)
            if (a.alive() && !a.done)
                fleet.send(a, json::Object{{"type", "go"}, {"run", k}, {"at", at + a.clock.offset}});
    }
    fleet.end();
    for (const auto &a : agents) {
        report.hosts.push_back(reportOf(a));
        report.hosts.back().runs = std::move(perHost[std::size_t(&a - agents.data())]);
    }
    return report;
}

} // namespace strata

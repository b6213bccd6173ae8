#include "core/bench/bench_flags.h"

#include "core/bench/benchstat.h"
#include "core/io/size_text.h"
#include "core/storage/uri.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

namespace strata {

namespace {

std::uint64_t memAvailable()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:")
            return kib * 1024;
    return 0;
}

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f %%", share * 100);
    return buf;
}

} // namespace

BenchTarget benchTarget(const Uri &uri)
{
    return {uri.scheme(), uri.host(), memAvailable()};
}

std::vector<BenchFlag> checkRuns(const std::vector<BenchRun> &runs, const BenchTarget &target)
{
    std::vector<BenchFlag> flags;
    if (target.scheme == "memory")
        flags.push_back({"", "in-process", "memory:// is a store inside this process: no storage or network I/O"});
    else if (isLoopbackHost(target.host) || target.scheme.ends_with("+unix"))
        flags.push_back({"", "loopback",
                         "the server runs on this machine (" + (target.host.empty() ? target.scheme : target.host)
                             + "): no network between, and it shares the CPUs with the client"});

    std::map<std::string, std::vector<const BenchRun *>> byName;
    std::vector<std::string> order;
    for (const auto &r : runs) {
        auto &group = byName[r.name];
        if (group.empty())
            order.push_back(r.name);
        group.push_back(&r);
    }
    for (const auto &name : order) {
        const auto &group = byName[name];
        std::vector<double> busy, ns;
        for (const BenchRun *r : group) {
            busy.push_back(r->clientBusy);
            ns.push_back(r->nsPerOp);
        }
        const BenchRun &first = *group.front();
        if (const double b = median(busy); b > 0.9)
            flags.push_back({name, "cpu-bound",
                             "a worker thread was busy " + percent(b)
                                 + " of the run: the client, not the storage, may set the pace"});
        const std::uint64_t workingSet =
            first.workingSet ? first.workingSet : first.size * std::uint64_t(std::max(1, first.concurrency));
        if (first.op == BenchOp::Read && target.scheme == "file" && !first.direct
            && workingSet < target.availableMemory)
            flags.push_back({name, "page-cache",
                             "reads of local files whose working set (" + formatSize(workingSet)
                                 + ") fits in free memory: the page cache may answer them, not the disk"
                                 + (first.block ? std::string(" (--direct goes past it)") : std::string())});
        if (ns.size() >= 2) {
            const auto s = summarizeSample(ns, 0.95);
            if (std::isfinite(s.lo) && std::isfinite(s.hi) && s.center > 0) {
                const double halfWidth = std::max(s.center - s.lo, s.hi - s.center) / s.center;
                if (halfWidth > 0.10)
                    flags.push_back({name, "variation",
                                     "ns/op varies ±" + percent(halfWidth)
                                         + " (95 % interval of the median): more runs, or a quieter machine"});
            }
        }
    }
    return flags;
}

std::optional<BenchFlag> parseFlagLine(std::string_view line)
{
    constexpr std::string_view prefix = "# flag ";
    if (!line.starts_with(prefix))
        return std::nullopt;
    line.remove_prefix(prefix.size());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    const auto colon = line.find(": ");
    if (colon == std::string_view::npos)
        return std::nullopt;
    BenchFlag f;
    const std::string_view head = line.substr(0, colon);
    const auto space = head.find(' ');
    f.kind = std::string(head.substr(0, space));
    if (space != std::string_view::npos)
        f.benchmark = std::string(head.substr(space + 1));
    f.detail = std::string(line.substr(colon + 2));
    return f;
}

std::vector<BenchFlag> flagsIn(std::string_view text)
{
    std::vector<BenchFlag> out;
    while (!text.empty()) {
        const auto end = text.find('\n');
        if (auto f = parseFlagLine(text.substr(0, end)))
            out.push_back(std::move(*f));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
    return out;
}

std::string flagLines(const std::vector<BenchFlag> &flags)
{
    std::string out;
    for (const auto &f : flags)
        out += "# flag " + f.kind + (f.benchmark.empty() ? std::string() : " " + f.benchmark) + ": " + f.detail + "\n";
    return out;
}

} // namespace strata

// strata bench: the benchmark engine (core/bench) on the command line, Go's output format.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt_watch.h"
#include "core/bench/bench_flags.h"
#include "core/bench/bench_runner.h"
#include "core/bench/benchstat.h"
#include "core/bench/go_bench.h"
#include "core/io/duration_text.h"
#include "core/storage/path.h"
#include "core/storage/printable.h"
#include "core/storage/state_folder.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sys/utsname.h>
#include <thread>

namespace strata::cli {

namespace {

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.starts_with("model name")) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                auto v = line.substr(colon + 1);
                v.erase(0, v.find_first_not_of(' '));
                return v;
            }
        }
    return "unknown";
}

// Go's testing.prettyPrint: the precision shrinks as the number grows.
std::string goNumber(double x)
{
    const double y = std::fabs(x);
    const char *format = y == 0 || y >= 999.95 ? "%10.0f"
        : y >= 99.995                          ? "%12.1f"
        : y >= 9.9995                          ? "%13.2f"
        : y >= 0.99995                         ? "%14.3f"
        : y >= 0.099995                        ? "%15.4f"
        : y >= 0.0099995                       ? "%16.5f"
                                               : "%17.6f";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, x);
    return buf;
}

int procs()
{
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

// A run's latency percentiles and its whole histogram ([from, width, count] per bucket, in
// nanoseconds).
json::Object latencyJson(const BenchRun &r)
{
    json::Object out;
    for (const auto &[unit, value] : latencyMetrics(r)) {
        std::string key = unit; // "p99.9-ns" -> "p99_9_ns"
        std::replace(key.begin(), key.end(), '.', '_');
        std::replace(key.begin(), key.end(), '-', '_');
        out[key] = value;
    }
    auto buckets = [](const std::vector<LatencyHistogram::Bucket> &histogram) {
        json::Array a;
        for (const auto &b : histogram)
            a.push_back(json::Array{b.from, b.width, b.count});
        return a;
    };
    out["histogram"] = buckets(r.histogram);
    if (!r.firstByteHistogram.empty())
        out["ttfb_histogram"] = buckets(r.firstByteHistogram);
    return out;
}

std::string goLine(const BenchRun &r)
{
    std::string line = "Benchmark" + r.name + "-" + std::to_string(procs());
    char buf[64];
    std::snprintf(buf, sizeof buf, "\t%8llu", static_cast<unsigned long long>(r.iterations));
    line += buf;
    // Appended piece by piece: "\t" + … trips GCC 12's -Wrestrict at -O3.
    line.append("\t").append(goNumber(r.nsPerOp)).append(" ns/op");
    if (r.mbPerSecond > 0) {
        std::snprintf(buf, sizeof buf, "\t%8.2f MB/s", r.mbPerSecond);
        line += buf;
    }
    std::snprintf(buf, sizeof buf, "\t%8lld B/op\t%8lld allocs/op", static_cast<long long>(r.bytesPerOp),
                  static_cast<long long>(r.allocsPerOp));
    line += buf;
    for (const auto &[unit, value] : latencyMetrics(r))
        line.append("\t").append(goNumber(double(value))).append(" ").append(unit);
    return line + "\n";
}

// Go's GOARCH for the machine: uname's x86_64 is amd64, aarch64 is arm64.
std::string goArch()
{
    utsname u{};
    ::uname(&u);
    const std::string_view machine = u.machine;
    return machine == "x86_64" ? "amd64" : machine == "aarch64" ? "arm64" : std::string(machine);
}

std::string goHeader(const std::string &target, const std::string &label)
{
    // The target and label are free text, not configuration lines: benchstat splits its
    // tables by configuration, and runs of two targets must stay comparable.
    std::string h = historyHeader(target, label);
    h += "goos: linux\ngoarch: " + goArch() + "\npkg: strata\ncpu: " + cpuModel() + "\n";
    return h;
}

// The comma-separated parts of `text`, empty ones skipped.
std::vector<std::string_view> splitList(std::string_view text)
{
    std::vector<std::string_view> parts;
    while (!text.empty()) {
        const auto comma = text.find(',');
        if (comma != 0)
            parts.push_back(text.substr(0, comma));
        text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    }
    return parts;
}

bool endsWithNoCase(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size()
        && std::equal(suffix.begin(), suffix.end(), text.end() - std::ptrdiff_t(suffix.size()), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
}

// "4KiB", "4K", "4096", "1.5GiB": bytes.
std::optional<std::uint64_t> parseByteSize(std::string_view text)
{
    std::string_view p = trimmed(text);
    if (endsWithNoCase(p, "iB"))
        p.remove_suffix(2);
    else if (endsWithNoCase(p, "B") && p.size() > 1 && std::isdigit(static_cast<unsigned char>(p[p.size() - 2])))
        p.remove_suffix(1);
    return parseSize(p);
}

std::optional<std::vector<std::uint64_t>> parseSizes(std::string_view text)
{
    std::vector<std::uint64_t> out;
    for (const auto part : splitList(text)) {
        auto size = parseByteSize(part);
        if (!size || *size == 0 || *size > (1ull << 30))
            return std::nullopt;
        out.push_back(*size);
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

// "20261130-120000": now, in UTC.
std::string utcStamp()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

// The whole file; on failure the reason in words (strerror, as QFile's errorString).
Result<std::string> readFile(const std::string &path)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return Error(ErrorKind::NotFound, std::strerror(errno));
    std::string text;
    char buf[65536];
    while (const std::size_t n = std::fread(buf, 1, sizeof buf, f))
        text.append(buf, n);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    std::fclose(f);
    if (failed)
        return Error(ErrorKind::NotFound, std::strerror(err));
    return text;
}

} // namespace

void keepBenchHistory(Context &context, const std::string &label,
                      const std::vector<std::pair<std::string, std::string>> &targetsAndTexts)
{
    const std::string dir = benchHistoryDir();
    std::error_code ignored;
    Status safe;
    for (const std::string &folder : {std::string(parentPath(dir)), dir})
        if (safe)
            safe = checkStateFolder(folder);
    if (!safe) {
        context.warn("the run is not kept in the history: " + safe.error().message());
        return;
    }
    std::filesystem::create_directories(dir, ignored);
    const std::string stamp = utcStamp();
    for (std::size_t i = 0; i < targetsAndTexts.size(); ++i)
        std::ofstream(dir + "/" + historyFileName(stamp + (i ? "-vs" : ""), label, targetsAndTexts[i].first),
                      std::ios::binary)
            << targetsAndTexts[i].second;
}

std::string benchGoLine(const BenchRun &run)
{
    return goLine(run);
}

std::string benchGoHeader(const std::string &target, const std::string &label)
{
    return goHeader(target, label);
}

std::optional<std::string> parseBenchOptions(const ArgParser &parser, BenchOptions &options)
{
    if (parser.isSet("ops")) {
        options.ops.clear();
        const std::string list = parser.value("ops");
        for (const auto name : splitList(list)) {
            std::string lower(trimmed(name));
            std::transform(lower.begin(), lower.end(), lower.begin(),
                           [](unsigned char c) { return char(std::tolower(c)); });
            auto op = parseBenchOp(lower);
            if (!op)
                return std::optional<std::string>("--ops takes a list of write, read, stat, list, delete; not '"
                                                  + std::string(name) + "'");
            options.ops.push_back(*op);
        }
    }
    if (parser.isSet("sizes")) {
        auto sizes = parseSizes(parser.value("sizes"));
        if (!sizes)
            return std::optional<std::string>("--sizes takes a list of sizes up to 1GiB, like 4KiB,256KiB,4MiB,16MiB");
        options.sizes = *sizes;
    }
    if (parser.isSet("count")) {
        const auto n = parseNumber<int>(parser.value("count"));
        if (!n || *n < 1 || *n > 1000)
            return std::optional<std::string>("--count takes a number of runs from 1 to 1000");
        options.count = *n;
    }
    if (parser.isSet("benchtime")) {
        auto d = parseDuration(parser.value("benchtime"));
        if (!d)
            return std::optional<std::string>("--benchtime takes a duration like 1s, 500ms or 2m");
        options.benchtime = *d;
    }
    if (parser.isSet("duration")) {
        if (parser.isSet("benchtime"))
            return std::optional<std::string>("--duration and --benchtime both say how long a run lasts: give one");
        auto d = parseDuration(parser.value("duration"));
        if (!d)
            return std::optional<std::string>("--duration takes a duration like 30s, 500ms or 2m");
        options.duration = *d;
        if (std::find(options.ops.begin(), options.ops.end(), BenchOp::Delete) != options.ops.end())
            return std::optional<std::string>(
                "--duration cannot time deletes (each needs an object made beforehand, as many as a "
                "fixed time cannot know): time them with --benchtime");
    }
    if (parser.isSet("concurrency")) {
        options.concurrency.clear();
        const std::string list = parser.value("concurrency");
        for (const auto c : splitList(list)) {
            const auto n = parseNumber<int>(c);
            if (!n || *n < 1 || *n > 256)
                return std::optional<std::string>(
                    "--concurrency takes a list of worker counts from 1 to 256, like 1,4,16");
            options.concurrency.push_back(*n);
        }
    }
    if (parser.isSet("mix")) {
        if (parser.isSet("ops"))
            return std::optional<std::string>("--mix names its operations: give --ops or --mix, not both");
        const std::string list = parser.value("mix");
        for (const auto part : splitList(list)) {
            const auto eq = part.find('=');
            const auto op = parseBenchOp(trimmed(part.substr(0, eq)));
            const auto weight = eq == std::string_view::npos ? std::nullopt : parseNumber<int>(part.substr(eq + 1));
            if (!op || *op == BenchOp::List || !weight || *weight < 1 || *weight > 1000000
                || std::any_of(options.mix.begin(), options.mix.end(), [&](const auto &m) { return m.first == *op; }))
                return std::optional<std::string>(
                    "--mix takes OP=WEIGHT for write, read, stat, delete (each once), like "
                    "read=45,write=15,stat=30,delete=10; not '"
                    + std::string(part) + "'");
            options.mix.emplace_back(*op, *weight);
        }
        if (options.mix.empty())
            return std::optional<std::string>("--mix takes OP=WEIGHT for write, read, stat, delete");
    }
    if (parser.isSet("profile")) {
        if (parser.value("profile") != "default")
            return std::optional<std::string>(
                "--profile takes 'default' (KDiskMark's SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K "
                "Q1T1)");
        if (parser.isSet("sizes") || parser.isSet("pattern") || parser.isSet("queue-depth")
            || parser.isSet("concurrency"))
            return std::optional<std::string>(
                "--profile sets block sizes, pattern, queue depth and threads: give it alone, or "
                "those options without it");
        options.profiles = defaultBlockProfiles();
    }
    if (parser.isSet("pattern")) {
        const std::string p = parser.value("pattern");
        if (p == "seq" || p == "sequential")
            options.pattern = BlockPattern::Sequential;
        else if (p == "rand" || p == "random")
            options.pattern = BlockPattern::Random;
        else
            return std::optional<std::string>("--pattern takes seq or rand");
    }
    if (parser.isSet("queue-depth")) {
        const auto n = parseNumber<int>(parser.value("queue-depth"));
        if (!n || *n < 1 || *n > 256)
            return std::optional<std::string>("--queue-depth takes a number of requests in flight from 1 to 256");
        options.queueDepth = *n;
    }
    options.direct = parser.isSet("direct");
    options.latency = !parser.isSet("no-latency");
    options.allowOverwrite = parser.isSet("allow-overwrite");
    if (parser.isSet("region")) {
        // [START+]LENGTH
        const std::string text = parser.value("region");
        const auto plus = text.find('+');
        const auto length = parseByteSize(plus == std::string::npos ? text : text.substr(plus + 1));
        const auto start =
            plus == std::string::npos ? std::optional<std::uint64_t>(0) : parseByteSize(text.substr(0, plus));
        if (!length || *length == 0 || !start)
            return std::optional<std::string>("--region takes [START+]LENGTH, like 1GiB or 4GiB+512MiB");
        options.regionLength = *length;
        options.regionOffset = *start;
    }
    if (parser.isSet("interval") && !parser.isSet("timeline"))
        return std::optional<std::string>("--interval is the timeline's: give --timeline FILE.csv too");
    if (parser.isSet("timeline")) {
        if (!parser.isSet("duration"))
            return std::optional<std::string>(
                "--timeline follows fixed-time runs: give --duration too, like --duration 30s");
        options.timelineInterval = std::chrono::seconds(1);
        if (parser.isSet("interval")) {
            auto d = parseDuration(parser.value("interval"));
            if (!d || *d < std::chrono::milliseconds(10))
                return std::optional<std::string>("--interval takes a duration of at least 10ms, like 1s or 250ms");
            options.timelineInterval = *d;
        }
    }
    return std::nullopt;
}

TimelineFile openTimelineFile(const std::string &path)
{
    TimelineFile file(std::fopen(path.c_str(), "w"), &std::fclose);
    if (file) {
        std::fputs(timelineCsvHeader().c_str(), file.get());
        std::fflush(file.get());
    }
    return file;
}

int commandBench(Context &context, const ArgParser &parser)
{
    if (parser.isSet("agent"))
        return parser.positionalArguments().empty() ? runBenchAgent(context, parser)
                                                    : context.usage("--agent takes its run from its input, not a URI");
    if (parser.positionalArguments().size() != 1)
        return context.usage("give one location to benchmark");
    if (parser.isSet("hosts") || parser.isSet("hosts-file"))
        return runBenchOnHosts(context, parser);
    for (const char *own : {"ssh", "strata-path", "on-host-failure"})
        if (parser.isSet(own))
            return context.usage(std::string("--") + own + " is for runs on many hosts: give --hosts too");
    BenchOptions options;
    if (auto wrong = parseBenchOptions(parser, options))
        return context.usage(*wrong);
    const std::string label = parser.value("label");
    const bool json = parser.isSet("json");
    const bool csv = parser.isSet("csv");
    if (json && csv)
        return context.usage("choose one of --json and --csv");

    std::vector<Location> locations;
    std::vector<std::string> arguments{parser.positionalArguments().front()};
    if (parser.isSet("vs"))
        arguments.push_back(parser.value("vs"));
    for (const auto &a : arguments) {
        auto loc = context.open(a);
        if (!loc)
            return context.fail(loc.error());
        locations.push_back(std::move(*loc));
    }
    std::vector<std::pair<Operator *, std::string>> targets;
    targets.reserve(locations.size());
    for (auto &l : locations)
        targets.emplace_back(l.op.get(), l.path);

    // The timeline, line by line as intervals end (flushed: `tail -f` follows it).
    TimelineFile timeline(nullptr, &std::fclose);
    if (options.timelineInterval.count() > 0) {
        timeline = openTimelineFile(parser.value("timeline"));
        if (!timeline)
            return context.fail(errorFromErrno(errno).withContext("write", parser.value("timeline")));
    }
    TimelineObserver onInterval;
    if (timeline)
        onInterval = [&](const TimelinePoint &p) {
            std::fputs(timelineCsvLine(p, locations[std::size_t(p.target)].display()).c_str(), timeline.get());
            std::fflush(timeline.get());
        };

    std::stop_source stop;
    InterruptWatch interrupts;
    interrupts.watch([&stop] { stop.request_stop(); });
    // Text results stream as they come (stdout), one header per target.
    std::vector<std::string> texts(locations.size());
    for (std::size_t i = 0; i < locations.size(); ++i)
        texts[i] = goHeader(locations[i].display(), label);
    const bool stream = !json && !csv && locations.size() == 1;
    if (stream) {
        std::fputs(texts[0].c_str(), context.out);
        std::fflush(context.out);
    }
    std::size_t turn = 0;
    auto results = runBench(
        targets, options, stop.get_token(),
        [&](const BenchRun &r) {
            const std::size_t t = turn++ % locations.size();
            const std::string line = goLine(r);
            texts[t] += line;
            if (stream) {
                std::fputs(line.c_str(), context.out);
                std::fflush(context.out);
            }
        },
        onInterval);
    if (!results)
        return interrupts.interrupted() ? (context.fail(results.error()), 130) : context.fail(results.error());

    // What the numbers should be read with (comment lines in the text, a list in JSON).
    std::vector<std::vector<BenchFlag>> flags(locations.size());
    for (std::size_t t = 0; t < locations.size(); ++t) {
        flags[t] = checkRuns((*results)[t], benchTarget(locations[t].op->uriFor("/")));
        const std::string lines = flagLines(flags[t]);
        texts[t] += lines;
        if (stream) {
            std::fputs(lines.c_str(), context.out);
            std::fflush(context.out);
        }
    }

    // The history the GUI picks runs from: one Go text file per target and run.
    std::vector<std::pair<std::string, std::string>> kept;
    for (std::size_t i = 0; i < locations.size(); ++i)
        kept.emplace_back(locations[i].display(), texts[i]);
    keepBenchHistory(context, label, kept);

    if (json) {
        json::Array all;
        for (std::size_t t = 0; t < results->size(); ++t)
            for (const auto &r : (*results)[t]) {
                json::Object run{{"target", locations[t].display()},
                                 {"name", "Benchmark" + r.name},
                                 {"op", toString(r.op)},
                                 {"size", r.size},
                                 {"concurrency", r.concurrency},
                                 {"iterations", r.iterations},
                                 {"ns_per_op", r.nsPerOp},
                                 {"mb_per_s", r.mbPerSecond},
                                 {"bytes_per_op", r.bytesPerOp},
                                 {"allocs_per_op", r.allocsPerOp},
                                 {"latency", latencyJson(r)}};
                if (r.block) {
                    // A block workload: size is the block size, concurrency the threads.
                    run["pattern"] = r.pattern == BlockPattern::Sequential ? "seq" : "rand";
                    run["queue_depth"] = r.queueDepth;
                    run["working_set"] = r.workingSet;
                    run["direct"] = r.direct;
                }
                all.push_back(std::move(run));
            }
        json::Array flagged;
        for (std::size_t t = 0; t < flags.size(); ++t)
            for (const auto &f : flags[t])
                flagged.push_back(json::Object{{"target", locations[t].display()},
                                               {"name", f.benchmark.empty() ? "" : "Benchmark" + f.benchmark},
                                               {"flag", f.kind},
                                               {"detail", f.detail}});
        writeJson(context.out, json::Object{{"label", label}, {"runs", std::move(all)}, {"flags", std::move(flagged)}});
    } else if (csv) {
        std::string out = "target,name,op,size,concurrency,iterations,ns_per_op,mb_per_s,bytes_per_op,allocs_per_op,"
                          "p50_ns,p90_ns,p99_ns,p99_9_ns,max_ns,ttfb_p50_ns,ttfb_p99_ns,histogram,ttfb_histogram\n";
        // A distribution as FROM/WIDTH/COUNT triples (nanoseconds), one per bucket, quoted.
        const auto triples = [](const std::vector<LatencyHistogram::Bucket> &buckets) {
            std::string text = "\"";
            for (std::size_t i = 0; i < buckets.size(); ++i)
                text += (i ? " " : "") + std::to_string(buckets[i].from) + "/" + std::to_string(buckets[i].width) + "/"
                    + std::to_string(buckets[i].count);
            return text + "\"";
        };
        for (std::size_t t = 0; t < results->size(); ++t)
            for (const auto &r : (*results)[t]) {
                char buf[256];
                std::snprintf(buf, sizeof buf, ",Benchmark%s,%s,%llu,%d,%llu,%.1f,%.2f,%.1f,%.2f\n", r.name.c_str(),
                              std::string(toString(r.op)).c_str(), static_cast<unsigned long long>(r.size),
                              r.concurrency, static_cast<unsigned long long>(r.iterations), r.nsPerOp, r.mbPerSecond,
                              r.bytesPerOp, r.allocsPerOp);
                std::string line = buf;
                line.pop_back(); // the newline: the latency columns follow
                // p50 … max, then the time to first byte (empty but for reads of objects).
                const auto metrics = latencyMetrics(r);
                for (std::size_t i = 0; i < 7; ++i)
                    line += "," + (i < metrics.size() ? std::to_string(metrics[i].second) : std::string());
                // The distributions: every operation's, and (reads of objects) the first byte's.
                line += "," + triples(r.histogram) + "," + triples(r.firstByteHistogram);
                out += "\"" + locations[t].display() + "\"" + line + "\n";
            }
        std::fputs(out.c_str(), context.out);
    } else if (!stream) {
        for (const auto &t : texts) {
            std::fputs(t.c_str(), context.out);
            std::fputs("\n", context.out);
        }
    }
    if (!json && !csv && results->size() > 1) {
        // --vs: the comparison, benchstat's method and layout.
        std::vector<BenchstatInput> inputs;
        for (std::size_t t = 0; t < results->size(); ++t) {
            BenchstatInput in;
            in.label = locations[t].display();
            for (const auto &r : (*results)[t])
                in.results.push_back(toBenchResult(r, procs()));
            inputs.push_back(std::move(in));
        }
        const auto report = benchstat(inputs);
        const std::string table = formatBenchstatText(report);
        std::fputs(table.c_str(), context.out);
    }
    std::fflush(context.out);
    return Success;
}

int commandBenchstat(Context &context, const ArgParser &parser)
{
    const std::string format = parser.isSet("format") ? parser.value("format") : "text";
    if (format != "text" && format != "csv" && format != "json")
        return context.usage("--format takes text, csv or json");
    BenchstatOptions options;
    if (parser.isSet("alpha")) {
        const auto alpha = parseNumber<double>(parser.value("alpha"));
        if (!alpha || *alpha <= 0 || *alpha >= 1)
            return context.usage("--alpha takes a significance level between 0 and 1, like 0.05");
        options.alpha = *alpha;
    }
    std::vector<BenchstatInput> inputs;
    for (const auto &path : parser.positionalArguments()) {
        auto text = readFile(path);
        if (!text)
            return context.fail(text.error().withContext("read", path));
        std::vector<std::string> warnings;
        auto results = parseGoBench(*text, &warnings, &options.units);
        if (!results)
            return context.fail(results.error().withContext("read", path));
        for (const auto &w : warnings)
            write(context.err, "strata benchstat: " + printable(path) + ": " + printable(w) + "\n");
        if (results->empty())
            write(context.err, "strata benchstat: " + printable(path) + " holds no benchmark results\n");
        inputs.push_back({path, std::move(*results)});
    }
    const auto report = benchstat(inputs, options);
    std::string out;
    if (format == "json") {
        out = formatBenchstatJson(report);
    } else if (format == "csv") {
        std::vector<std::string> warnings;
        out = formatBenchstatCsv(report, &warnings);
        for (const auto &w : warnings)
            write(context.err, "strata benchstat: " + printable(w) + "\n");
    } else {
        out = formatBenchstatText(report);
    }
    std::fputs(out.c_str(), context.out);
    std::fflush(context.out);
    return Success;
}

} // namespace strata::cli

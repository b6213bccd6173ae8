// strata bench: the benchmark engine (core/bench) on the command line, Go's output format.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt_watch.h"
#include "core/bench/bench_runner.h"
#include "core/bench/benchstat.h"
#include "core/bench/go_bench.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QSysInfo>

#include <cmath>
#include <fstream>
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
                       : y >= 99.995          ? "%12.1f"
                       : y >= 9.9995          ? "%13.2f"
                       : y >= 0.99995         ? "%14.3f"
                       : y >= 0.099995        ? "%15.4f"
                       : y >= 0.0099995       ? "%16.5f"
                                              : "%17.6f";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, x);
    return buf;
}

int procs()
{
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

std::string goLine(const BenchRun &r)
{
    std::string line = "Benchmark" + r.name + "-" + std::to_string(procs());
    char buf[64];
    std::snprintf(buf, sizeof buf, "\t%8llu", static_cast<unsigned long long>(r.iterations));
    line += buf;
    line += "\t" + goNumber(r.nsPerOp) + " ns/op";
    if (r.mbPerSecond > 0) {
        std::snprintf(buf, sizeof buf, "\t%8.2f MB/s", r.mbPerSecond);
        line += buf;
    }
    std::snprintf(buf, sizeof buf, "\t%8lld B/op\t%8lld allocs/op", static_cast<long long>(r.bytesPerOp),
                  static_cast<long long>(r.allocsPerOp));
    line += buf;
    return line + "\n";
}

std::string goHeader(const std::string &target, const std::string &label)
{
    // The target and label are free text, not configuration lines: benchstat splits its
    // tables by configuration, and runs of two targets must stay comparable.
    std::string h = "# strata bench of " + target + (label.empty() ? std::string() : " (" + label + ")") + "\n";
    h += "goos: linux\ngoarch: " + QSysInfo::buildCpuArchitecture().replace(QStringLiteral("x86_64"), QStringLiteral("amd64")).toStdString()
        + "\npkg: strata\ncpu: " + cpuModel() + "\n";
    return h;
}

std::optional<std::vector<std::uint64_t>> parseSizes(const QString &text)
{
    std::vector<std::uint64_t> out;
    for (const auto &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        QString p = part.trimmed();
        if (p.endsWith(QStringLiteral("iB"), Qt::CaseInsensitive))
            p.chop(2);
        else if (p.endsWith(QLatin1Char('B'), Qt::CaseInsensitive) && p.size() > 1 && p[p.size() - 2].isDigit())
            p.chop(1);
        auto size = parseSize(p);
        if (!size || *size == 0 || *size > (1ull << 30))
            return std::nullopt;
        out.push_back(*size);
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

std::optional<std::chrono::nanoseconds> parseDuration(const QString &text)
{
    static const std::pair<const char *, double> units[] = {{"ms", 1e6}, {"us", 1e3}, {"ns", 1}, {"s", 1e9}, {"m", 60e9}};
    for (const auto &[suffix, scale] : units) {
        if (text.endsWith(QLatin1String(suffix))) {
            bool ok = false;
            const double v = text.chopped(int(std::strlen(suffix))).toDouble(&ok);
            if (!ok || v <= 0 || v * scale > 3600e9)
                return std::nullopt;
            return std::chrono::nanoseconds(std::int64_t(v * scale));
        }
    }
    return std::nullopt;
}

} // namespace

int commandBench(Context &context, const QCommandLineParser &parser)
{
    BenchOptions options;
    if (parser.isSet(QStringLiteral("ops"))) {
        options.ops.clear();
        for (const auto &name : parser.value(QStringLiteral("ops")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            auto op = parseBenchOp(name.trimmed().toLower().toStdString());
            if (!op)
                return context.usage(QStringLiteral("--ops takes a list of write, read, stat, list, delete; not '%1'").arg(name));
            options.ops.push_back(*op);
        }
    }
    if (parser.isSet(QStringLiteral("sizes"))) {
        auto sizes = parseSizes(parser.value(QStringLiteral("sizes")));
        if (!sizes)
            return context.usage(QStringLiteral("--sizes takes a list of sizes up to 1GiB, like 4KiB,256KiB,4MiB,16MiB"));
        options.sizes = *sizes;
    }
    if (parser.isSet(QStringLiteral("count"))) {
        bool ok = false;
        options.count = parser.value(QStringLiteral("count")).toInt(&ok);
        if (!ok || options.count < 1 || options.count > 1000)
            return context.usage(QStringLiteral("--count takes a number of runs from 1 to 1000"));
    }
    if (parser.isSet(QStringLiteral("benchtime"))) {
        auto d = parseDuration(parser.value(QStringLiteral("benchtime")));
        if (!d)
            return context.usage(QStringLiteral("--benchtime takes a duration like 1s, 500ms or 2m"));
        options.benchtime = *d;
    }
    if (parser.isSet(QStringLiteral("concurrency"))) {
        options.concurrency.clear();
        for (const auto &c : parser.value(QStringLiteral("concurrency")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const int n = c.trimmed().toInt(&ok);
            if (!ok || n < 1 || n > 256)
                return context.usage(QStringLiteral("--concurrency takes a list of worker counts from 1 to 256, like 1,4,16"));
            options.concurrency.push_back(n);
        }
    }
    const std::string label = parser.value(QStringLiteral("label")).toStdString();
    const bool json = parser.isSet(QStringLiteral("json"));
    const bool csv = parser.isSet(QStringLiteral("csv"));
    if (json && csv)
        return context.usage(QStringLiteral("choose one of --json and --csv"));

    std::vector<Location> locations;
    QStringList arguments{parser.positionalArguments().constFirst()};
    if (parser.isSet(QStringLiteral("vs")))
        arguments << parser.value(QStringLiteral("vs"));
    for (const auto &a : arguments) {
        auto loc = context.open(a);
        if (!loc)
            return context.fail(loc.error());
        locations.push_back(std::move(*loc));
    }
    std::vector<std::pair<Operator *, std::string>> targets;
    for (auto &l : locations)
        targets.emplace_back(l.op.get(), l.path);

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
    auto results = runBench(targets, options, stop.get_token(), [&](const BenchRun &r) {
        const std::size_t t = turn++ % locations.size();
        const std::string line = goLine(r);
        texts[t] += line;
        if (stream) {
            std::fputs(line.c_str(), context.out);
            std::fflush(context.out);
        }
    });
    if (!results)
        return interrupts.interrupted() ? (context.fail(results.error()), 130) : context.fail(results.error());

    // The history the GUI picks runs from: one Go text file per target and run.
    const QString dir = QString::fromStdString(benchHistoryDir());
    QDir().mkpath(dir);
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    for (std::size_t i = 0; i < locations.size(); ++i) {
        QString name = QString::fromStdString(label.empty() ? locations[i].op->uriFor("/").scheme() : label);
        name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")), QStringLiteral("_"));
        QFile file(dir + QStringLiteral("/%1-%2%3.txt").arg(stamp, name, i ? QStringLiteral("-vs") : QString()));
        if (file.open(QIODevice::WriteOnly))
            file.write(QByteArray::fromStdString(texts[i]));
    }

    if (json) {
        QJsonArray all;
        for (std::size_t t = 0; t < results->size(); ++t)
            for (const auto &r : (*results)[t])
                all.append(QJsonObject{{QStringLiteral("target"), QString::fromStdString(locations[t].display())},
                                       {QStringLiteral("name"), QString::fromStdString("Benchmark" + r.name)},
                                       {QStringLiteral("op"), QString::fromLatin1(toString(r.op).data(), qsizetype(toString(r.op).size()))},
                                       {QStringLiteral("size"), qint64(r.size)},
                                       {QStringLiteral("concurrency"), r.concurrency},
                                       {QStringLiteral("iterations"), qint64(r.iterations)},
                                       {QStringLiteral("ns_per_op"), r.nsPerOp},
                                       {QStringLiteral("mb_per_s"), r.mbPerSecond},
                                       {QStringLiteral("bytes_per_op"), r.bytesPerOp},
                                       {QStringLiteral("allocs_per_op"), r.allocsPerOp}});
        const QByteArray text = QJsonDocument(QJsonObject{{QStringLiteral("label"), QString::fromStdString(label)},
                                                          {QStringLiteral("runs"), all}})
                                    .toJson(QJsonDocument::Indented);
        std::fwrite(text.constData(), 1, std::size_t(text.size()), context.out);
    } else if (csv) {
        std::string out = "target,name,op,size,concurrency,iterations,ns_per_op,mb_per_s,bytes_per_op,allocs_per_op\n";
        for (std::size_t t = 0; t < results->size(); ++t)
            for (const auto &r : (*results)[t]) {
                char buf[256];
                std::snprintf(buf, sizeof buf, ",Benchmark%s,%s,%llu,%d,%llu,%.1f,%.2f,%.1f,%.2f\n", r.name.c_str(),
                              std::string(toString(r.op)).c_str(), static_cast<unsigned long long>(r.size), r.concurrency,
                              static_cast<unsigned long long>(r.iterations), r.nsPerOp, r.mbPerSecond, r.bytesPerOp,
                              r.allocsPerOp);
                out += "\"" + locations[t].display() + "\"" + buf;
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

int commandBenchstat(Context &context, const QCommandLineParser &parser)
{
    const QString format = parser.isSet(QStringLiteral("format")) ? parser.value(QStringLiteral("format")) : QStringLiteral("text");
    if (format != QLatin1String("text") && format != QLatin1String("csv") && format != QLatin1String("json"))
        return context.usage(QStringLiteral("--format takes text, csv or json"));
    BenchstatOptions options;
    if (parser.isSet(QStringLiteral("alpha"))) {
        bool ok = false;
        options.alpha = parser.value(QStringLiteral("alpha")).toDouble(&ok);
        if (!ok || options.alpha <= 0 || options.alpha >= 1)
            return context.usage(QStringLiteral("--alpha takes a significance level between 0 and 1, like 0.05"));
    }
    std::vector<BenchstatInput> inputs;
    for (const auto &path : parser.positionalArguments()) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return context.fail(Error(ErrorKind::NotFound, file.errorString().toStdString()).withContext("read", path.toStdString()));
        const QByteArray text = file.readAll();
        std::vector<std::string> warnings;
        auto results = parseGoBench(std::string_view(text.constData(), std::size_t(text.size())), &warnings, &options.units);
        if (!results)
            return context.fail(results.error().withContext("read", path.toStdString()));
        for (const auto &w : warnings)
            write(context.err, QStringLiteral("strata benchstat: %1: %2\n").arg(path, QString::fromStdString(w)));
        if (results->empty())
            write(context.err, QStringLiteral("strata benchstat: %1 holds no benchmark results\n").arg(path));
        inputs.push_back({path.toStdString(), std::move(*results)});
    }
    const auto report = benchstat(inputs, options);
    std::string out;
    if (format == QLatin1String("json")) {
        out = formatBenchstatJson(report);
    } else if (format == QLatin1String("csv")) {
        std::vector<std::string> warnings;
        out = formatBenchstatCsv(report, &warnings);
        for (const auto &w : warnings)
            write(context.err, QStringLiteral("strata benchstat: %1\n").arg(QString::fromStdString(w)));
    } else {
        out = formatBenchstatText(report);
    }
    std::fputs(out.c_str(), context.out);
    std::fflush(context.out);
    return Success;
}

} // namespace strata::cli

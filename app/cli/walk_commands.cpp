// strata walk and strata du: the tree walker (core/walk) on the command line.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/io/json_text.h"
#include "core/walk/walker.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>
#include <unistd.h>

namespace strata::cli {

namespace {


std::string_view kindName(EntryKind kind)
{
    return toString(kind);
}

// Reads the options walk and du share; on a bad value, the usage exit code.
std::optional<int> readWalkOptions(Context &context, const QCommandLineParser &parser, WalkOptions &options)
{
    options.follow = parser.isSet(QStringLiteral("follow"));
    options.oneFileSystem = parser.isSet(QStringLiteral("one-file-system"));
    for (const auto &glob : parser.values(QStringLiteral("exclude"))) {
        if (glob.isEmpty())
            return context.usage(QStringLiteral("--exclude takes a glob, like '*.o' or node_modules"));
        options.excludes.push_back(glob.toStdString());
    }
    if (parser.isSet(QStringLiteral("threads"))) {
        bool ok = false;
        const int n = parser.value(QStringLiteral("threads")).toInt(&ok);
        if (!ok || n < 1 || n > 256)
            return context.usage(QStringLiteral("--threads takes a number from 1 to 256"));
        options.threads = std::size_t(n);
    }
    return std::nullopt;
}

// A line on stderr, every 200 ms while a long walk runs (on a terminal only).
class WalkTicker {
public:
    WalkTicker(std::FILE *err, bool enabled) : m_err(err)
    {
        if (enabled)
            m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
    }
    ~WalkTicker() { finish(); }
    void add(std::size_t n) { m_count.fetch_add(n, std::memory_order_relaxed); }
    void finish()
    {
        if (m_thread.joinable()) {
            m_thread.request_stop();
            m_wake.notify_all();
            m_thread.join();
            if (m_shown)
                std::fputs("\r\033[K", m_err);
        }
    }

private:
    void run(std::stop_token stop)
    {
        std::mutex mutex;
        std::unique_lock lock(mutex);
        while (!stop.stop_requested()) {
            m_wake.wait_for(lock, stop, std::chrono::milliseconds(200), [] { return false; });
            if (stop.stop_requested())
                break;
            std::fprintf(m_err, "\r\033[Kscanning: %llu entries", static_cast<unsigned long long>(m_count.load()));
            std::fflush(m_err);
            m_shown = true;
        }
    }

    std::FILE *m_err;
    std::atomic<std::uint64_t> m_count{0};
    std::condition_variable_any m_wake;
    bool m_shown = false;
    std::jthread m_thread;
};

void reportErrors(Context &context, const WalkSummary &summary, const QString &root)
{
    for (const auto &e : summary.errors)
        write(context.err, QStringLiteral("strata: cannot read %1: %2\n")
                               .arg(e.path.empty() ? root : root + QLatin1Char('/') + QString::fromStdString(e.path),
                                    QString::fromStdString(e.message)));
}

// The prefix printed before relative paths: the argument as typed for local paths, the
// backend path for others (URIs with queries would not read as paths).
std::string printPrefix(const Location &loc, const QString &argument)
{
    if (loc.op->localPath(loc.path)) {
        std::string p = argument.toStdString();
        if (p.starts_with("file://"))
            p = loc.path;
        while (p.size() > 1 && p.back() == '/')
            p.pop_back();
        return p;
    }
    return loc.path == "/" ? std::string() : loc.path;
}

} // namespace

int commandWalk(Context &context, const QCommandLineParser &parser)
{
    WalkOptions options;
    if (auto code = readWalkOptions(context, parser, options))
        return *code;
    if (parser.isSet(QStringLiteral("max-depth"))) {
        bool ok = false;
        options.maxDepth = parser.value(QStringLiteral("max-depth")).toInt(&ok);
        if (!ok || options.maxDepth < 1)
            return context.usage(QStringLiteral("--max-depth takes a number of levels, at least 1"));
    }
    const bool json = parser.isSet(QStringLiteral("json"));
    options.stat = json;
    const QString argument = parser.positionalArguments().constFirst();
    auto loc = context.open(argument);
    if (!loc)
        return context.fail(loc.error());
    const std::string prefix = printPrefix(*loc, argument);
    std::string out;
    out.reserve(1u << 20);
    std::FILE *file = context.out;
    const WalkSink sink = [&](std::span<const WalkEntry> entries) {
        for (const auto &e : entries) {
            if (json) {
                out += "{\"path\":";
                std::string full = prefix;
                full.push_back('/');
                full.append(e.path);
                appendJsonString(out, full);
                out += ",\"kind\":\"";
                out += kindName(e.kind);
                out += "\",\"size\":";
                out += std::to_string(e.size);
                out += ",\"allocated\":";
                out += std::to_string(e.allocated);
                out += ",\"depth\":";
                out += std::to_string(e.depth);
                out += "}\n";
            } else {
                out += prefix;
                out.push_back('/');
                out.append(e.path);
                out.push_back('\n');
            }
        }
        if (out.size() >= (1u << 20) - 4096) {
            std::fwrite(out.data(), 1, out.size(), file);
            out.clear();
        }
    };
    auto summary = walkTree(*loc->op, loc->path, options, sink);
    if (!out.empty())
        std::fwrite(out.data(), 1, out.size(), file);
    std::fflush(file);
    if (!summary)
        return context.fail(summary.error());
    reportErrors(context, *summary, QString::fromStdString(prefix.empty() ? loc->display() : prefix));
    return summary->errors.empty() ? Success : Failure;
}

int commandDu(Context &context, const QCommandLineParser &parser)
{
    WalkOptions options;
    if (auto code = readWalkOptions(context, parser, options))
        return *code;
    int depth = 1;
    if (parser.isSet(QStringLiteral("depth"))) {
        bool ok = false;
        depth = parser.value(QStringLiteral("depth")).toInt(&ok);
        if (!ok || depth < 0)
            return context.usage(QStringLiteral("--depth takes a number of levels (0: the total only)"));
    }
    int top = -1;
    if (parser.isSet(QStringLiteral("top"))) {
        bool ok = false;
        top = parser.value(QStringLiteral("top")).toInt(&ok);
        if (!ok || top < 1)
            return context.usage(QStringLiteral("--top takes a number of lines, at least 1"));
    }
    const bool apparent = parser.isSet(QStringLiteral("apparent"));
    const bool json = parser.isSet(QStringLiteral("json"));
    options.totals = true;
    options.paths = false; // du counts; it prints directories from the totals
    const QString argument = parser.positionalArguments().constFirst();
    auto loc = context.open(argument);
    if (!loc)
        return context.fail(loc.error());
    WalkTicker ticker(context.err, !json && ::isatty(fileno(context.err)));
    auto summary = walkTree(*loc->op, loc->path, options, [&](std::span<const WalkEntry> e) { ticker.add(e.size()); });
    ticker.finish();
    if (!summary)
        return context.fail(summary.error());
    const std::string prefix = printPrefix(*loc, argument);
    const QString root = QString::fromStdString(prefix.empty() ? loc->display() : prefix);
    auto &dirs = summary->directories;
    std::vector<const DirTotals *> shown;
    for (const auto &d : dirs)
        if (d.depth <= depth)
            shown.push_back(&d);
    auto sizeOf = [apparent](const DirTotals &d) { return apparent ? d.bytes : d.allocated; };
    std::stable_sort(shown.begin(), shown.end(), [&](const DirTotals *a, const DirTotals *b) { return sizeOf(*a) > sizeOf(*b); });
    if (top > 0 && shown.size() > std::size_t(top))
        shown.resize(std::size_t(top));
    auto pathOf = [&](const DirTotals &d) {
        return d.path.empty() ? root : root + (root.endsWith(QLatin1Char('/')) ? QString() : QStringLiteral("/")) + QString::fromStdString(d.path);
    };
    if (json) {
        QJsonArray array;
        for (const auto *d : shown)
            array.append(QJsonObject{{QStringLiteral("path"), pathOf(*d)},
                                     {QStringLiteral("bytes"), qint64(d->bytes)},
                                     {QStringLiteral("allocated"), qint64(d->allocated)},
                                     {QStringLiteral("files"), qint64(d->files)},
                                     {QStringLiteral("dirs"), qint64(d->dirs)}});
        QJsonArray errors;
        for (const auto &e : summary->errors)
            errors.append(QJsonObject{{QStringLiteral("path"), QString::fromStdString(e.path)},
                                      {QStringLiteral("message"), QString::fromStdString(e.message)}});
        const QJsonObject o{{QStringLiteral("path"), root},
                            {QStringLiteral("bytes"), qint64(summary->bytes)},
                            {QStringLiteral("allocated"), qint64(summary->allocated)},
                            {QStringLiteral("files"), qint64(summary->files)},
                            {QStringLiteral("dirs"), qint64(summary->dirs)},
                            {QStringLiteral("symlinks"), qint64(summary->symlinks)},
                            {QStringLiteral("hardLinks"), qint64(summary->hardLinks)},
                            {QStringLiteral("revisits"), qint64(summary->revisits)},
                            {QStringLiteral("excluded"), qint64(summary->excluded)},
                            {QStringLiteral("directories"), array},
                            {QStringLiteral("errors"), errors}};
        const QByteArray text = QJsonDocument(o).toJson(QJsonDocument::Indented);
        std::fwrite(text.constData(), 1, std::size_t(text.size()), context.out);
    } else {
        QString text;
        for (const auto *d : shown)
            text += QStringLiteral("%1\t%2\n").arg(humanSize(sizeOf(*d)), 10).arg(pathOf(*d));
        text += QStringLiteral("%1 files, %2 directories, %3 (%4 on disk)")
                    .arg(summary->files)
                    .arg(summary->dirs)
                    .arg(humanSize(summary->bytes), humanSize(summary->allocated));
        if (summary->hardLinks)
            text += QStringLiteral(", %1 hard links counted once").arg(summary->hardLinks);
        if (summary->revisits)
            text += QStringLiteral(", %1 directories reached again through links (walked once)").arg(summary->revisits);
        text += QLatin1Char('\n');
        write(context.out, text);
    }
    reportErrors(context, *summary, root);
    return summary->errors.empty() ? Success : Failure;
}

} // namespace strata::cli

// strata walk and strata du: the tree walker (core/walk) on the command line.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/io/json.h"
#include "core/io/size_text.h"
#include "core/storage/path.h"
#include "core/storage/printable.h"
#include "core/walk/find.h"
#include "core/walk/scan.h"
#include "core/walk/walker.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace strata::cli {

namespace {

std::string_view kindName(EntryKind kind)
{
    return toString(kind);
}

// Reads the options walk and du share; on a bad value, the usage exit code.
std::optional<int> readWalkOptions(Context &context, const ArgParser &parser, WalkOptions &options)
{
    options.follow = parser.isSet("follow");
    options.oneFileSystem = parser.isSet("one-file-system");
    for (auto &glob : parser.values("exclude")) {
        if (glob.empty())
            return context.usage("--exclude takes a glob, like '*.o' or node_modules");
        options.excludes.push_back(std::move(glob));
    }
    if (parser.isSet("threads")) {
        const auto n = parseNumber<int>(parser.value("threads"));
        if (!n || *n < 1 || *n > 256)
            return context.usage("--threads takes a number from 1 to 256");
        options.threads = std::size_t(*n);
    }
    return std::nullopt;
}

// A line on stderr, every 200 ms while a long walk runs (on a terminal only).
class WalkTicker {
public:
    WalkTicker(std::FILE *err, bool enabled) : m_err(err)
    {
        if (enabled)
            m_thread = std::jthread([this](const std::stop_token &stop) { run(stop); });
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
    void run(const std::stop_token &stop)
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

void reportErrors(Context &context, const WalkSummary &summary, const std::string &root)
{
    for (const auto &e : summary.errors)
        write(context.err,
              "strata: cannot read " + printable(e.path.empty() ? root : root + '/' + e.path) + ": "
                  + printable(e.message) + "\n");
}

// The prefix printed before relative paths: the argument as typed for local paths, the
// backend path for others (URIs with queries would not read as paths).
std::string printPrefix(const Location &loc, const std::string &argument)
{
    if (loc.op->localPath(loc.path)) {
        std::string p = argument;
        if (p.starts_with("file://"))
            p = loc.path;
        while (p.size() > 1 && p.back() == '/')
            p.pop_back();
        return p;
    }
    return loc.path == "/" ? std::string() : loc.path;
}

// The path of `relative` (as a walk names it) below `dir`.
std::string below(const std::string &dir, std::string_view relative)
{
    return relative.empty() ? dir : joinPath(dir, relative);
}

} // namespace

int commandWalk(Context &context, const ArgParser &parser)
{
    WalkOptions options;
    if (auto code = readWalkOptions(context, parser, options))
        return *code;
    if (parser.isSet("max-depth")) {
        const auto n = parseNumber<int>(parser.value("max-depth"));
        if (!n || *n < 1)
            return context.usage("--max-depth takes a number of levels, at least 1");
        options.maxDepth = *n;
    }
    const bool json = parser.isSet("json");
    options.stat = json;
    const std::string &argument = parser.positionalArguments().front();
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
                out += json::quoted(full);
                out += ",\"path_raw\":";
                out += json::quoted(json::exactText(full));
                out += ",\"uri\":";
                out += json::quoted(loc->op->display(below(loc->path, e.path)));
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
                appendPrintable(out, e.path); // a name cannot drive the terminal
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
    reportErrors(context, *summary, prefix.empty() ? loc->display() : prefix);
    return summary->errors.empty() ? Success : Failure;
}

namespace {

// The walk's depth limits and the tests of strata find; on a bad value, the usage exit code.
std::optional<int> readFindCriteria(Context &context, const ArgParser &parser, FindCriteria &criteria, int &minDepth,
                                    int &maxDepth)
{
    for (const char *name : {"min-depth", "max-depth"}) {
        if (!parser.isSet(name))
            continue;
        const auto n = parseNumber<int>(parser.value(name));
        if (!n || *n < 0)
            return context.usage(std::string("--") + name + " takes a number of levels (0: URI itself)");
        (std::string_view(name) == "min-depth" ? minDepth : maxDepth) = *n;
    }
    if (parser.isSet("name")) {
        criteria.name = parser.value("name");
        if (criteria.name.empty())
            return context.usage("--name takes a glob, like '*.jpg'");
    }
    criteria.ignoreCase = parser.isSet("iname");
    if (parser.isSet("size")) {
        criteria.size = parseSizeTest(parser.value("size"));
        if (!criteria.size)
            return context.usage("--size takes [+-]N[cwbkMG], like +10M (more than 10 MiB) or -4k, as find does");
    }
    const auto now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (const char *name : {"newer", "older"}) {
        if (!parser.isSet(name))
            continue;
        const auto time = parseFindTime(parser.value(name), now);
        if (!time)
            return context.usage(std::string("--") + name
                                 + " takes a date (2026-12-03, 2026-12-03 14:05, 2026-12-03T14:05:30Z) or an age "
                                   "(30m, 12h, 7d, 2w)");
        (std::string_view(name) == "newer" ? criteria.newerNs : criteria.olderNs) = *time;
    }
    if (parser.isSet("type")) {
        const std::string type = parser.value("type");
        if (type == "f")
            criteria.kind = EntryKind::File;
        else if (type == "d")
            criteria.kind = EntryKind::Directory;
        else if (type == "l")
            criteria.kind = EntryKind::Symlink;
        else
            return context.usage("--type takes f (files), d (directories) or l (symbolic links)");
    }
    return std::nullopt;
}

} // namespace

int commandFind(Context &context, const ArgParser &parser)
{
    WalkOptions options;
    if (auto code = readWalkOptions(context, parser, options))
        return *code;
    FindCriteria criteria;
    int minDepth = 0, maxDepth = -1;
    if (auto code = readFindCriteria(context, parser, criteria, minDepth, maxDepth))
        return *code;
    const FindFilter filter(std::move(criteria));
    const bool json = parser.isSet("json");
    options.stat = json || filter.criteria().needsStat();
    options.maxDepth = maxDepth;
    const std::string &argument = parser.positionalArguments().front();
    auto loc = context.open(argument);
    if (!loc)
        return context.fail(loc.error());
    const std::string prefix = printPrefix(*loc, argument);
    // A folder's or link's own size, where the storage has one (find tests st_size for all).
    const auto localRoot = loc->op->localPath(loc->path);
    const auto ownSize = [&](std::string_view relative, EntryKind kind, std::uint64_t listed) -> std::uint64_t {
        if (kind == EntryKind::File || !filter.criteria().size || !localRoot)
            return listed;
        std::string full = *localRoot;
        if (!relative.empty())
            full.append("/").append(relative);
        struct stat st {};
        return ::lstat(full.c_str(), &st) == 0 ? std::uint64_t(st.st_size) : listed;
    };
    std::string out;
    const auto emit = [&](std::string_view relative, EntryKind kind, std::uint64_t size, std::int64_t mtimeNs,
                          int depth) {
        std::string path = prefix.empty() && relative.empty() ? std::string("/") : prefix;
        if (!relative.empty()) {
            path.push_back('/');
            path.append(relative);
        }
        if (json) {
            json::Object o{{"uri", loc->op->display(below(loc->path, relative))},
                           {"kind", std::string(toString(kind))},
                           {"size", size},
                           {"modified", isoTime(mtimeNs)},
                           {"depth", depth}};
            json::setExact(o, "path", path);
            json::write(out, o, json::Format::Compact);
            out += '\n';
        } else {
            appendPrintable(out, path); // a name cannot drive the terminal
            out.push_back('\n');
        }
        if (out.size() >= (1u << 20) - 4096) {
            std::fwrite(out.data(), 1, out.size(), context.out);
            out.clear();
        }
    };
    if (minDepth == 0) { // the root itself, as find tests it
        auto root = loc->op->stat(loc->path);
        if (!root)
            return context.fail(root.error());
        const std::string name = loc->path == "/" ? std::string("/") : std::string(baseName(loc->path));
        const std::uint64_t size = ownSize({}, root->kind, root->size);
        if (filter.matches(name, root->kind, size, root->mtimeNs.value_or(0)))
            emit({}, root->kind, size, root->mtimeNs.value_or(0), 0);
        if (!root->isDir() || maxDepth == 0) {
            write(context.out, out);
            return Success;
        }
    }
    auto summary = walkTree(*loc->op, loc->path, options, [&](std::span<const WalkEntry> entries) {
        for (const auto &e : entries) {
            if (e.depth < minDepth)
                continue;
            const std::string_view name = e.path.substr(e.path.rfind('/') + 1);
            const std::uint64_t size = ownSize(e.path, e.kind, e.size);
            if (filter.matches(name, e.kind, size, e.mtimeNs))
                emit(e.path, e.kind, size, e.mtimeNs, e.depth);
        }
    });
    write(context.out, out);
    std::fflush(context.out);
    if (!summary)
        return context.fail(summary.error());
    reportErrors(context, *summary, prefix.empty() ? loc->display() : prefix);
    return summary->errors.empty() ? Success : Failure;
}

namespace {

std::string signedSize(std::int64_t delta)
{
    return (delta < 0 ? "-" : "+") + formatSize(std::uint64_t(delta < 0 ? -delta : delta));
}

std::string isoSeconds(std::int64_t ns)
{
    const std::time_t seconds = std::time_t(ns / 1'000'000'000);
    std::tm tm{};
    ::gmtime_r(&seconds, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

// strata du --compare: what changed between two scans, largest change first.
void printComparison(Context &context, const Scan &before, const Scan &after, const ScanComparison &cmp, int top,
                     bool json)
{
    const std::size_t shown = top > 0 ? std::min(cmp.changes.size(), std::size_t(top)) : cmp.changes.size();
    const auto shownPath = [](const ScanChange &c) {
        return c.entryKind == EntryKind::Directory ? c.path + "/" : c.path;
    };
    if (json) {
        json::Array changes;
        for (std::size_t i = 0; i < shown; ++i) {
            const ScanChange &c = cmp.changes[i];
            json::Object o{{"kind", toString(c.entryKind)},
                           {"change", toString(c.kind)},
                           {"before", c.before},
                           {"after", c.after},
                           {"delta", c.delta()}};
            json::setExact(o, "path", c.path);
            changes.push_back(std::move(o));
        }
        const auto side = [](const Scan &scan, std::uint64_t total) {
            json::Object o{{"taken", isoSeconds(scan.takenNs)}, {"bytes", total}};
            json::setExact(o, "root", scan.root);
            return o;
        };
        writeJson(context.out,
                  json::Object{{"before", side(before, cmp.before)},
                               {"after", side(after, cmp.after)},
                               {"delta", std::int64_t(cmp.after) - std::int64_t(cmp.before)},
                               {"appeared", cmp.appeared},
                               {"vanished", cmp.vanished},
                               {"grown", cmp.grown},
                               {"shrunk", cmp.shrunk},
                               {"changes", std::move(changes)}});
        return;
    }
    std::string text;
    for (std::size_t i = 0; i < shown; ++i) {
        const ScanChange &c = cmp.changes[i];
        text += pad(signedSize(c.delta()), 12) + "  " + pad(std::string(toString(c.kind)), -9) + "  "
            + printable(shownPath(c));
        if (c.kind == ScanChange::Kind::Grown || c.kind == ScanChange::Kind::Shrunk)
            text += "  (" + formatSize(c.before) + " -> " + formatSize(c.after) + ")";
        text += '\n';
    }
    text += "total " + signedSize(std::int64_t(cmp.after) - std::int64_t(cmp.before)) + ": " + formatSize(cmp.before)
        + " -> " + formatSize(cmp.after) + "; " + std::to_string(cmp.appeared) + " appeared, "
        + std::to_string(cmp.vanished) + " vanished, " + std::to_string(cmp.grown) + " grew, "
        + std::to_string(cmp.shrunk) + " shrank since " + printable(before.root) + " at " + isoSeconds(before.takenNs)
        + "\n";
    write(context.out, text);
}

bool isSavedScan(const std::string &argument)
{
    struct stat st {};
    return ::stat(argument.c_str(), &st) == 0 && S_ISREG(st.st_mode) && looksLikeScan(argument);
}

} // namespace

int commandDu(Context &context, const ArgParser &parser)
{
    WalkOptions options;
    if (auto code = readWalkOptions(context, parser, options))
        return *code;
    int depth = 1;
    if (parser.isSet("depth")) {
        const auto n = parseNumber<int>(parser.value("depth"));
        if (!n || *n < 0)
            return context.usage("--depth takes a number of levels (0: the total only)");
        depth = *n;
    }
    int top = -1;
    if (parser.isSet("top")) {
        const auto n = parseNumber<int>(parser.value("top"));
        if (!n || *n < 1)
            return context.usage("--top takes a number of lines, at least 1");
        top = *n;
    }
    const bool apparent = parser.isSet("apparent");
    const bool json = parser.isSet("json");
    const std::string saveTo = parser.isSet("save") ? parser.value("save") : std::string();
    const bool compare = parser.isSet("compare");
    if ((parser.isSet("save") && saveTo.empty()) || (compare && parser.value("compare").empty()))
        return context.usage("--save and --compare take a file name");
    const std::string &argument = parser.positionalArguments().front();
    std::optional<Scan> before;
    if (compare) {
        auto old = loadScan(parser.value("compare"));
        if (!old)
            return context.fail(old.error());
        before = std::move(*old);
    }
    // --compare OLD NEW: two saved scans, nothing walked.
    if (compare && isSavedScan(argument)) {
        auto after = loadScan(argument);
        if (!after)
            return context.fail(after.error());
        printComparison(context, *before, *after,
                        compareScans(*before, *after, apparent, parser.isSet("depth") ? std::max(depth, 1) : -1), top,
                        json);
        return Success;
    }
    options.totals = true;
    const bool scanning = compare || !saveTo.empty();
    options.paths = scanning; // else du counts; it prints directories from the totals
    options.stat = options.stat || scanning;
    auto loc = context.open(argument);
    if (!loc)
        return context.fail(loc.error());
    Scan scan;
    scan.root = loc->display();
    scan.takenNs =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    WalkTicker ticker(context.err, !json && ::isatty(fileno(context.err)));
    auto summary = walkTree(*loc->op, loc->path, options, [&](std::span<const WalkEntry> batch) {
        ticker.add(batch.size());
        if (scanning)
            for (const auto &e : batch)
                scan.entries.push_back({std::string(e.path), e.kind, e.size, e.allocated, e.mtimeNs});
    });
    ticker.finish();
    if (!summary)
        return context.fail(summary.error());
    // --kept: older versions and unfinished uploads, beside the objects.
    struct KeptTotals {
        std::uint64_t bytes = 0, count = 0;
    } versions, uploads;
    if (parser.isSet("kept")) {
        const Status kept = listKept(*loc->op, loc->path, [&](const ScanEntry &e) {
            KeptTotals &t = e.kept == Kept::OldVersions ? versions : uploads;
            t.bytes += e.size;
            ++t.count;
            if (scanning)
                scan.entries.push_back(e);
        });
        if (!kept)
            return context.fail(kept.error());
    }
    const auto keptLine = [&] {
        return formatSize(versions.bytes) + " in older versions of " + std::to_string(versions.count) + " objects, "
            + formatSize(uploads.bytes) + " in " + std::to_string(uploads.count)
            + " unfinished uploads (kept and billed, not listed)\n";
    };
    const json::Object keptJson{
        {"olderVersions", json::Object{{"bytes", versions.bytes}, {"objects", versions.count}}},
        {"unfinishedUploads", json::Object{{"bytes", uploads.bytes}, {"uploads", uploads.count}}}};
    if (!saveTo.empty())
        if (auto st = saveScan(scan, saveTo); !st)
            return context.fail(st.error());
    if (compare) {
        printComparison(context, *before, scan,
                        compareScans(*before, scan, apparent, parser.isSet("depth") ? std::max(depth, 1) : -1), top,
                        json);
        reportErrors(context, *summary,
                     printPrefix(*loc, argument).empty() ? loc->display() : printPrefix(*loc, argument));
        return summary->errors.empty() ? Success : Failure;
    }
    const std::string prefix = printPrefix(*loc, argument);
    const std::string root = prefix.empty() ? loc->display() : prefix;
    auto &dirs = summary->directories;
    std::vector<const DirTotals *> shown;
    for (const auto &d : dirs)
        if (d.depth <= depth)
            shown.push_back(&d);
    auto sizeOf = [apparent](const DirTotals &d) { return apparent ? d.bytes : d.allocated; };
    std::stable_sort(shown.begin(), shown.end(),
                     [&](const DirTotals *a, const DirTotals *b) { return sizeOf(*a) > sizeOf(*b); });
    if (top > 0 && shown.size() > std::size_t(top))
        shown.resize(std::size_t(top));
    auto pathOf = [&](const DirTotals &d) {
        return d.path.empty() ? root : root + (root.ends_with('/') ? "" : "/") + d.path;
    };
    if (json) {
        json::Array array;
        for (const auto *d : shown) {
            json::Object o{{"bytes", d->bytes}, {"allocated", d->allocated}, {"files", d->files}, {"dirs", d->dirs}};
            json::setExact(o, "path", pathOf(*d));
            array.push_back(std::move(o));
        }
        json::Array errors;
        for (const auto &e : summary->errors) {
            json::Object o{{"message", e.message}};
            json::setExact(o, "path", e.path);
            errors.push_back(std::move(o));
        }
        json::Object out{{"path", root},
                         {"bytes", summary->bytes},
                         {"allocated", summary->allocated},
                         {"files", summary->files},
                         {"dirs", summary->dirs},
                         {"symlinks", summary->symlinks},
                         {"hardLinks", summary->hardLinks},
                         {"revisits", summary->revisits},
                         {"excluded", summary->excluded},
                         {"directories", std::move(array)},
                         {"errors", std::move(errors)}};
        out["path_raw"] = json::exactText(root);
        if (parser.isSet("kept"))
            out["kept"] = keptJson;
        writeJson(context.out, out);
    } else {
        std::string text;
        for (const auto *d : shown)
            text += pad(formatSize(sizeOf(*d)), 10) + "\t" + printable(pathOf(*d)) + "\n";
        text += std::to_string(summary->files) + " files, " + std::to_string(summary->dirs) + " directories, "
            + formatSize(summary->bytes) + " (" + formatSize(summary->allocated) + " on disk)";
        if (summary->hardLinks)
            text += ", " + std::to_string(summary->hardLinks) + " hard links counted once";
        if (summary->revisits)
            text += ", " + std::to_string(summary->revisits) + " directories reached again through links (walked once)";
        text += '\n';
        if (parser.isSet("kept"))
            text += keptLine();
        write(context.out, text);
    }
    reportErrors(context, *summary, root);
    return summary->errors.empty() ? Success : Failure;
}

} // namespace strata::cli

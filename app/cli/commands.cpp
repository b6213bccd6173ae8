#include "app/cli/commands.h"

#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "core/storage/printable.h"
#include "core/walk/scan.h"

#include <algorithm>
#include <charconv>
#include <variant>

namespace strata::cli {

namespace {

// The name ls shows: directories end in '/'.
std::string shownName(const Entry &e)
{
    std::string name = printable(e.name.empty() ? e.path : e.name);
    if (e.isDir())
        name += '/';
    return name;
}

std::string longLine(const Entry &e, int sizeWidth)
{
    const std::string size = e.isDir() ? std::string("-") : std::to_string(e.size);
    std::string name = shownName(e);
    if (e.kind == EntryKind::Symlink && !e.symlinkTarget.empty())
        name += " -> " + printable(e.symlinkTarget);
    return modeString(e) + "  " + pad(size, sizeWidth) + "  " + pad(shortTime(e.mtimeNs), 16) + "  " + name + "\n";
}

// Parses a byte count; false on anything but digits.
bool parseCount(std::string_view text, std::uint64_t &value)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

// The command's one location, opened and stat'ed; on error, what to exit with.
struct Target {
    Location loc;
    Entry entry;
};

std::variant<Target, int> openTarget(Context &context, const ArgParser &parser)
{
    auto loc = context.open(parser.positionalArguments().at(0));
    if (!loc)
        return context.fail(loc.error());
    auto entry = loc->op->stat(loc->path);
    if (!entry)
        return context.fail(entry.error());
    return Target{std::move(*loc), std::move(*entry)};
}

} // namespace

int commandLs(Context &context, const ArgParser &parser)
{
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[locValue, selfValue] = std::get<Target>(target);
    Location *loc = &locValue;
    Entry *self = &selfValue;
    const bool json = parser.isSet("json");
    const bool all = parser.isSet("a");
    const bool longFormat = parser.isSet("l");

    std::vector<Entry> entries;
    if (self->isDir()) {
        const bool recursive = parser.isSet("recursive");
        const bool flat = recursive && loc->op->capabilities().has(Capability::ListRecursive);
        const std::string base = loc->path == "/" ? std::string("/") : loc->path + "/";
        std::vector<std::string> dirs{loc->path};
        while (!dirs.empty()) {
            const std::string dir = std::move(dirs.back());
            dirs.pop_back();
            ListOptions options;
            options.recursive = flat;
            do {
                auto page = loc->op->list(dir, options);
                if (!page)
                    return context.fail(page.error());
                for (const auto &raw : page->skipped)
                    context.warn(skippedNameWarning(loc->op->display(dir), raw));
                for (auto &e : page->entries) {
                    // With -R, names are paths below the listed directory.
                    std::string shown = recursive && e.path.starts_with(base) ? e.path.substr(base.size()) : e.name;
                    const bool hidden = shown.starts_with('.') || shown.find("/.") != std::string::npos;
                    if (recursive && !flat && e.isDir())
                        dirs.push_back(e.path);
                    if (all || !hidden) {
                        e.name = std::move(shown);
                        entries.push_back(std::move(e));
                    }
                }
                options.pageToken = std::move(page->nextPageToken);
            } while (!options.pageToken.empty());
        }
        std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.name < b.name; });
    } else {
        entries.push_back(*self);
    }

    if (json) {
        json::Array array;
        for (const auto &e : entries)
            array.emplace_back(toJson(e, loc->op->display(e.path)));
        json::Object o;
        o["uri"] = loc->display();
        o["kind"] = toString(self->kind);
        o["entries"] = std::move(array);
        writeJson(context.out, o);
        return Success;
    }
    int sizeWidth = 1;
    for (const auto &e : entries)
        sizeWidth = std::max<int>(sizeWidth, int(std::to_string(e.size).size()));
    for (const auto &e : entries)
        write(context.out, longFormat ? longLine(e, sizeWidth) : shownName(e) + '\n');
    return Success;
}

int commandStat(Context &context, const ArgParser &parser)
{
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[locValue, entryValue] = std::get<Target>(target);
    Location *loc = &locValue;
    Entry *e = &entryValue;
    // What an object store keeps about the object, and its versions when asked.
    std::optional<ObjectDetails> details;
    if (!e->isDir() && loc->op->capabilities().has(Capability::Details)) {
        auto found = loc->op->details(loc->path);
        if (!found)
            return context.fail(found.error());
        details = std::move(*found);
    }
    std::vector<StoredVersion> versions;
    if (parser.isSet("versions")) {
        if (!loc->op->capabilities().has(Capability::Versions))
            return context.fail(Error(ErrorKind::Unsupported, "this storage keeps no versions")
                                    .withContext("list the versions of", loc->display()));
        auto found = objectVersions(*loc->op, loc->path);
        if (!found)
            return context.fail(found.error());
        versions = std::move(*found);
    }
    if (parser.isSet("json")) {
        json::Object o = toJson(*e, loc->display());
        o["capabilities"] = loc->op->capabilities().names();
        if (details)
            o["details"] = detailsJson(*details);
        if (parser.isSet("versions")) {
            json::Array list;
            for (const auto &v : versions)
                list.push_back(json::Object{{"versionId", v.versionId},
                                            {"size", v.size},
                                            {"modified", isoTime(v.mtimeNs)},
                                            {"latest", v.latest},
                                            {"deleteMarker", v.deleteMarker}});
            o["versions"] = std::move(list);
        }
        writeJson(context.out, o);
        return Success;
    }
    std::string text;
    auto line = [&](const char *label, std::string_view value) {
        if (!value.empty())
            text += pad(label, -10) + " " + printable(value) + "\n";
    };
    line("URI:", loc->display());
    line("Kind:", toString(e->kind));
    if (!e->isDir())
        line("Size:", format("%llu bytes (%s)", static_cast<unsigned long long>(e->size), formatSize(e->size).c_str()));
    if (e->allocated && !e->isDir())
        line("On disk:", formatSize(*e->allocated));
    if (e->mtimeNs)
        line("Modified:", isoTime(*e->mtimeNs));
    if (e->mode)
        line("Mode:", format("%04o (%s)", unsigned(*e->mode), modeString(*e).c_str()));
    line("Target:", e->symlinkTarget);
    line("ETag:", e->etag);
    line("Hash:", e->contentHash);
    if (details) {
        line("Type:", details->contentType);
        line("Cache:", details->cacheControl);
        line("Disposition:", details->contentDisposition);
        line("Encoding:", details->contentEncoding);
        line("Class:", details->storageClass);
        line("Version:", details->versionId);
        for (const auto &[name, value] : details->metadata)
            line("Metadata:", name + "=" + value);
        if (details->tags)
            for (const auto &[name, value] : *details->tags)
                line("Tag:", name + "=" + value);
        if (!details->retentionMode.empty())
            line("Retention:",
                 details->retentionMode + (details->retainUntilNs ? " until " + isoTime(*details->retainUntilNs) : ""));
        if (details->legalHold)
            line("Legal hold:", *details->legalHold ? "on" : "off");
    }
    if (parser.isSet("versions")) {
        text += "Versions:  " + std::to_string(versions.size()) + ", newest first\n";
        for (const auto &v : versions)
            text += "  " + printable(v.versionId) + "  "
                + (v.deleteMarker ? std::string("delete marker") : pad(formatSize(v.size), 10)) + "  "
                + shortTime(v.mtimeNs) + (v.latest ? "  (latest)" : "") + "\n";
    }
    write(context.out, text);
    return Success;
}

int commandExtents(Context &context, const ArgParser &parser)
{
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[loc, entry] = std::get<Target>(target);
    if (entry.isDir())
        return context.fail(
            Error(ErrorKind::IsDirectory, "extents are a file's or an image's").withContext("map", loc.display()));
    std::vector<Extent> map;
    if (loc.op->capabilities().has(Capability::Extents)) {
        auto found = loc.op->extents(loc.path);
        if (!found)
            return context.fail(found.error());
        map = std::move(*found);
    } else if (entry.size > 0) {
        map.push_back({0, entry.size, ExtentKind::Data}); // the storage keeps no map: all of it is stored
    }
    std::uint64_t totals[3] = {0, 0, 0};
    for (const auto &e : map)
        totals[std::size_t(e.kind)] += e.length;
    const double percent = entry.size ? 100.0 * double(totals[0]) / double(entry.size) : 0.0;
    if (parser.isSet("json")) {
        json::Array array;
        for (const auto &e : map)
            array.emplace_back(json::Object{{"offset", e.offset}, {"length", e.length}, {"kind", toString(e.kind)}});
        writeJson(context.out,
                  json::Object{{"uri", loc.display()},
                               {"size", entry.size},
                               {"data", totals[0]},
                               {"zero", totals[1]},
                               {"hole", totals[2]},
                               {"extents", std::move(array)}});
        return Success;
    }
    std::string text = pad("OFFSET", 15) + " " + pad("LENGTH", 15) + " KIND\n";
    for (const auto &e : map)
        text += pad(std::to_string(e.offset), 15) + " " + pad(std::to_string(e.length), 15) + " "
            + std::string(toString(e.kind)) + "\n";
    text +=
        format("%zu extents; data %s (%.1f %%), zero %s, hole %s of %s\n", map.size(), formatSize(totals[0]).c_str(),
               percent, formatSize(totals[1]).c_str(), formatSize(totals[2]).c_str(), formatSize(entry.size).c_str());
    write(context.out, text);
    return Success;
}

int commandCat(Context &context, const ArgParser &parser)
{
    std::uint64_t offset = 0;
    std::uint64_t length = UINT64_MAX;
    if (parser.isSet("offset") && !parseCount(parser.value("offset"), offset))
        return context.usage("--offset takes a number of bytes");
    if (parser.isSet("length") && !parseCount(parser.value("length"), length))
        return context.usage("--length takes a number of bytes");
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[locValue, entryValue] = std::get<Target>(target);
    Location *loc = &locValue;
    Entry *e = &entryValue;
    if (e->isDir())
        return context.fail(
            Error(ErrorKind::IsDirectory, "use 'strata ls' to list it").withContext("read", loc->display()));
    std::vector<std::byte> buffer(1u << 20);
    std::uint64_t pos = offset;
    // Up to the size stat gave: no read past the end (some servers mishandle it on empty objects).
    std::uint64_t left = std::min(length, e->size > offset ? e->size - offset : 0);
    while (left > 0) {
        auto want = std::span(buffer).first(std::size_t(std::min<std::uint64_t>(buffer.size(), left)));
        auto n = loc->op->read(loc->path, pos, want);
        if (!n)
            return context.fail(n.error());
        if (*n == 0)
            break;
        if (std::fwrite(want.data(), 1, *n, context.out) != *n)
            return context.fail(Error(ErrorKind::Unexpected, "could not write to standard output").setOperation("cat"));
        pos += *n;
        left -= *n;
    }
    std::fflush(context.out);
    return Success;
}

int commandRm(Context &context, const ArgParser &parser)
{
    const bool recursive = parser.isSet("recursive");
    const bool force = parser.isSet("force");
    RemoveAllOptions options;
    options.allowLocalRoot = parser.isSet("no-preserve-root");
    options.dryRun = parser.isSet("dry-run");
    int status = Success;
    for (const auto &arg : parser.positionalArguments()) {
        auto loc = context.open(arg);
        if (!loc) {
            status = context.fail(loc.error());
            continue;
        }
        auto e = loc->op->stat(loc->path);
        if (!e) {
            if (!(force && e.error().kind() == ErrorKind::NotFound))
                status = context.fail(e.error());
            continue;
        }
        if (e->isDir() && !recursive) {
            status = context.fail(Error(ErrorKind::IsDirectory, "use -r to remove it and its contents")
                                      .withContext("remove", loc->display()));
            continue;
        }
        Operator &op = *loc->op;
        options.onSkipped = [&](std::string_view dir, std::string_view raw) {
            context.warn(skippedNameWarning(op.display(dir), raw));
        };
        if (options.dryRun)
            options.onRemove = [&](std::string_view path, bool isDir) {
                write(context.out, "would remove " + printable(op.display(path)) + (isDir ? "/\n" : "\n"));
            };
        Status st;
        if (recursive)
            st = op.removeAll(loc->path, options);
        else if (options.dryRun)
            options.onRemove(loc->path, false);
        else
            st = op.remove(loc->path);
        if (!st)
            status = context.fail(st.error());
    }
    return status;
}

int commandMkdir(Context &context, const ArgParser &parser)
{
    const bool parents = parser.isSet("parents");
    int status = Success;
    for (const auto &arg : parser.positionalArguments()) {
        auto loc = context.open(arg);
        if (!loc) {
            status = context.fail(loc.error());
            continue;
        }
        if (auto st = loc->op->createDir(loc->path, parents); !st)
            status = context.fail(st.error());
    }
    return status;
}

} // namespace strata::cli

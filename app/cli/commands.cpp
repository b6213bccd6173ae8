#include "app/cli/commands.h"

#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "core/storage/path.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <variant>
#include <unistd.h>

namespace strata::cli {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

void printJson(std::FILE *out, const QJsonObject &o)
{
    const QByteArray text = QJsonDocument(o).toJson(QJsonDocument::Indented);
    std::fwrite(text.constData(), 1, std::size_t(text.size()), out);
}

QString longLine(const Entry &e, int sizeWidth)
{
    QString size = e.isDir() ? QStringLiteral("-") : QString::number(e.size);
    QString name = qs(e.name.empty() ? e.path : e.name);
    if (e.isDir())
        name += QLatin1Char('/');
    if (e.kind == EntryKind::Symlink && !e.symlinkTarget.empty())
        name += QStringLiteral(" -> ") + qs(e.symlinkTarget);
    return QStringLiteral("%1  %2  %3  %4\n")
        .arg(modeString(e))
        .arg(size, sizeWidth)
        .arg(shortTime(e.mtimeNs), 16)
        .arg(name);
}

// Parses a byte count; false on anything but digits.
bool parseCount(const QString &text, std::uint64_t &value)
{
    bool ok = false;
    value = text.toULongLong(&ok);
    return ok;
}

// The command's one location, opened and stat'ed; on error, what to exit with.
struct Target {
    Location loc;
    Entry entry;
};

std::variant<Target, int> openTarget(Context &context, const QCommandLineParser &parser)
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

int commandLs(Context &context, const QCommandLineParser &parser)
{
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[locValue, selfValue] = std::get<Target>(target);
    Location *loc = &locValue;
    Entry *self = &selfValue;
    const bool json = parser.isSet(QStringLiteral("json"));
    const bool all = parser.isSet(QStringLiteral("a"));
    const bool longFormat = parser.isSet(QStringLiteral("l"));

    std::vector<Entry> entries;
    if (self->isDir()) {
        const bool recursive = parser.isSet(QStringLiteral("recursive"));
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
        QJsonArray array;
        for (const auto &e : entries)
            array.append(toJson(e, qs(loc->op->display(e.path))));
        QJsonObject o;
        o[QStringLiteral("uri")] = qs(loc->display());
        o[QStringLiteral("kind")] = QString::fromLatin1(toString(self->kind).data(), qsizetype(toString(self->kind).size()));
        o[QStringLiteral("entries")] = array;
        printJson(context.out, o);
        return Success;
    }
    int sizeWidth = 1;
    for (const auto &e : entries)
        sizeWidth = std::max<int>(sizeWidth, int(QString::number(e.size).size()));
    for (const auto &e : entries) {
        if (longFormat) {
            write(context.out, longLine(e, sizeWidth));
        } else {
            QString name = qs(e.name.empty() ? e.path : e.name);
            if (e.isDir())
                name += QLatin1Char('/');
            write(context.out, name + QLatin1Char('\n'));
        }
    }
    return Success;
}

int commandStat(Context &context, const QCommandLineParser &parser)
{
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[locValue, entryValue] = std::get<Target>(target);
    Location *loc = &locValue;
    Entry *e = &entryValue;
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonObject o = toJson(*e, qs(loc->display()));
        o[QStringLiteral("capabilities")] = qs(loc->op->capabilities().names());
        printJson(context.out, o);
        return Success;
    }
    QString text;
    auto line = [&](const char *label, const QString &value) {
        if (!value.isEmpty())
            text += QStringLiteral("%1 %2\n").arg(QLatin1String(label), -10).arg(value);
    };
    line("URI:", qs(loc->display()));
    line("Kind:", QString::fromLatin1(toString(e->kind).data(), qsizetype(toString(e->kind).size())));
    if (!e->isDir())
        line("Size:", QStringLiteral("%1 bytes (%2)").arg(e->size).arg(humanSize(e->size)));
    if (e->allocated && !e->isDir())
        line("On disk:", humanSize(*e->allocated));
    if (e->mtimeNs)
        line("Modified:", isoTime(*e->mtimeNs));
    if (e->mode)
        line("Mode:", QStringLiteral("%1 (%2)").arg(*e->mode, 4, 8, QLatin1Char('0')).arg(modeString(*e)));
    line("Target:", qs(e->symlinkTarget));
    line("ETag:", qs(e->etag));
    line("Hash:", qs(e->contentHash));
    write(context.out, text);
    return Success;
}

int commandExtents(Context &context, const QCommandLineParser &parser)
{
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[loc, entry] = std::get<Target>(target);
    if (entry.isDir())
        return context.fail(Error(ErrorKind::IsDirectory, "extents are a file's or an image's").withContext("map", loc.display()));
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
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const auto &e : map)
            array.append(QJsonObject{{QStringLiteral("offset"), qint64(e.offset)},
                                     {QStringLiteral("length"), qint64(e.length)},
                                     {QStringLiteral("kind"), QString::fromLatin1(toString(e.kind).data(), qsizetype(toString(e.kind).size()))}});
        printJson(context.out, QJsonObject{{QStringLiteral("uri"), qs(loc.display())},
                                           {QStringLiteral("size"), qint64(entry.size)},
                                           {QStringLiteral("data"), qint64(totals[0])},
                                           {QStringLiteral("zero"), qint64(totals[1])},
                                           {QStringLiteral("hole"), qint64(totals[2])},
                                           {QStringLiteral("extents"), array}});
        return Success;
    }
    QString text = QStringLiteral("%1 %2 %3\n").arg(QStringLiteral("OFFSET"), 15).arg(QStringLiteral("LENGTH"), 15).arg(QStringLiteral("KIND"));
    for (const auto &e : map)
        text += QStringLiteral("%1 %2 %3\n").arg(e.offset, 15).arg(e.length, 15).arg(QString::fromLatin1(toString(e.kind).data(), qsizetype(toString(e.kind).size())));
    text += QStringLiteral("%1 extents; data %2 (%3 %), zero %4, hole %5 of %6\n")
                .arg(map.size())
                .arg(humanSize(totals[0]))
                .arg(percent, 0, 'f', 1)
                .arg(humanSize(totals[1]), humanSize(totals[2]), humanSize(entry.size));
    write(context.out, text);
    return Success;
}

int commandCat(Context &context, const QCommandLineParser &parser)
{
    std::uint64_t offset = 0;
    std::uint64_t length = UINT64_MAX;
    if (parser.isSet(QStringLiteral("offset")) && !parseCount(parser.value(QStringLiteral("offset")), offset))
        return context.usage(QStringLiteral("--offset takes a number of bytes"));
    if (parser.isSet(QStringLiteral("length")) && !parseCount(parser.value(QStringLiteral("length")), length))
        return context.usage(QStringLiteral("--length takes a number of bytes"));
    auto target = openTarget(context, parser);
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &[locValue, entryValue] = std::get<Target>(target);
    Location *loc = &locValue;
    Entry *e = &entryValue;
    if (e->isDir())
        return context.fail(Error(ErrorKind::IsDirectory, "use 'strata ls' to list it").withContext("read", loc->display()));
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

int commandRm(Context &context, const QCommandLineParser &parser)
{
    const bool recursive = parser.isSet(QStringLiteral("recursive"));
    const bool force = parser.isSet(QStringLiteral("force"));
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
        auto st = recursive ? loc->op->removeAll(loc->path) : loc->op->remove(loc->path);
        if (!st)
            status = context.fail(st.error());
    }
    return status;
}

int commandMkdir(Context &context, const QCommandLineParser &parser)
{
    const bool parents = parser.isSet(QStringLiteral("parents"));
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

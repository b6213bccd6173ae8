// What an object store keeps about an object: strata tag, strata presign, and the details and
// versions strata stat shows.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "core/storage/path.h"
#include "core/storage/printable.h"

#include <charconv>

namespace strata::cli {

json::Value detailsJson(const ObjectDetails &d)
{
    json::Object o{{"contentType", d.contentType},
                   {"cacheControl", d.cacheControl},
                   {"storageClass", d.storageClass},
                   {"etag", d.etag},
                   {"metadata", d.metadata}};
    if (!d.contentDisposition.empty())
        o["contentDisposition"] = d.contentDisposition;
    if (!d.contentEncoding.empty())
        o["contentEncoding"] = d.contentEncoding;
    if (!d.versionId.empty())
        o["versionId"] = d.versionId;
    if (d.tags)
        o["tags"] = *d.tags;
    if (!d.retentionMode.empty())
        o["retention"] = json::Object{{"mode", d.retentionMode},
                                      {"until", d.retainUntilNs ? isoTime(*d.retainUntilNs) : std::string()}};
    if (d.legalHold)
        o["legalHold"] = *d.legalHold;
    return o;
}

namespace {

// A location that names one object, or the error code already reported.
std::variant<Location, int> openObject(Context &context, const std::string &argument, const char *doing)
{
    auto loc = context.open(argument);
    if (!loc)
        return context.fail(loc.error());
    auto entry = loc->op->stat(loc->path);
    if (!entry)
        return context.fail(entry.error());
    if (entry->isDir())
        return context.fail(
            Error(ErrorKind::IsDirectory, "name an object, not a folder").withContext(doing, loc->display()));
    return std::move(*loc);
}

} // namespace

// strata tag URI: the tags; strata tag URI K=V…: exactly those; --clear: none.
int commandTag(Context &context, const ArgParser &parser)
{
    const auto &arguments = parser.positionalArguments();
    std::map<std::string, std::string> tags;
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        const auto eq = arguments[i].find('=');
        if (eq == 0 || eq == std::string::npos)
            return context.usage("tags are KEY=VALUE, like project=atlas");
        tags[arguments[i].substr(0, eq)] = arguments[i].substr(eq + 1);
    }
    const bool clear = parser.isSet("clear");
    if (clear && !tags.empty())
        return context.usage("--clear takes no tags");
    auto target = openObject(context, arguments[0], "tag");
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &loc = std::get<Location>(target);
    if (!loc.op->capabilities().has(Capability::Details))
        return context.fail(
            Error(ErrorKind::Unsupported, "this storage keeps no tags").withContext("tag", loc.display()));
    if (!tags.empty() || clear) {
        DetailsChange change;
        change.tags = tags;
        if (auto st = loc.op->changeDetails(loc.path, change); !st)
            return context.fail(st.error());
    }
    auto details = loc.op->details(loc.path);
    if (!details)
        return context.fail(details.error());
    if (!details->tags)
        return context.fail(
            Error(ErrorKind::Unsupported, "the server keeps no tags").withContext("tag", loc.display()));
    if (parser.isSet("json")) {
        writeJson(context.out, json::Object{{"uri", loc.display()}, {"tags", *details->tags}});
        return Success;
    }
    std::string text;
    for (const auto &[key, value] : *details->tags)
        text += printable(key) + "=" + printable(value) + "\n";
    write(context.out, text);
    return Success;
}

// strata presign URI [--expires 1h]: a link that GETs the object without credentials.
int commandPresign(Context &context, const ArgParser &parser)
{
    std::chrono::seconds lifetime = std::chrono::hours(1);
    if (parser.isSet("expires")) {
        const std::string text = parser.value("expires");
        long long count = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
        const std::string_view unit(end, std::size_t(text.data() + text.size() - end));
        const long long scale = unit == "s" || unit.empty() ? 1
            : unit == "m"                                   ? 60
            : unit == "h"                                   ? 3600
            : unit == "d"                                   ? 86400
                                                            : 0;
        if (ec != std::errc() || count <= 0 || scale == 0)
            return context.usage("--expires takes a lifetime like 90s, 30m, 12h or 7d (at most 7d)");
        lifetime = std::chrono::seconds(count * scale);
    }
    auto target = openObject(context, parser.positionalArguments()[0], "make a share link to");
    if (auto *code = std::get_if<int>(&target))
        return *code;
    auto &loc = std::get<Location>(target);
    auto link = loc.op->shareLink(loc.path, lifetime);
    if (!link)
        return context.fail(link.error());
    write(context.out, *link + "\n");
    return Success;
}

} // namespace strata::cli

#include "app/cli/cli_output.h"

#include "app/cli/args.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ctime>

namespace strata::cli {

namespace {

constexpr std::int64_t NsPerSecond = 1'000'000'000;

// Whole seconds since the epoch, rounded down (-1 ns is 23:59:59 the day before).
std::time_t floorSeconds(std::int64_t ns)
{
    std::int64_t seconds = ns / NsPerSecond;
    if (ns % NsPerSecond < 0)
        --seconds;
    return std::time_t(seconds);
}

// "yyyy-MM-dd HH:mm", or with the seconds "yyyy-MM-ddTHH:mm:ss".
std::string dateTime(const std::tm &t, const char *separator, bool seconds)
{
    std::string s =
        format("%04d-%02d-%02d%s%02d:%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, separator, t.tm_hour, t.tm_min);
    if (seconds)
        s += format(":%02d", t.tm_sec);
    return s;
}

// Characters (code points) in UTF-8 text: every byte but continuation bytes.
int characters(std::string_view text)
{
    int n = 0;
    for (const char c : text)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

} // namespace

std::string shortTime(const std::optional<std::int64_t> &mtimeNs)
{
    if (!mtimeNs)
        return {};
    const std::time_t seconds = floorSeconds(*mtimeNs);
    std::tm t{};
    if (!localtime_r(&seconds, &t))
        return {};
    return dateTime(t, " ", false);
}

std::string isoTime(std::int64_t mtimeNs)
{
    const std::time_t seconds = floorSeconds(mtimeNs);
    std::tm t{};
    if (!gmtime_r(&seconds, &t))
        return {};
    std::int64_t frac = mtimeNs % NsPerSecond;
    if (frac < 0)
        frac += NsPerSecond;
    return dateTime(t, "T", true) + format(".%09lldZ", static_cast<long long>(frac));
}

std::string modeString(const Entry &entry)
{
    std::string s;
    switch (entry.kind) {
    case EntryKind::Directory: s += 'd'; break;
    case EntryKind::Symlink: s += 'l'; break;
    case EntryKind::Other: s += '?'; break;
    case EntryKind::File: s += '-'; break;
    }
    if (!entry.mode)
        return s + "         "; // the storage has no permissions to show
    const std::uint32_t m = *entry.mode;
    const char *rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; ++i)
        s += (m & (0400u >> i)) ? rwx[i] : '-';
    return s;
}

json::Object toJson(const Entry &entry, const std::string &uri)
{
    json::Object o;
    json::setExact(o, "name", entry.name);
    json::setExact(o, "path", entry.path);
    o["uri"] = uri;
    o["kind"] = toString(entry.kind);
    o["size"] = entry.size;
    if (entry.allocated)
        o["allocated"] = *entry.allocated;
    if (entry.mtimeNs) {
        o["mtime"] = isoTime(*entry.mtimeNs);
        o["mtime_ns"] = *entry.mtimeNs;
    }
    if (entry.mode)
        o["mode"] = format("%04o", unsigned(*entry.mode));
    if (!entry.etag.empty())
        o["etag"] = entry.etag;
    if (!entry.contentHash.empty())
        o["hash"] = entry.contentHash;
    if (!entry.symlinkTarget.empty())
        json::setExact(o, "target", entry.symlinkTarget);
    return o;
}

void write(std::FILE *f, std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), f);
}

void writeJson(std::FILE *f, const json::Value &value)
{
    write(f, json::write(value, json::Format::Indented));
}

std::string pad(std::string_view text, int width)
{
    // A positive width right-aligns (pads on the left), a negative one left-aligns.
    const int fill = std::abs(width) - characters(text);
    if (fill <= 0)
        return std::string(text);
    const std::string spaces(std::size_t(fill), ' ');
    return width > 0 ? spaces + std::string(text) : std::string(text) + spaces;
}

} // namespace strata::cli

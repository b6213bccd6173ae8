#include "backends/ftp/ftp_listing.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <vector>

namespace strata::ftp {

namespace {

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

template <typename T>
std::optional<T> number(std::string_view text, int base = 10)
{
    T value{};
    if (text.empty())
        return std::nullopt;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm): no time zone involved.
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Seconds since 1970 of a time a file can have: 1900 to 2261 (nanoseconds since 1970 in
// 64 bits reach 2262; a time past them would overflow where it is made nanoseconds).
std::optional<std::int64_t> civilSeconds(int year, int month, int day, int hour, int minute, int second)
{
    if (year < 1900 || year > 2261 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23
        || minute < 0 || minute > 59 || second < 0 || second > 60)
        return std::nullopt;
    return daysFromCivil(year, unsigned(month), unsigned(day)) * 86400 + hour * 3600 + minute * 60 + second;
}

int monthOf(std::string_view name)
{
    static constexpr std::array<std::string_view, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
    for (std::size_t i = 0; i < kMonths.size(); ++i)
        if (equalsIgnoringCase(name, kMonths[i]))
            return int(i) + 1;
    return 0;
}

// The line's blank-separated fields, with where each starts.
std::vector<std::pair<std::string_view, std::size_t>> fields(std::string_view line, std::size_t most)
{
    std::vector<std::pair<std::string_view, std::size_t>> out;
    std::size_t i = 0;
    while (out.size() < most) {
        while (i < line.size() && line[i] == ' ')
            ++i;
        if (i >= line.size())
            break;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ')
            ++i;
        out.emplace_back(line.substr(start, i - start), start);
    }
    return out;
}

std::optional<ListedName> parseUnix(std::string_view line, std::time_t now)
{
    // perms links owner group size month day time-or-year name; some servers leave out
    // the group: find the month field instead of counting.
    auto f = fields(line, 9);
    if (f.size() < 8 || f[0].first.size() < 10)
        return std::nullopt;
    std::size_t m = 0;
    for (std::size_t i = 3; i + 2 < f.size(); ++i)
        if (monthOf(f[i].first) != 0 && number<std::uint64_t>(f[i - 1].first)) {
            m = i;
            break;
        }
    if (m == 0 || m + 3 > f.size())
        return std::nullopt;
    const char type = f[0].first[0];
    ListedName out;
    switch (type) {
    case '-': out.entry.kind = EntryKind::File; break;
    case 'd': out.entry.kind = EntryKind::Directory; break;
    case 'l': out.entry.kind = EntryKind::Symlink; break;
    default: out.entry.kind = EntryKind::Other; break;
    }
    std::uint32_t mode = 0;
    const std::string_view perms = f[0].first.substr(1, 9);
    for (std::size_t i = 0; i < 9; ++i) {
        const char c = perms[i];
        if (c != '-')
            mode |= 1u << (8 - i);
        if (i == 2 && (c == 's' || c == 'S'))
            mode = (mode | 04000) & ~(c == 'S' ? 0100u : 0u);
        if (i == 5 && (c == 's' || c == 'S'))
            mode = (mode | 02000) & ~(c == 'S' ? 010u : 0u);
        if (i == 8 && (c == 't' || c == 'T'))
            mode = (mode | 01000) & ~(c == 'T' ? 01u : 0u);
    }
    out.entry.mode = mode;
    if (out.entry.kind != EntryKind::Directory)
        out.entry.size = number<std::uint64_t>(f[m - 1].first).value_or(0);
    const int month = monthOf(f[m].first);
    const auto day = number<int>(f[m + 1].first);
    const std::string_view when = f[m + 2].first;
    if (day) {
        if (auto colon = when.find(':'); colon != std::string_view::npos) {
            const auto hour = number<int>(when.substr(0, colon));
            const auto minute = number<int>(when.substr(colon + 1));
            std::tm utc{};
            gmtime_r(&now, &utc);
            int year = utc.tm_year + 1900;
            if (hour && minute) {
                auto t = civilSeconds(year, month, *day, *hour, *minute, 0);
                if (t && *t > std::int64_t(now) + 86400)
                    t = civilSeconds(year - 1, month, *day, *hour, *minute, 0);
                if (t)
                    out.entry.mtimeNs = *t * 1'000'000'000;
            }
        } else if (auto year = number<int>(when)) {
            if (auto t = civilSeconds(*year, month, *day, 0, 0, 0))
                out.entry.mtimeNs = *t * 1'000'000'000;
        }
    }
    // The name starts one blank after the time field: names may hold (and start with) blanks.
    const std::size_t nameAt = f[m + 2].second + when.size() + 1;
    if (nameAt > line.size())
        return std::nullopt;
    std::string_view name = line.substr(nameAt);
    if (out.entry.kind == EntryKind::Symlink) {
        if (auto arrow = name.find(" -> "); arrow != std::string_view::npos) {
            out.entry.symlinkTarget = std::string(name.substr(arrow + 4));
            name = name.substr(0, arrow);
        }
    }
    out.name = std::string(name);
    out.self = name == "." || name == "..";
    return out;
}

std::optional<ListedName> parseDos(std::string_view line)
{
    // 12-03-26  10:29PM       <DIR>          name
    // 12-03-26  10:29PM                  123 name
    auto f = fields(line, 3);
    if (f.size() < 3 || f[0].first.size() < 8 || f[0].first[2] != '-' || f[0].first[5] != '-')
        return std::nullopt;
    const auto month = number<int>(f[0].first.substr(0, 2));
    const auto day = number<int>(f[0].first.substr(3, 2));
    auto year = number<int>(f[0].first.substr(6));
    const std::string_view clock = f[1].first;
    const auto colon = clock.find(':');
    if (!month || !day || !year || colon == std::string_view::npos || clock.size() < colon + 3)
        return std::nullopt;
    if (*year < 100)
        *year += *year < 70 ? 2000 : 1900;
    auto hour = number<int>(clock.substr(0, colon));
    const auto minute = number<int>(clock.substr(colon + 1, 2));
    const std::string_view half = clock.substr(colon + 3);
    if (!hour || !minute)
        return std::nullopt;
    if (equalsIgnoringCase(half, "PM") && *hour < 12)
        *hour += 12;
    if (equalsIgnoringCase(half, "AM") && *hour == 12)
        *hour = 0;
    ListedName out;
    if (f[2].first == "<DIR>")
        out.entry.kind = EntryKind::Directory;
    else if (auto size = number<std::uint64_t>(f[2].first))
        out.entry.size = *size;
    else
        return std::nullopt;
    if (auto t = civilSeconds(*year, *month, *day, *hour, *minute, 0))
        out.entry.mtimeNs = *t * 1'000'000'000;
    std::size_t nameAt = f[2].second + f[2].first.size();
    while (nameAt < line.size() && line[nameAt] == ' ')
        ++nameAt;
    if (nameAt >= line.size())
        return std::nullopt;
    out.name = std::string(line.substr(nameAt));
    out.self = out.name == "." || out.name == "..";
    return out;
}

} // namespace

std::optional<std::int64_t> parseFtpTime(std::string_view text)
{
    if (text.size() < 14)
        return std::nullopt;
    int parts[6] = {};
    const std::size_t widths[6] = {4, 2, 2, 2, 2, 2};
    std::size_t at = 0;
    for (int i = 0; i < 6; ++i) {
        auto v = number<int>(text.substr(at, widths[i]));
        if (!v)
            return std::nullopt;
        parts[i] = *v;
        at += widths[i];
    }
    auto seconds = civilSeconds(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]);
    if (!seconds)
        return std::nullopt;
    std::int64_t ns = *seconds * 1'000'000'000;
    if (text.size() > 14) {
        if (text[14] != '.' || text.size() == 15 || text.size() > 24)
            return std::nullopt;
        std::string_view fraction = text.substr(15);
        auto digits = number<std::int64_t>(fraction);
        if (!digits)
            return std::nullopt;
        std::int64_t scaled = *digits;
        for (std::size_t i = fraction.size(); i < 9; ++i)
            scaled *= 10;
        ns += scaled;
    }
    return ns;
}

std::string formatFtpTime(std::int64_t ns)
{
    std::int64_t seconds = ns / 1'000'000'000;
    if (ns < 0 && ns % 1'000'000'000 != 0)
        --seconds;
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[32];
    std::snprintf(text, sizeof text, "%04d%02d%02d%02d%02d%02d", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                  utc.tm_hour, utc.tm_min, utc.tm_sec);
    return text;
}

std::optional<ListedName> parseMlsxLine(std::string_view line)
{
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
        line.remove_suffix(1);
    if (!line.empty() && line.front() == ' ') // MLST's fact line starts with a blank
        line.remove_prefix(1);
    const auto space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || line[space - 1] != ';')
        return std::nullopt;
    ListedName out;
    out.name = std::string(line.substr(space + 1));
    std::string_view facts = line.substr(0, space);
    bool typed = false;
    while (!facts.empty()) {
        const auto semi = facts.find(';');
        const std::string_view fact = facts.substr(0, semi);
        facts = semi == std::string_view::npos ? std::string_view() : facts.substr(semi + 1);
        const auto eq = fact.find('=');
        if (eq == std::string_view::npos)
            continue;
        const std::string_view key = fact.substr(0, eq), value = fact.substr(eq + 1);
        if (equalsIgnoringCase(key, "type")) {
            typed = true;
            if (equalsIgnoringCase(value, "file")) {
                out.entry.kind = EntryKind::File;
            } else if (equalsIgnoringCase(value, "dir")) {
                out.entry.kind = EntryKind::Directory;
            } else if (equalsIgnoringCase(value, "cdir") || equalsIgnoringCase(value, "pdir")) {
                out.entry.kind = EntryKind::Directory;
                out.self = true;
            } else if (value.size() >= 13 && equalsIgnoringCase(value.substr(0, 13), "OS.unix=slink")) {
                out.entry.kind = EntryKind::Symlink;
                if (value.size() > 14 && value[13] == ':')
                    out.entry.symlinkTarget = std::string(value.substr(14));
            } else if (equalsIgnoringCase(value, "OS.unix=symlink")) {
                out.entry.kind = EntryKind::Symlink;
            } else {
                out.entry.kind = EntryKind::Other;
            }
        } else if (equalsIgnoringCase(key, "size")) {
            if (auto v = number<std::uint64_t>(value))
                out.entry.size = *v;
        } else if (equalsIgnoringCase(key, "modify")) {
            out.entry.mtimeNs = parseFtpTime(value);
        } else if (equalsIgnoringCase(key, "UNIX.uid")) {
            out.uid = number<std::uint32_t>(value);
        } else if (equalsIgnoringCase(key, "UNIX.mode")) {
            if (auto v = number<std::uint32_t>(value, 8); v && *v <= 07777)
                out.entry.mode = *v;
        }
    }
    if (!typed)
        return std::nullopt;
    if (out.entry.kind == EntryKind::Directory)
        out.entry.size = 0; // a folder's sizd is its own blocks, not its contents
    if (out.name == "." || out.name == "..")
        out.self = true;
    return out;
}

std::optional<ListedName> parseListLine(std::string_view line, std::time_t now)
{
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
        line.remove_suffix(1);
    if (line.empty())
        return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(line[0])))
        return parseDos(line);
    return parseUnix(line, now);
}

} // namespace strata::ftp

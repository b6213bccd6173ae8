#include "core/walk/find.h"

#include "core/io/text_case.h"

#include <charconv>
#include <ctime>
#include <fnmatch.h>

namespace strata {

namespace {

// Reads exactly `digits` decimal digits at `at`, moving past them.
std::optional<int> fixedNumber(std::string_view text, std::size_t &at, std::size_t digits)
{
    if (text.size() < at + digits)
        return std::nullopt;
    int value = 0;
    for (std::size_t i = 0; i < digits; ++i) {
        const char c = text[at + i];
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    at += digits;
    return value;
}

std::optional<std::int64_t> parseAge(std::string_view text, std::int64_t nowNs)
{
    if (text.size() < 2)
        return std::nullopt;
    std::int64_t count = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, count);
    if (ec != std::errc() || end != text.data() + text.size() - 1 || count < 0)
        return std::nullopt;
    std::int64_t unit = 0;
    switch (text.back()) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    case 'w': unit = 7 * 86400; break;
    default: return std::nullopt;
    }
    if (count > (std::int64_t(1) << 33) / unit) // beyond any file time
        return std::nullopt;
    return nowNs - count * unit * 1'000'000'000;
}

} // namespace

bool SizeTest::matches(std::uint64_t bytes) const
{
    if (!roundUp) {
        const std::uint64_t limit = count * unit;
        switch (compare) {
        case Compare::Less: return bytes < limit;
        case Compare::Greater: return bytes > limit;
        case Compare::Equal: break;
        }
        return bytes == limit;
    }
    const std::uint64_t units = bytes / unit + (bytes % unit ? 1 : 0); // rounded up, as find does
    switch (compare) {
    case Compare::Less: return units < count;
    case Compare::Greater: return units > count;
    case Compare::Equal: break;
    }
    return units == count;
}

std::optional<SizeTest> parseSizeTest(std::string_view text)
{
    SizeTest test;
    if (text.starts_with('+')) {
        test.compare = SizeTest::Compare::Greater;
        text.remove_prefix(1);
    } else if (text.starts_with('-')) {
        test.compare = SizeTest::Compare::Less;
        text.remove_prefix(1);
    }
    if (!text.empty() && (text.back() < '0' || text.back() > '9')) {
        switch (text.back()) {
        case 'c': test.unit = 1; break;
        case 'w': test.unit = 2; break;
        case 'b': test.unit = 512; break;
        case 'k': test.unit = 1024; break;
        case 'M': test.unit = 1024 * 1024; break;
        case 'G': test.unit = 1024 * 1024 * 1024; break;
        default: return std::nullopt;
        }
        text.remove_suffix(1);
    }
    if (text.empty())
        return std::nullopt;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), test.count);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return test;
}

std::optional<std::int64_t> parseFindTime(std::string_view text, std::int64_t nowNs)
{
    if (auto age = parseAge(text, nowNs))
        return age;
    std::size_t at = 0;
    std::tm tm{};
    const auto year = fixedNumber(text, at, 4);
    if (!year || at >= text.size() || text[at++] != '-')
        return std::nullopt;
    const auto month = fixedNumber(text, at, 2);
    if (!month || at >= text.size() || text[at++] != '-')
        return std::nullopt;
    const auto day = fixedNumber(text, at, 2);
    if (!day || *month < 1 || *month > 12 || *day < 1 || *day > 31)
        return std::nullopt;
    tm.tm_year = *year - 1900;
    tm.tm_mon = *month - 1;
    tm.tm_mday = *day;
    if (at < text.size() && (text[at] == 'T' || text[at] == ' ')) {
        ++at;
        const auto hour = fixedNumber(text, at, 2);
        if (!hour || at >= text.size() || text[at++] != ':')
            return std::nullopt;
        const auto minute = fixedNumber(text, at, 2);
        if (!minute || *hour > 23 || *minute > 59)
            return std::nullopt;
        tm.tm_hour = *hour;
        tm.tm_min = *minute;
        if (at < text.size() && text[at] == ':') {
            ++at;
            const auto second = fixedNumber(text, at, 2);
            if (!second || *second > 60)
                return std::nullopt;
            tm.tm_sec = *second;
        }
    }
    std::optional<int> offsetSeconds; // east of UTC; none: local time
    if (at < text.size() && text[at] == 'Z') {
        ++at;
        offsetSeconds = 0;
    } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
        const int sign = text[at++] == '-' ? -1 : 1;
        const auto hours = fixedNumber(text, at, 2);
        if (!hours)
            return std::nullopt;
        if (at < text.size() && text[at] == ':')
            ++at;
        const auto minutes = fixedNumber(text, at, 2);
        if (!minutes || *hours > 23 || *minutes > 59)
            return std::nullopt;
        offsetSeconds = sign * (*hours * 3600 + *minutes * 60);
    }
    if (at != text.size())
        return std::nullopt;
    std::time_t seconds;
    if (offsetSeconds) {
        seconds = ::timegm(&tm) - *offsetSeconds;
    } else {
        tm.tm_isdst = -1;
        seconds = std::mktime(&tm);
    }
    if (seconds == std::time_t(-1) && tm.tm_year != 69)
        return std::nullopt;
    return std::int64_t(seconds) * 1'000'000'000;
}

FindCriteria searchTextCriteria(std::string_view text)
{
    FindCriteria criteria;
    criteria.name = std::string(text);
    criteria.ignoreCase = true;
    criteria.substring = text.find_first_of("*?[") == std::string_view::npos;
    return criteria;
}

FindFilter::FindFilter(FindCriteria criteria)
    : m_criteria(std::move(criteria)), m_pattern(m_criteria.ignoreCase ? foldCase(m_criteria.name) : m_criteria.name)
{
}

bool FindFilter::matchesName(std::string_view baseName) const
{
    if (m_pattern.empty())
        return true;
    const std::string name = m_criteria.ignoreCase ? foldCase(baseName) : std::string(baseName);
    if (m_criteria.substring)
        return name.find(m_pattern) != std::string::npos;
    return ::fnmatch(m_pattern.c_str(), name.c_str(), 0) == 0; // find -name's flags
}

bool FindFilter::matches(std::string_view baseName, EntryKind kind, std::uint64_t size, std::int64_t mtimeNs) const
{
    if (m_criteria.kind && *m_criteria.kind != kind)
        return false;
    if (m_criteria.size && !m_criteria.size->matches(size))
        return false;
    if (m_criteria.newerNs && !(mtimeNs > *m_criteria.newerNs))
        return false;
    if (m_criteria.olderNs && mtimeNs > *m_criteria.olderNs)
        return false;
    return matchesName(baseName);
}

} // namespace strata

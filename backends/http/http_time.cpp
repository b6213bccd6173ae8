#include "backends/http/http_time.h"

#include <curl/curl.h>

#include <cctype>
#include <ctime>
#include <limits>

namespace strata::http {

namespace {

// Nanoseconds in 64 bits reach the years 1677 to 2262.
constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;

// Seconds since the epoch of a UTC broken-down time (libc's timegm), if it is one.
std::optional<std::int64_t> utcSeconds(std::tm tm)
{
    const int year = tm.tm_year + 1900, month = tm.tm_mon + 1, day = tm.tm_mday;
    if (month < 1 || month > 12 || day < 1 || day > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return std::nullopt;
    const std::time_t t = ::timegm(&tm);
    if (tm.tm_year + 1900 != year || tm.tm_mon + 1 != month || tm.tm_mday != day) // Feb 30 rolled over
        return std::nullopt;
    return std::int64_t(t);
}

// "2026-11-30T06:41:12Z", with an optional fraction (".123") and "Z" or "+hh:mm" / "-hh:mm".
std::optional<std::int64_t> isoTime(const std::string &text)
{
    std::tm tm{};
    const char *rest = ::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest)
        return std::nullopt;
    std::int64_t fraction = 0; // ns
    if (*rest == '.') {
        ++rest;
        std::int64_t scale = 100'000'000;
        if (!std::isdigit(static_cast<unsigned char>(*rest)))
            return std::nullopt;
        for (; std::isdigit(static_cast<unsigned char>(*rest)); ++rest, scale /= 10)
            fraction += (*rest - '0') * scale;
    }
    std::int64_t offset = 0; // seconds east of UTC
    if (*rest == 'Z') {
        ++rest;
    } else if (*rest == '+' || *rest == '-') {
        const int sign = *rest == '-' ? -1 : 1;
        int hours = 0, minutes = 0, used = 0;
        if (std::sscanf(rest + 1, "%2d:%2d%n", &hours, &minutes, &used) != 2 || used != 5 || hours > 23 || minutes > 59)
            return std::nullopt;
        offset = sign * (hours * 3600 + minutes * 60);
        rest += 1 + used;
    } else {
        return std::nullopt; // no zone: not a moment
    }
    if (*rest != '\0')
        return std::nullopt;
    const auto seconds = utcSeconds(tm);
    if (!seconds)
        return std::nullopt;
    const std::int64_t utc = *seconds - offset;
    if (utc > kMaxSeconds || utc < -kMaxSeconds)
        return std::nullopt;
    return utc * 1'000'000'000 + fraction;
}

} // namespace

std::optional<std::int64_t> parseTime(const std::string &value)
{
    if (auto iso = isoTime(value))
        return iso;
    // HTTP dates, "Mon, 30 Nov 2026 06:41:12 GMT" (RFC 7231; RFC 850 and asctime forms too):
    // libcurl's parser. Only a text that names its weekday and month in English is one.
    if (value.size() < 20 || value.find("GMT") == std::string::npos)
        return std::nullopt;
    const std::time_t t = curl_getdate(value.c_str(), nullptr);
    if (t == -1 || t > kMaxSeconds || t < -kMaxSeconds)
        return std::nullopt;
    return std::int64_t(t) * 1'000'000'000;
}

} // namespace strata::http

#include "core/io/duration_text.h"

#include <charconv>
#include <cmath>
#include <utility>

namespace strata {

std::optional<std::chrono::nanoseconds> parseDuration(std::string_view text, std::chrono::nanoseconds most)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    // Longest suffixes first: "ms" before "s", "m".
    static constexpr std::pair<std::string_view, double> kUnits[] = {
        {"ms", 1e6}, {"us", 1e3}, {"ns", 1}, {"s", 1e9}, {"m", 60e9}};
    for (const auto &[suffix, scale] : kUnits) {
        if (!text.ends_with(suffix))
            continue;
        const std::string_view number = text.substr(0, text.size() - suffix.size());
        double value = 0;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
        if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value))
            return std::nullopt;
        const double ns = value * scale;
        if (ns < 1 || ns > double(most.count()))
            return std::nullopt;
        return std::chrono::nanoseconds(std::int64_t(ns));
    }
    return std::nullopt;
}

} // namespace strata

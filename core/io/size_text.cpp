#include "core/io/size_text.h"

#include "core/io/text_case.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace strata {

std::optional<std::uint64_t> parseSize(std::string_view text)
{
    std::string t(trimmed(text));
    for (char &c : t)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    if (t.ends_with("IB"))
        t.resize(t.size() - 2);
    else if (t.ends_with('B'))
        t.pop_back();
    double scale = 1;
    if (!t.empty()) {
        const auto power = std::string_view("KMGTP").find(t.back());
        if (power != std::string_view::npos) {
            scale = std::ldexp(1.0, int(10 * (power + 1)));
            t.pop_back();
        }
    }
    std::string_view number = trimmed(t); // "1.5 GiB" is 1.5 GiB
    if (number.starts_with('+'))
        number.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)
        || value < 0 || value * scale > 9.2e18)
        return std::nullopt;
    return std::uint64_t(value * scale);
}

std::string formatSize(std::uint64_t bytes)
{
    if (bytes < 1024)
        return bytes == 1 ? std::string("1 byte") : std::to_string(bytes) + " bytes";
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = double(bytes) / 1024;
    int unit = 0;
    while (value >= 1024 && unit < 5) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.*f %s", value < 10 ? 1 : 0, value, units[unit]);
    return text;
}

std::string sizeLabel(std::uint64_t bytes)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && bytes >= (1024ull << (10 * u)) && bytes % (1024ull << (10 * u)) == 0)
        ++u;
    return std::to_string(bytes >> (10 * u)) + units[u];
}

} // namespace strata

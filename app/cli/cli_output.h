#pragma once

#include "core/io/json.h"
#include "core/io/size_text.h" // parseSize, formatSize: one way for CLI, URI options and GUI
#include "core/io/text_case.h" // trimmed
#include "core/storage/entry.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace strata::cli {

// "2026-11-30 12:00" in local time, "" when unknown
std::string shortTime(const std::optional<std::int64_t> &mtimeNs);
// RFC 3339 UTC with nanoseconds
std::string isoTime(std::int64_t mtimeNs);
// "drwxr-xr-x" style
std::string modeString(const Entry &entry);
// The stable JSON form of an entry (keys are part of the CLI's contract).
json::Object toJson(const Entry &entry, const std::string &uri);
void write(std::FILE *f, std::string_view text);
// Writes `value` as indented JSON (ending in a newline).
void writeJson(std::FILE *f, const json::Value &value);
// Pads `text` with spaces to |width| characters (UTF-8 aware: "…" is one), like QString::arg's
// field width: a positive width right-aligns (pads on the left), a negative one left-aligns.
std::string pad(std::string_view text, int width);

// A number in an option, as QString::toInt and toDouble read it: white space around it
// and a leading '+' are allowed; nullopt unless all of it is the number.
template <typename T>
std::optional<T> parseNumber(std::string_view text)
{
    text = trimmed(text);
    if (text.starts_with('+'))
        text.remove_prefix(1);
    T n{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return n;
}

} // namespace strata::cli

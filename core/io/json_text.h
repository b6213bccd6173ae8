#pragma once

#include <string>
#include <string_view>

namespace strata {

// Appends `text` as a JSON string literal (quotes, escapes, control characters as \uXXXX);
// for output written by hand where QJsonDocument per line would cost too much.
void appendJsonString(std::string &out, std::string_view text);

// Appends one code point as UTF-8.
void appendUtf8(std::string &out, char32_t cp);

inline std::string jsonString(std::string_view text)
{
    std::string out;
    appendJsonString(out, text);
    return out;
}

} // namespace strata

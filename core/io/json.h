#pragma once

// JSON through nlohmann-json, for the journal, the command line's --json output and result
// files. Objects keep their keys sorted (nlohmann::json's std::map), so output is stable
// whatever order members were set in.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace strata::json {

using Value = nlohmann::json;
using Array = Value::array_t;
using Object = Value::object_t;

enum class Format : std::uint8_t {
    Compact,  // {"a":1,"b":[true]}
    Indented, // four spaces a level, one member a line, ending in a newline
};

// Text that is not UTF-8 (a file name in another encoding) is written with U+FFFD in
// place of the bytes JSON cannot carry.
std::string write(const Value &value, Format format = Format::Indented);
void write(std::string &out, const Value &value, Format format = Format::Indented);
// As write(), but nullopt when a string is not UTF-8: for records that must read back
// exactly (the transfer journal).
std::optional<std::string> writeExact(const Value &value);

// Parses one JSON text (RFC 8259; surrounding white space allowed). On failure, nullopt
// and, when `error` is given, what is wrong and where.
std::optional<Value> parse(std::string_view text, std::string *error = nullptr);

// A JSON string literal, quotes included (for output written a line at a time).
std::string quoted(std::string_view text);

// `text` byte for byte in a JSON string: '%' and every byte that is not part of valid UTF-8
// written as %XX ("old%FF.log" is old\xff.log, "100%25" is "100%"); everything else as it is.
std::string exactText(std::string_view text);
// Sets `key` to `text` as people read it (a byte that is not UTF-8 shows as U+FFFD) and
// `key`_raw to exactText(text): the --json form of every name and path.
void setExact(Object &object, const std::string &key, std::string_view text);

// Member `key` of an object when it has the type of `fallback`; `fallback` otherwise (a
// missing member, another type, or a value that is no object).
template <typename T>
T get(const Value &object, std::string_view key, T fallback)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    if (it == object.end())
        return fallback;
    if constexpr (std::is_same_v<T, bool>) {
        return it->is_boolean() ? it->template get<bool>() : fallback;
    } else if constexpr (std::is_arithmetic_v<T>) {
        return it->is_number() ? it->template get<T>() : fallback;
    } else {
        return it->is_string() ? T(it->template get<std::string>()) : fallback;
    }
}

} // namespace strata::json

#include "core/io/json.h"

namespace strata::json {

void write(std::string &out, const Value &value, Format format)
{
    const int indent = format == Format::Indented ? 4 : -1;
    out += value.dump(indent, ' ', false, Value::error_handler_t::replace);
    if (format == Format::Indented)
        out.push_back('\n');
}

std::string write(const Value &value, Format format)
{
    std::string out;
    write(out, value, format);
    return out;
}

std::optional<std::string> writeExact(const Value &value)
{
    try {
        return value.dump();
    } catch (const Value::type_error &) {
        return std::nullopt; // a string that is not UTF-8
    }
}

std::optional<Value> parse(std::string_view text, std::string *error)
{
    try {
        return Value::parse(text);
    } catch (const Value::parse_error &e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

std::string quoted(std::string_view text)
{
    return Value(text).dump(-1, ' ', false, Value::error_handler_t::replace);
}

} // namespace strata::json

#include "core/io/json.h"

#include "core/io/utf8.h"

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

std::string exactText(std::string_view text)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = text[i] == '%' ? 0 : decodeUtf8(text, i).length;
        if (n > 0) {
            out.append(text.substr(i, n));
            i += n;
            continue;
        }
        const auto c = static_cast<unsigned char>(text[i++]);
        out += '%';
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
    return out;
}

void setExact(Object &object, const std::string &key, std::string_view text)
{
    object[key] = std::string(text);
    object[key + "_raw"] = exactText(text);
}

} // namespace strata::json

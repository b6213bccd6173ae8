#include "core/io/json.h"

#include "core/io/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace strata::json {

namespace {

const Value &nullValue()
{
    static const Value null;
    return null;
}

void indent(std::string &out, int level)
{
    out.append(std::size_t(level) * 4, ' ');
}

void writeNumber(std::string &out, double d)
{
    if (!std::isfinite(d)) {
        out += "null"; // JSON has no infinities or NaN
        return;
    }
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    out.append(buf, r.ptr);
}

void writeValue(std::string &out, const Value &v, Format format, int level)
{
    const bool pretty = format == Format::Indented;
    switch (v.type()) {
    case Value::Type::Null: out += "null"; return;
    case Value::Type::Bool: out += v.toBool() ? "true" : "false"; return;
    case Value::Type::Int: {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v.toInt());
        out.append(buf, r.ptr);
        return;
    }
    case Value::Type::Double: writeNumber(out, v.toDouble()); return;
    case Value::Type::String: appendJsonString(out, v.toString()); return;
    case Value::Type::List: {
        out.push_back('[');
        bool first = true;
        for (const auto &item : v.toArray()) {
            if (!first)
                out.push_back(',');
            first = false;
            if (pretty) {
                out.push_back('\n');
                indent(out, level + 1);
            }
            writeValue(out, item, format, level + 1);
        }
        if (pretty) {
            out.push_back('\n');
            indent(out, level);
        }
        out.push_back(']');
        return;
    }
    case Value::Type::Map: {
        out.push_back('{');
        bool first = true;
        for (const auto &[key, item] : v.toObject()) {
            if (!first)
                out.push_back(',');
            first = false;
            if (pretty) {
                out.push_back('\n');
                indent(out, level + 1);
            }
            appendJsonString(out, key);
            out += pretty ? ": " : ":";
            writeValue(out, item, format, level + 1);
        }
        if (pretty) {
            out.push_back('\n');
            indent(out, level);
        }
        out.push_back('}');
        return;
    }
    }
}

// A recursive-descent reader over the whole text.
class Parser {
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    std::optional<Value> document(std::string *error)
    {
        skipSpace();
        auto v = value(0);
        if (v) {
            skipSpace();
            if (m_pos != m_text.size()) {
                fail("unexpected content after the value");
                v.reset();
            }
        }
        if (!v && error)
            *error = m_error;
        return v;
    }

private:
    static constexpr int maxDepth = 512;

    void fail(const char *what)
    {
        if (!m_error.empty())
            return;
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s at byte %zu", what, m_pos);
        m_error = buf;
    }
    void skipSpace()
    {
        while (m_pos < m_text.size()
               && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    bool literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }

    std::optional<Value> value(int depth)
    {
        if (depth > maxDepth) {
            fail("nested too deeply");
            return std::nullopt;
        }
        if (m_pos >= m_text.size()) {
            fail("unexpected end of text");
            return std::nullopt;
        }
        switch (m_text[m_pos]) {
        case '{': return object(depth);
        case '[': return array(depth);
        case '"': {
            auto s = string();
            if (!s)
                return std::nullopt;
            return Value(std::move(*s));
        }
        case 't': if (literal("true")) return Value(true); break;
        case 'f': if (literal("false")) return Value(false); break;
        case 'n': if (literal("null")) return Value(); break;
        default:
            if (m_text[m_pos] == '-' || (m_text[m_pos] >= '0' && m_text[m_pos] <= '9'))
                return number();
        }
        fail("unexpected character");
        return std::nullopt;
    }

    std::optional<Value> object(int depth)
    {
        ++m_pos; // {
        Object o;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return Value(std::move(o));
        }
        for (;;) {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"') {
                fail("expected a member name");
                return std::nullopt;
            }
            auto key = string();
            if (!key)
                return std::nullopt;
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':') {
                fail("expected ':'");
                return std::nullopt;
            }
            ++m_pos;
            skipSpace();
            auto v = value(depth + 1);
            if (!v)
                return std::nullopt;
            o.insert_or_assign(std::move(*key), std::move(*v));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                ++m_pos;
                return Value(std::move(o));
            }
            fail("expected ',' or '}'");
            return std::nullopt;
        }
    }

    std::optional<Value> array(int depth)
    {
        ++m_pos; // [
        Array a;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return Value(std::move(a));
        }
        for (;;) {
            skipSpace();
            auto v = value(depth + 1);
            if (!v)
                return std::nullopt;
            a.push_back(std::move(*v));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                ++m_pos;
                return Value(std::move(a));
            }
            fail("expected ',' or ']'");
            return std::nullopt;
        }
    }

    std::optional<unsigned> hex4()
    {
        if (m_pos + 4 > m_text.size()) {
            fail("cut \\u escape");
            return std::nullopt;
        }
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos++];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= unsigned(c - 'A' + 10);
            else {
                fail("bad \\u escape");
                return std::nullopt;
            }
        }
        return v;
    }

    std::optional<std::string> string()
    {
        ++m_pos; // "
        std::string s;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos++];
            if (c == '"')
                return s;
            if (static_cast<unsigned char>(c) < 0x20) {
                fail("control character in a string");
                return std::nullopt;
            }
            if (c != '\\') {
                s.push_back(c);
                continue;
            }
            if (m_pos >= m_text.size())
                break;
            switch (const char e = m_text[m_pos++]) {
            case '"': case '\\': case '/': s.push_back(e); break;
            case 'b': s.push_back('\b'); break;
            case 'f': s.push_back('\f'); break;
            case 'n': s.push_back('\n'); break;
            case 'r': s.push_back('\r'); break;
            case 't': s.push_back('\t'); break;
            case 'u': {
                auto cp = hex4();
                if (!cp)
                    return std::nullopt;
                if (*cp >= 0xD800 && *cp < 0xDC00) { // a high surrogate wants its low half
                    if (m_text.substr(m_pos, 2) != "\\u") {
                        fail("lone surrogate");
                        return std::nullopt;
                    }
                    m_pos += 2;
                    auto low = hex4();
                    if (!low)
                        return std::nullopt;
                    if (*low < 0xDC00 || *low >= 0xE000) {
                        fail("lone surrogate");
                        return std::nullopt;
                    }
                    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
                } else if (*cp >= 0xDC00 && *cp < 0xE000) {
                    fail("lone surrogate");
                    return std::nullopt;
                }
                appendUtf8(s, *cp);
                break;
            }
            default: fail("bad escape"); return std::nullopt;
            }
        }
        fail("unterminated string");
        return std::nullopt;
    }

    std::optional<Value> number()
    {
        const std::size_t start = m_pos;
        if (m_text[m_pos] == '-')
            ++m_pos;
        auto digits = [this] {
            const std::size_t from = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
                ++m_pos;
            return m_pos > from;
        };
        if (!digits()) {
            fail("bad number");
            return std::nullopt;
        }
        bool integral = true;
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            integral = false;
            if (!digits()) {
                fail("bad number");
                return std::nullopt;
            }
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            integral = false;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
                ++m_pos;
            if (!digits()) {
                fail("bad number");
                return std::nullopt;
            }
        }
        const char *first = m_text.data() + start;
        const char *last = m_text.data() + m_pos;
        if (integral) {
            std::int64_t i = 0;
            if (auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last)
                return Value(static_cast<long long>(i));
        }
        double d = 0;
        if (auto r = std::from_chars(first, last, d); r.ec != std::errc() || r.ptr != last) {
            m_pos = start;
            fail("number out of range");
            return std::nullopt;
        }
        return Value(d);
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::string m_error;
};

} // namespace

void Value::setUnsigned(unsigned long long i)
{
    if (i <= static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max())) {
        m_type = Type::Int;
        m_int = static_cast<std::int64_t>(i);
    } else {
        m_type = Type::Double;
        m_double = double(i);
    }
}

std::int64_t Value::toInt(std::int64_t fallback) const
{
    if (m_type == Type::Int)
        return m_int;
    if (m_type == Type::Double && std::isfinite(m_double) && std::fabs(m_double) < 9.2e18)
        return static_cast<std::int64_t>(m_double);
    return fallback;
}

double Value::toDouble(double fallback) const
{
    if (m_type == Type::Double)
        return m_double;
    if (m_type == Type::Int)
        return double(m_int);
    return fallback;
}

const std::string &Value::toString() const
{
    static const std::string empty;
    return m_type == Type::String ? m_string : empty;
}

const Array &Value::toArray() const
{
    static const Array empty;
    return m_type == Type::List ? m_array : empty;
}

const Object &Value::toObject() const
{
    static const Object empty;
    return m_type == Type::Map ? m_object : empty;
}

const Value &Value::operator[](std::string_view key) const
{
    if (m_type != Type::Map)
        return nullValue();
    const auto it = m_object.find(key);
    return it == m_object.end() ? nullValue() : it->second;
}

bool Value::contains(std::string_view key) const
{
    return m_type == Type::Map && m_object.find(key) != m_object.end();
}

Value &Value::operator[](const std::string &key)
{
    if (m_type == Type::Null)
        m_type = Type::Map;
    return m_object[key];
}

void Value::append(Value v)
{
    if (m_type == Type::Null)
        m_type = Type::List;
    m_array.push_back(std::move(v));
}

bool operator==(const Value &a, const Value &b)
{
    if (a.isNumber() && b.isNumber()) {
        if (a.m_type == Value::Type::Int && b.m_type == Value::Type::Int)
            return a.m_int == b.m_int;
        return a.toDouble() == b.toDouble();
    }
    if (a.m_type != b.m_type)
        return false;
    switch (a.m_type) {
    case Value::Type::Null: return true;
    case Value::Type::Bool: return a.m_int == b.m_int;
    case Value::Type::String: return a.m_string == b.m_string;
    case Value::Type::List: return a.m_array == b.m_array;
    case Value::Type::Map: return a.m_object == b.m_object;
    default: return false;
    }
}

void write(std::string &out, const Value &value, Format format)
{
    writeValue(out, value, format, 0);
    if (format == Format::Indented)
        out.push_back('\n');
}

std::string write(const Value &value, Format format)
{
    std::string out;
    write(out, value, format);
    return out;
}

std::optional<Value> parse(std::string_view text, std::string *error)
{
    return Parser(text).document(error);
}

} // namespace strata::json

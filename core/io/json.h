#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::json {

class Value;
using Array = std::vector<Value>;
// Keys in sorted order: output is stable whatever the order they were set in.
using Object = std::map<std::string, Value, std::less<>>;

// A JSON value: null, boolean, integer, floating-point number, string (UTF-8), array or
// object. Small and Qt-free, for the journal and the command line's --json output.
class Value {
public:
    enum class Type : std::uint8_t { Null, Bool, Int, Double, String, List, Map }; // List: an Array, Map: an Object

    Value() = default;
    Value(std::nullptr_t) {}
    Value(bool b) : m_type(Type::Bool), m_int(b) {}
    Value(int i) : m_type(Type::Int), m_int(i) {}
    Value(long i) : m_type(Type::Int), m_int(i) {}
    Value(long long i) : m_type(Type::Int), m_int(i) {}
    Value(unsigned i) : m_type(Type::Int), m_int(i) {}
    Value(unsigned long i) { setUnsigned(i); }
    Value(unsigned long long i) { setUnsigned(i); }
    Value(double d) : m_type(Type::Double), m_double(d) {}
    Value(const char *s) : m_type(Type::String), m_string(s) {}
    Value(std::string s) : m_type(Type::String), m_string(std::move(s)) {}
    Value(std::string_view s) : m_type(Type::String), m_string(s) {}
    Value(Array a) : m_type(Type::List), m_array(std::move(a)) {}
    Value(Object o) : m_type(Type::Map), m_object(std::move(o)) {}

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isNumber() const { return m_type == Type::Int || m_type == Type::Double; }
    bool isString() const { return m_type == Type::String; }
    bool isArray() const { return m_type == Type::List; }
    bool isObject() const { return m_type == Type::Map; }

    bool toBool(bool fallback = false) const { return m_type == Type::Bool ? m_int != 0 : fallback; }
    // A number as an integer (a double is truncated); `fallback` for anything else.
    std::int64_t toInt(std::int64_t fallback = 0) const;
    double toDouble(double fallback = 0) const;
    // The string; empty for anything else.
    const std::string &toString() const;
    const Array &toArray() const;   // empty unless an array
    const Object &toObject() const; // empty unless an object

    // Object member, a null value when absent or not an object.
    const Value &operator[](std::string_view key) const;
    bool contains(std::string_view key) const;
    // Object member for writing; a null value becomes an empty object first.
    Value &operator[](const std::string &key);
    // Appends to an array; a null value becomes an empty array first.
    void append(Value v);

    friend bool operator==(const Value &a, const Value &b);

private:
    void setUnsigned(unsigned long long i);

    Type m_type = Type::Null;
    std::int64_t m_int = 0;
    double m_double = 0;
    std::string m_string;
    Array m_array;
    Object m_object;
};

enum class Format : std::uint8_t {
    Compact,  // {"a":1,"b":[true]}
    Indented, // four spaces a level, one member a line, ending in a newline
};

std::string write(const Value &value, Format format = Format::Indented);
void write(std::string &out, const Value &value, Format format = Format::Indented);

// Parses one JSON text (RFC 8259; surrounding white space allowed). On failure, nullopt
// and, when `error` is given, what is wrong and where ("unexpected 'x' at byte 12").
std::optional<Value> parse(std::string_view text, std::string *error = nullptr);

} // namespace strata::json

#include "core/bench/go_bench.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace strata {

namespace {

constexpr std::string_view kBenchmarkPrefix = "Benchmark";

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Consumes one whitespace-separated field and the whitespace after it (benchfmt's splitField).
std::string_view nextField(std::string_view &rest)
{
    std::size_t i = 0;
    while (i < rest.size() && !isSpace(rest[i]))
        ++i;
    const std::string_view field = rest.substr(0, i);
    while (i < rest.size() && isSpace(rest[i]))
        ++i;
    rest.remove_prefix(i);
    return field;
}

bool validUtf8(std::string_view s, std::size_t &badAt)
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = p[i];
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            len = 2;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            len = 4;
            cp = c & 0x07;
        } else {
            badAt = i;
            return false;
        }
        if (i + len > n) {
            badAt = i;
            return false;
        }
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xc0) != 0x80) {
                badAt = i;
                return false;
            }
            cp = (cp << 6) | (p[i + k] & 0x3f);
        }
        // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
        const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
        if (overlong || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
            badAt = i;
            return false;
        }
        i += len;
    }
    return true;
}

// strconv.ParseFloat's accepted forms that matter here: decimal and exponent notation with
// an optional sign, "Inf"/"Infinity"/"NaN" in any case.
bool parseFloat(std::string_view s, double &out)
{
    if (s.empty())
        return false;
    bool negative = false;
    std::string_view body = s;
    if (body.front() == '+' || body.front() == '-') {
        negative = body.front() == '-';
        body.remove_prefix(1);
    }
    auto lower = [](std::string_view a) {
        std::string r(a);
        std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return r;
    };
    const std::string word = lower(body);
    if (word == "inf" || word == "infinity") {
        out = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        return true;
    }
    if (word == "nan") {
        out = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    if (body.empty() || body.front() == '+' || body.front() == '-')
        return false;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
    if (ptr != body.data() + body.size())
        return false;
    if (ec == std::errc::result_out_of_range) {
        // Go rounds to ±Inf or 0 and reports a range error; benchfmt rejects the line.
        return false;
    }
    if (ec != std::errc())
        return false;
    out = negative ? -v : v;
    return true;
}

// A "key: value" line: the key starts with a lower-case letter and holds no spaces or
// upper-case letters; an empty value (nothing after the colon) deletes the key.
bool parseConfigLine(std::string_view line, std::string_view &key, std::string_view &value)
{
    if (line.empty() || !(line.front() >= 'a' && line.front() <= 'z'))
        return false;
    std::size_t colon = std::string_view::npos;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (isSpace(c) || (c >= 'A' && c <= 'Z'))
            return false;
        if (c == ':') {
            colon = i;
            break;
        }
    }
    if (colon == std::string_view::npos)
        return false;
    key = line.substr(0, colon);
    std::string_view rest = line.substr(colon + 1);
    if (rest.empty()) {
        value = {};
        return true;
    }
    if (rest.front() != ' ' && rest.front() != '\t')
        return false;
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
        rest.remove_prefix(1);
    // Carriage returns at the end are line-end debris (CRLF, CRCRLF), never part of a value:
    // kept, one would be taken for the line end when the value is written out and read again.
    while (!rest.empty() && rest.back() == '\r')
        rest.remove_suffix(1);
    value = rest;
    return true;
}

void setConfig(std::vector<std::pair<std::string, std::string>> &config, std::string_view key, std::string_view value)
{
    auto it = std::find_if(config.begin(), config.end(), [&](const auto &kv) { return kv.first == key; });
    if (value.empty()) {
        if (it != config.end())
            config.erase(it);
    } else if (it != config.end()) {
        it->second = std::string(value);
    } else {
        config.emplace_back(std::string(key), std::string(value));
    }
}

// Splits a trailing "-N" (N a positive number written without leading zeros) off a name.
void splitProcs(std::string_view full, std::string &name, int &procs)
{
    std::size_t i = full.size();
    while (i > 0 && full[i - 1] >= '0' && full[i - 1] <= '9')
        --i;
    const std::size_t digits = full.size() - i;
    if (digits > 0 && digits <= 9 && i > 0 && full[i - 1] == '-' && full[i] != '0') {
        int n = 0;
        std::from_chars(full.data() + i, full.data() + full.size(), n);
        name = std::string(full.substr(0, i - 1));
        procs = n;
        return;
    }
    name = std::string(full);
    procs = 0;
}

std::string lineWarning(std::size_t line, std::string_view message)
{
    return "line " + std::to_string(line) + ": " + std::string(message);
}

bool validConfigKey(std::string_view key)
{
    std::string_view unused;
    std::string line = std::string(key) + ": x";
    std::string_view k;
    return parseConfigLine(line, k, unused) && k == key;
}

} // namespace

std::string BenchResult::fullName() const
{
    return procs > 0 ? name + '-' + std::to_string(procs) : name;
}

const std::string *BenchResult::configValue(std::string_view key) const
{
    for (const auto &[k, v] : config) {
        if (k == key)
            return &v;
    }
    return nullptr;
}

const double *BenchResult::value(std::string_view unit) const
{
    for (const auto &[u, v] : values) {
        if (u == unit)
            return &v;
    }
    return nullptr;
}

Result<std::vector<BenchResult>> parseGoBench(std::string_view text, std::vector<std::string> *warnings,
                                              BenchUnitMetadata *units)
{
    std::size_t badAt = 0;
    if (!validUtf8(text, badAt)) {
        const auto line = 1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(badAt), '\n'));
        return Error(ErrorKind::InvalidInput,
                     "line " + std::to_string(line) + " is not UTF-8; Go benchmark text must be UTF-8");
    }
    auto warn = [&](std::size_t line, std::string_view message) {
        if (warnings)
            warnings->push_back(lineWarning(line, message));
    };

    std::vector<BenchResult> results;
    std::vector<std::pair<std::string, std::string>> config;
    BenchUnitMetadata localUnits;
    BenchUnitMetadata &unitMetadata = units ? *units : localUnits;

    std::size_t lineNo = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);

        if (line.starts_with(kBenchmarkPrefix)) {
            std::string_view rest = line.substr(kBenchmarkPrefix.size());
            const std::string_view fullName = nextField(rest);
            if (rest.empty())
                continue; // `go test -v` prints the bare name before each benchmark
            BenchResult result;
            splitProcs(fullName, result.name, result.procs);
            const std::string_view iterations = nextField(rest);
            const auto [ptr, ec] =
                std::from_chars(iterations.data(), iterations.data() + iterations.size(), result.iterations);
            if (ec == std::errc::result_out_of_range) {
                warn(lineNo, "parsing iteration count: value out of range");
                continue;
            }
            if (ec != std::errc() || ptr != iterations.data() + iterations.size()) {
                warn(lineNo, "parsing iteration count: invalid syntax");
                continue;
            }
            bool ok = true;
            while (ok) {
                const std::string_view number = nextField(rest);
                if (number.empty()) {
                    if (result.values.empty()) {
                        warn(lineNo, "missing measurements");
                        ok = false;
                    }
                    break;
                }
                double v = 0;
                if (!parseFloat(number, v)) {
                    warn(lineNo, "parsing measurement: invalid syntax: " + std::string(number));
                    ok = false;
                    break;
                }
                const std::string_view unit = nextField(rest);
                if (unit.empty()) {
                    warn(lineNo, "missing units");
                    ok = false;
                    break;
                }
                result.values.emplace_back(std::string(unit), v);
            }
            if (!ok)
                continue;
            result.config = config;
            results.push_back(std::move(result));
            continue;
        }

        if (line.starts_with('U')) {
            std::string_view rest = line;
            if (nextField(rest) == "Unit") {
                const std::string_view unit = nextField(rest);
                if (unit.empty()) {
                    warn(lineNo, "missing unit");
                    continue;
                }
                for (std::string_view field = nextField(rest); !field.empty(); field = nextField(rest)) {
                    const std::size_t eq = field.find('=');
                    if (eq == std::string_view::npos || eq == 0) {
                        warn(lineNo, "expected key=value");
                        continue;
                    }
                    const std::string key(field.substr(0, eq));
                    const std::string value(field.substr(eq + 1));
                    auto &meta = unitMetadata[std::string(unit)];
                    const auto have = meta.find(key);
                    if (have != meta.end() && have->second != value) {
                        warn(lineNo,
                             "metadata " + key + " of unit " + std::string(unit) + " already set to " + have->second);
                        continue;
                    }
                    meta[key] = value;
                }
                continue;
            }
        }

        std::string_view key, value;
        if (parseConfigLine(line, key, value))
            setConfig(config, key, value);
        // Anything else is noise.
    }
    return results;
}

namespace {

// Shortest round-trip digits, in exponent form when the decimal exponent is below -4 or at
// least expLimit.
std::string shortestFloat(double value, int expLimit)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == 0)
        return std::signbit(value) ? "-0" : "0";

    // Shortest round-trip digits and the decimal exponent, via scientific notation.
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    (void)ec;
    const std::string_view sci(buf, std::size_t(end - buf));
    const bool negative = sci.front() == '-';
    const std::size_t e = sci.find('e');
    std::string digits;
    for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
        if (c != '.')
            digits += c;
    }
    int exp = 0;
    std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);

    std::string out = negative ? "-" : "";
    if (exp < -4 || exp >= expLimit) {
        out += digits[0];
        if (digits.size() > 1) {
            out += '.';
            out += digits.substr(1);
        }
        out += 'e';
        out += exp < 0 ? '-' : '+';
        const int a = exp < 0 ? -exp : exp;
        if (a < 10)
            out += '0';
        out += std::to_string(a);
        return out;
    }
    // Plain decimal: the point goes after exp+1 digits.
    const int point = exp + 1;
    if (point <= 0) {
        out += "0.";
        out.append(std::size_t(-point), '0');
        out += digits;
    } else if (std::size_t(point) >= digits.size()) {
        out += digits;
        out.append(std::size_t(point) - digits.size(), '0');
    } else {
        out += digits.substr(0, std::size_t(point));
        out += '.';
        out += digits.substr(std::size_t(point));
    }
    return out;
}

} // namespace

std::string formatGoFloat(double value)
{
    return shortestFloat(value, 6); // strconv 'g' with the shortest precision
}

std::string formatGoBench(const std::vector<BenchResult> &results)
{
    std::size_t nameWidth = 0;
    for (const auto &r : results)
        nameWidth = std::max(nameWidth, kBenchmarkPrefix.size() + r.fullName().size());

    std::string out;
    std::vector<std::pair<std::string, std::string>> state;
    auto emit = [&](std::string_view key, std::string_view value) {
        out += key;
        out += ':';
        if (!value.empty()) {
            out += ' ';
            out += value;
        }
        out += '\n';
    };
    for (const auto &r : results) {
        std::vector<std::pair<std::string, std::string>> target;
        for (const auto &kv : r.config) {
            // Keys that would not read back as configuration, and values that cannot be
            // written on one line (a line feed, or a carriage return at the end: the
            // reader takes that for a CRLF line end), are not representable.
            if (!kv.second.empty() && validConfigKey(kv.first) && kv.second.find('\n') == std::string::npos
                && kv.second.back() != '\r')
                target.push_back(kv);
        }
        // Drop keys the result does not have; the rest keep their order.
        for (auto it = state.begin(); it != state.end();) {
            const bool kept =
                std::any_of(target.begin(), target.end(), [&](const auto &kv) { return kv.first == it->first; });
            if (kept) {
                ++it;
            } else {
                emit(it->first, {});
                it = state.erase(it);
            }
        }
        // New keys are appended, so the surviving keys must lead the target in order;
        // otherwise start over from an empty configuration.
        bool prefix = state.size() <= target.size();
        for (std::size_t i = 0; prefix && i < state.size(); ++i)
            prefix = state[i].first == target[i].first;
        if (!prefix) {
            for (const auto &kv : state)
                emit(kv.first, {});
            state.clear();
        }
        for (std::size_t i = 0; i < target.size(); ++i) {
            if (i < state.size() && state[i].second == target[i].second)
                continue;
            emit(target[i].first, target[i].second);
        }
        state = target;

        std::string name = std::string(kBenchmarkPrefix) + r.fullName();
        name.resize(std::max(name.size(), nameWidth), ' ');
        out += name;
        out += '\t';
        const std::string iterations = std::to_string(r.iterations);
        out.append(iterations.size() < 8 ? 8 - iterations.size() : 0, ' ');
        out += iterations;
        for (const auto &[unit, v] : r.values) {
            // Plain digits up to 1e21 ("70123456 ns/op", not "7.0123456e+07").
            const std::string number = shortestFloat(v, 21);
            out += '\t';
            out.append(number.size() < 10 ? 10 - number.size() : 0, ' ');
            out += number;
            out += ' ';
            out += unit;
        }
        out += '\n';
    }
    return out;
}

} // namespace strata

#include "core/bench/benchstat.h"
#include "core/bench/benchstat_detail.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numbers>

// The arithmetic follows golang.org/x/perf/benchmath and github.com/aclements/go-moremath
// operation for operation, so that printed figures (and p-values at alpha) come out as
// benchstat's do; comments name the Go function each piece mirrors.

namespace strata {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double sign(double x)
{
    return x == 0 ? 0 : (x < 0 ? -1 : 1);
}

// uTestMinP[n]: the smallest p the U test can give for two samples of n (benchmath's table).
constexpr double kUTestMinP[] = {0,
                                 1,
                                 0.3333333333333333,
                                 0.1,
                                 0.02857142857142857,
                                 0.007936507936507936,
                                 0.0021645021645021645,
                                 0.0005827505827505828,
                                 0.0001554001554001554,
                                 4.113533525298231e-05};

std::string needSamples(const char *op, int n, const std::string &what)
{
    return std::string("need ") + op + ' ' + std::to_string(n) + " samples " + what;
}

// medianSamples: the fewest samples with a finite interval at this confidence.
std::string medianSamplesWarning(double confidence)
{
    for (int n = 2; n <= 50; ++n) {
        const auto ci = quantileCI(n, 0.5, confidence);
        if (0 < ci.loOrder && ci.hiOrder <= n)
            return needSamples(">=", n, "for confidence interval at level " + formatGoFloat(confidence));
    }
    return needSamples(">", 50, "for confidence interval at level " + formatGoFloat(confidence));
}

std::string uTestSamplesWarning(double alpha, int n1, int n2)
{
    const int count = int(std::size(kUTestMinP));
    for (int n = 1; n < count; ++n) {
        if (kUTestMinP[n] <= alpha) {
            if (n1 < n && n2 < n)
                return needSamples(">=", n, "to detect a difference at alpha level " + formatGoFloat(alpha));
            return {};
        }
    }
    if (n1 < count && n2 < count)
        return needSamples(">", count, "to detect a difference at alpha level " + formatGoFloat(alpha));
    return {};
}

// benchunit's unit parser: tokens separated by '*', '/', '-' and spaces; after '/' a
// token is in the denominator until the next '*'.
template <typename Fn>
void forEachUnitToken(std::string_view unit, Fn fn)
{
    bool denom = false;
    std::size_t i = 0;
    while (i < unit.size()) {
        const char c = unit[i];
        if (c == '*') {
            denom = false;
            ++i;
        } else if (c == '/') {
            denom = true;
            ++i;
        } else if (c == '-' || c == ' ' || c == '\t') {
            ++i;
        } else {
            std::size_t end = i;
            while (end < unit.size() && unit[end] != '*' && unit[end] != '/' && unit[end] != '-' && unit[end] != ' '
                   && unit[end] != '\t')
                ++end;
            fn(unit.substr(i, end - i), i, denom);
            i = end;
        }
    }
}

// benchunit.Scaler

struct ScaleFactor {
    double factor;
    std::string prefix;
    double t100, t10, t1;
};

double parseDouble(const std::string &s)
{
    return std::strtod(s.c_str(), nullptr);
}

// Thresholds parsed from their printed form, so they match how printing rounds.
const std::vector<ScaleFactor> &siFactors()
{
    static const std::vector<ScaleFactor> factors = [] {
        std::vector<ScaleFactor> f;
        int exp = 12;
        for (const char *p : {"T", "G", "M", "k", "", "m", "\u00b5", "n"}) {
            const std::string e = std::to_string(exp);
            f.push_back({std::pow(10.0, double(exp)), p, parseDouble("99.995e" + e), parseDouble("9.9995e" + e),
                         parseDouble(".99995e" + e)});
            exp -= 3;
        }
        return f;
    }();
    return factors;
}

const std::vector<ScaleFactor> &iecFactors()
{
    static const std::vector<ScaleFactor> factors = [] {
        std::vector<ScaleFactor> f;
        int exp = 40;
        for (const char *p : {"Ti", "Gi", "Mi", "Ki", ""}) {
            f.push_back({std::ldexp(1.0, exp), p, std::ldexp(0x1.8ffae147ae148p0, 6 + exp),
                         std::ldexp(0x1.3ffbe76c8b439p0, 3 + exp), std::ldexp(0x1.fff972474538fp0, -1 + exp)});
            exp -= 10;
        }
        return f;
    }();
    return factors;
}

// benchunit.CommonScale: the scale that shows every value with three significant digits.

int defaultBetter(const std::string &unit)
{
    if (unit == "ns/op" || unit == "sec/op" || unit == "B/op" || unit == "allocs/op")
        return -1;
    if (unit == "MB/s" || unit == "B/s")
        return 1;
    return 0;
}

} // namespace

namespace bench_detail {

std::string printf1(const char *format, double value)
{
    std::string out(std::size_t(std::snprintf(nullptr, 0, format, value)), '\0');
    std::snprintf(out.data(), out.size() + 1, format, value);
    return out;
}

Scaler commonScale(const std::vector<double> &values, bool binary)
{
    double min = 0;
    for (double v : values) {
        v = std::abs(v);
        if (v != 0 && (min == 0 || v < min))
            min = v;
    }
    if (min == 0)
        return {3, 1, ""};
    const auto &factors = binary ? iecFactors() : siFactors();
    for (const auto &f : factors) {
        if (min >= f.t100)
            return {1, f.factor, f.prefix};
        if (min >= f.t10)
            return {2, f.factor, f.prefix};
        if (min >= f.t1)
            return {3, f.factor, f.prefix};
    }
    const auto &f = factors.back();
    const double val = min / f.factor;
    for (int i = 0, exp = -1; exp > -9; ++i, --exp) {
        if (val >= parseDouble("9.9995e" + std::to_string(exp)) || exp == -8)
            return {i + 3, f.factor, f.prefix};
    }
    return {3, f.factor, f.prefix};
}

std::string describeTableRow(const BenchstatReport &report, const BenchstatTable &t, int column,
                             const std::string &name)
{
    return report.labels[std::size_t(t.columns[std::size_t(column)])] + " " + name + " (" + t.unit + ")";
}

} // namespace bench_detail

using namespace bench_detail;

std::string BenchSummary::pctRange() const
{
    if (std::isinf(lo) || std::isinf(hi))
        return "\u221e";
    if (sign(center) != sign(lo) || sign(center) != sign(hi))
        return "?";
    if (center == 0)
        return "0%";
    const double v = std::max(hi / center - 1, 1 - lo / center);
    return printf1("%.0f%%", 100 * v);
}

BenchSummary summarizeSample(std::vector<double> values, double confidence, bool exact)
{
    std::sort(values.begin(), values.end());
    BenchSummary s;
    if (values.empty()) {
        s.center = s.lo = s.hi = std::numeric_limits<double>::quiet_NaN();
        return s;
    }
    if (exact) {
        // The mode (the first of equally common values), and the range.
        double val = values[0], modeVal = val;
        int count = 1, modeCount = 1;
        for (std::size_t i = 1; i < values.size(); ++i) {
            if (values[i] == val) {
                if (++count > modeCount) {
                    modeVal = val;
                    modeCount = count;
                }
            } else {
                val = values[i];
                count = 1;
            }
        }
        s.center = modeVal;
        s.lo = values.front();
        s.hi = values.back();
        s.confidence = 1;
        if (modeCount != int(values.size()))
            s.warnings.push_back("exact distribution expected, but values range from " + formatGoFloat(values.front())
                                 + " to " + formatGoFloat(values.back()));
        return s;
    }
    const int n = int(values.size());
    const auto ci = quantileCI(n, 0.5, confidence);
    s.center = quantile(values, 0.5);
    s.lo = ci.loOrder < 1 ? -kInf : values[std::size_t(ci.loOrder - 1)];
    s.hi = ci.hiOrder - 1 >= n ? kInf : values[std::size_t(ci.hiOrder - 1)];
    s.confidence = ci.confidence;
    if (std::isinf(s.lo) || std::isinf(s.hi))
        s.warnings.push_back(medianSamplesWarning(confidence));
    return s;
}

std::string BenchComparison::text() const
{
    std::string s;
    if (p != 0)
        s = printf1("p=%0.3f ", p);
    if (n1 == n2)
        return s + "n=" + std::to_string(n1);
    return s + "n=" + std::to_string(n1) + "+" + std::to_string(n2);
}

std::string BenchComparison::delta(double oldCenter, double newCenter) const
{
    if (p > alpha)
        return "~";
    if (oldCenter == newCenter)
        return "0.00%";
    if (oldCenter == 0)
        return "?";
    return printf1("%+.2f%%", ((newCenter / oldCenter) - 1.0) * 100.0);
}

BenchComparison compareSamples(std::vector<double> base, std::vector<double> other, double alpha, bool exact)
{
    BenchComparison c;
    c.n1 = int(base.size());
    c.n2 = int(other.size());
    if (exact) {
        // Exact measurements need no test: any difference is real.
        c.p = 0;
        c.alpha = 0;
        return c;
    }
    c.alpha = alpha;
    auto res = mannWhitneyUTest(base, other);
    if (!res) {
        // Reported as no significant difference, with the reason.
        c.p = 1;
        c.warnings.push_back(res.error().cause());
        return c;
    }
    c.p = res->p;
    if (c.p > c.alpha) {
        // Too few samples to ever reach alpha, however far apart they are.
        if (auto w = uTestSamplesWarning(alpha, c.n1, c.n2); !w.empty())
            c.warnings.push_back(std::move(w));
    }
    return c;
}

std::pair<std::string, double> tidyUnit(std::string_view unit)
{
    if (unit == "ns/op")
        return {"sec/op", 1e-9};
    if (unit == "MB/s")
        return {"B/s", 1e6};
    if (unit == "B/op" || unit == "allocs/op")
        return {std::string(unit), 1};
    if (unit.find("ns") == std::string_view::npos && unit.find("MB") == std::string_view::npos)
        return {std::string(unit), 1};
    struct Edit {
        std::size_t pos, len;
        const char *replace;
    };
    std::vector<Edit> edits;
    double factor = 1;
    forEachUnitToken(unit, [&](std::string_view tok, std::size_t pos, bool denom) {
        if (denom)
            return;
        if (tok == "ns") {
            edits.push_back({pos, 2, "sec"});
            factor /= 1e9;
        } else if (tok == "MB") {
            edits.push_back({pos, 2, "B"});
            factor *= 1e6;
        }
    });
    std::string tidied(unit);
    for (auto it = edits.rbegin(); it != edits.rend(); ++it)
        tidied.replace(it->pos, it->len, it->replace);
    return {tidied, factor};
}

bool isBinaryUnit(std::string_view unit)
{
    bool binary = false;
    forEachUnitToken(unit, [&](std::string_view tok, std::size_t, bool denom) {
        if (!denom && (tok == "B" || tok == "MB" || tok == "bytes"))
            binary = true;
    });
    return binary;
}

std::string scaleValue(double value, bool binary)
{
    return commonScale({value}, binary).format(value);
}

namespace {

// Metadata (assume=, better=) by tidied unit, as benchfmt keys it.
using UnitMetadata = std::map<std::string, std::map<std::string, std::string>>;

const std::string *metaValue(const UnitMetadata &metadata, const std::string &unit, const std::string &key)
{
    const auto u = metadata.find(unit);
    if (u == metadata.end())
        return nullptr;
    const auto k = u->second.find(key);
    return k == u->second.end() ? nullptr : &k->second;
}

// One table's results as they are gathered: its unit and configuration, its benchmark
// names and the values of each (name, input) cell.
struct TableBuilder {
    std::vector<std::string> unitAndConfig;                   // unit, then config values
    std::map<int, std::string> rows;                          // name ordinal → name
    std::map<std::pair<int, int>, std::vector<double>> cells; // (name ordinal, input) → values
    std::vector<bool> columns;                                // inputs with a value in it
};

// Every configuration key, in the order first seen (benchproc's order).
std::vector<std::string> configKeys(const std::vector<BenchstatInput> &inputs)
{
    std::vector<std::string> keys;
    for (const auto &in : inputs)
        for (const auto &r : in.results)
            for (const auto &kv : r.config)
                if (std::find(keys.begin(), keys.end(), kv.first) == keys.end())
                    keys.push_back(kv.first);
    return keys;
}

// The results grouped into tables, one per configuration and unit, each key an ordinal
// by first observation (configuration values, then the unit), as benchproc orders them.
std::map<std::vector<int>, TableBuilder> groupIntoTables(const std::vector<BenchstatInput> &inputs,
                                                         const std::vector<std::string> &keys)
{
    std::vector<std::map<std::string, int>> valueOrder(keys.size());
    std::map<std::string, int> unitOrder, nameOrder;
    const auto ordinal = [](std::map<std::string, int> &order, const std::string &v) {
        return order.emplace(v, int(order.size())).first->second;
    };
    std::map<std::vector<int>, TableBuilder> builders;
    for (std::size_t col = 0; col < inputs.size(); ++col) {
        for (const auto &r : inputs[col].results) {
            std::vector<int> key;
            std::vector<std::string> configValues;
            for (std::size_t k = 0; k < keys.size(); ++k) {
                const std::string *v = r.configValue(keys[k]);
                configValues.push_back(v ? *v : std::string());
                key.push_back(ordinal(valueOrder[k], configValues.back()));
            }
            const std::string name = r.fullName();
            const int row = ordinal(nameOrder, name);
            for (const auto &[rawUnit, rawValue] : r.values) {
                if (std::isnan(rawValue))
                    continue; // measures nothing, and has no order: sorting and ranking need one
                const auto [unit, factor] = tidyUnit(rawUnit);
                auto tableKey = key;
                tableKey.push_back(ordinal(unitOrder, unit));
                auto &b = builders[tableKey];
                if (b.unitAndConfig.empty()) {
                    b.unitAndConfig.push_back(unit);
                    b.unitAndConfig.insert(b.unitAndConfig.end(), configValues.begin(), configValues.end());
                    b.columns.assign(inputs.size(), false);
                }
                b.rows.emplace(row, name);
                b.columns[col] = true;
                b.cells[{row, int(col)}].push_back(rawValue * factor);
            }
        }
    }
    return builders;
}

// A table's rows: each cell summarised, each column compared with the first.
BenchstatTable makeTable(const TableBuilder &b, const std::vector<std::string> &keys, std::size_t inputCount,
                         const UnitMetadata &metadata, const BenchstatOptions &options)
{
    BenchstatTable t;
    t.unit = b.unitAndConfig[0];
    for (std::size_t k = 0; k < keys.size(); ++k)
        t.config.emplace_back(keys[k], b.unitAndConfig[k + 1]);
    const std::string *assume = metaValue(metadata, t.unit, "assume");
    t.exact = assume && *assume == "exact";
    if (const std::string *better = metaValue(metadata, t.unit, "better"))
        t.better = *better == "higher" ? 1 : (*better == "lower" ? -1 : 0);
    else
        t.better = defaultBetter(t.unit);
    for (std::size_t col = 0; col < inputCount; ++col)
        if (b.columns[col])
            t.columns.push_back(int(col));
    for (const auto &[row, name] : b.rows) {
        t.rows.push_back(name);
        std::vector<std::optional<BenchstatCell>> cells(t.columns.size());
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
            const auto it = b.cells.find({row, t.columns[c]});
            if (it == b.cells.end())
                continue;
            BenchstatCell cell;
            cell.values = it->second;
            std::sort(cell.values.begin(), cell.values.end());
            cell.summary = summarizeSample(cell.values, options.confidence, t.exact);
            cells[c] = std::move(cell);
        }
        for (std::size_t c = 1; c < cells.size(); ++c)
            if (cells[c] && cells[0])
                cells[c]->comparison = compareSamples(cells[0]->values, cells[c]->values, options.alpha, t.exact);
        t.cells.push_back(std::move(cells));
    }
    return t;
}

// Geomean of each column's centers, and of the per-benchmark ratios to the base (not the
// ratio of geomeans, which would compare different benchmark sets).
std::vector<BenchstatGeomean> geomeansOf(const BenchstatTable &t)
{
    std::vector<BenchstatGeomean> out;
    int nBase = 0;
    for (const auto &row : t.cells)
        nBase += row[0] ? 1 : 0;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
        BenchstatGeomean g;
        std::vector<double> centers, ratios;
        bool badRatio = false;
        for (const auto &row : t.cells) {
            if (!row[c])
                continue;
            centers.push_back(row[c]->summary.center);
            if (c > 0 && row[0]) {
                const double a = row[c]->summary.center, b0 = row[0]->summary.center;
                if (a == b0) {
                    ratios.push_back(1);
                } else if (b0 == 0) {
                    badRatio = true;
                    ratios.push_back(0);
                } else {
                    ratios.push_back(a / b0);
                }
            }
        }
        g.count = int(centers.size());
        if (c > 0 && nBase != int(ratios.size()))
            g.warnings.push_back("benchmark set differs from baseline; geomeans may not be comparable");
        if (const double gm = geomean(centers); std::isnan(gm))
            g.warnings.push_back("summaries must be >0 to compute geomean");
        else
            g.center = gm;
        if (c > 0 && !badRatio) {
            if (const double gm = geomean(ratios); std::isnan(gm))
                g.warnings.push_back("ratios must be >0 to compute geomean");
            else
                g.ratio = gm;
        }
        out.push_back(std::move(g));
    }
    return out;
}

} // namespace

BenchstatReport benchstat(const std::vector<BenchstatInput> &inputs, const BenchstatOptions &options)
{
    BenchstatReport report;
    report.alpha = options.alpha;
    report.confidence = options.confidence;
    for (const auto &in : inputs)
        report.labels.push_back(in.label);
    UnitMetadata metadata;
    for (const auto &[unit, meta] : options.units) {
        auto &m = metadata[tidyUnit(unit).first];
        for (const auto &[k, v] : meta)
            m.emplace(k, v);
    }
    const std::vector<std::string> keys = configKeys(inputs);
    for (const auto &[tableKey, builder] : groupIntoTables(inputs, keys)) {
        BenchstatTable table = makeTable(builder, keys, inputs.size(), metadata, options);
        table.geomean = geomeansOf(table);
        report.tables.push_back(std::move(table));
    }
    return report;
}

std::vector<std::string> benchstatWarnings(const BenchstatReport &report)
{
    // Grouped by message, so thirty benchmarks run three times make one line, not thirty.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    auto add = [&](const std::string &message, std::string where) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto &g) { return g.first == message; });
        if (it == groups.end()) {
            groups.push_back({message, {}});
            it = groups.end() - 1;
        }
        it->second.push_back(std::move(where));
    };
    for (const auto &t : report.tables) {
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                const auto &cell = t.cells[r][c];
                if (!cell)
                    continue;
                const std::string where =
                    describeTableRow(report, t, int(c), t.rows[r]) + " n=" + std::to_string(cell->values.size());
                for (const auto &w : cell->summary.warnings)
                    add(w, where);
                if (cell->comparison) {
                    for (const auto &w : cell->comparison->warnings)
                        add(w, report.labels[std::size_t(t.columns[0])] + " vs " + where);
                }
            }
        }
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
            for (const auto &w : t.geomean[c].warnings)
                add(w, describeTableRow(report, t, int(c), "geomean"));
        }
    }
    std::vector<std::string> out;
    for (const auto &[message, where] : groups) {
        std::string line = message + ": ";
        const std::size_t shown = std::min<std::size_t>(where.size(), 3);
        for (std::size_t i = 0; i < shown; ++i)
            line += (i ? ", " : "") + where[i];
        if (where.size() > shown)
            line += " and " + std::to_string(where.size() - shown) + " more";
        out.push_back(std::move(line));
    }
    return out;
}

} // namespace strata

#include "core/bench/benchstat.h"

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

std::string printf1(const char *format, double value)
{
    std::string out(std::size_t(std::snprintf(nullptr, 0, format, value)), '\0');
    std::snprintf(out.data(), out.size() + 1, format, value);
    return out;
}

// mathx.Choose: exact below 21, exp(lgamma) above (the CI's left/right tie-breaking
// depends on those last bits, so they are reproduced, not improved).
double goChoose(int n, int k)
{
    if (k == 0 || k == n)
        return 1;
    if (k < 0 || n < k)
        return 0;
    if (n <= 20) {
        std::int64_t numer = 1;
        for (std::int64_t n1 = n - (k - 1); n1 <= n; ++n1)
            numer *= n1;
        std::int64_t denom = 1;
        for (std::int64_t i = 2; i <= k; ++i)
            denom *= i;
        return double(numer / denom);
    }
    const double a = std::lgamma(double(n + 1));
    const double b = std::lgamma(double(k + 1));
    const double c = std::lgamma(double(n - k + 1));
    return std::exp(a - b - c);
}

// BinomialDist.PMF
double binomialPmf(int n, double p, double k)
{
    const int ki = int(std::floor(k));
    if (ki < 0 || ki > n)
        return 0;
    return goChoose(n, ki) * std::pow(p, double(ki)) * std::pow(1 - p, double(n - ki));
}

// NormalDist.CDF
double normalCdf(double x, double mu, double sigma)
{
    return std::erfc(-(x - mu) / (sigma * std::numbers::sqrt2)) / 2;
}

// NormalDist.InvCDF: Acklam's rational approximation plus one refinement step.
double normalInvCdf(double p, double mu, double sigma)
{
    constexpr double a1 = -3.969683028665376e+01, a2 = 2.209460984245205e+02, a3 = -2.759285104469687e+02,
                     a4 = 1.383577518672690e+02, a5 = -3.066479806614716e+01, a6 = 2.506628277459239e+00;
    constexpr double b1 = -5.447609879822406e+01, b2 = 1.615858368580409e+02, b3 = -1.556989798598866e+02,
                     b4 = 6.680131188771972e+01, b5 = -1.328068155288572e+01;
    constexpr double c1 = -7.784894002430293e-03, c2 = -3.223964580411365e-01, c3 = -2.400758277161838e+00,
                     c4 = -2.549732539343734e+00, c5 = 4.374664141464968e+00, c6 = 2.938163982698783e+00;
    constexpr double d1 = 7.784695709041462e-03, d2 = 3.224671290700398e-01, d3 = 2.445134137142996e+00,
                     d4 = 3.754408661907416e+00;
    constexpr double plow = 0.02425, phigh = 1 - plow;
    if (p < 0 || p > 1)
        return std::numeric_limits<double>::quiet_NaN();
    if (p == 0)
        return -kInf;
    if (p == 1)
        return kInf;
    double x;
    if (p < plow) {
        const double q = std::sqrt(-2 * std::log(p));
        x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1);
    } else if (phigh < p) {
        const double q = std::sqrt(-2 * std::log(1 - p));
        x = -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1);
    } else {
        const double q = p - 0.5;
        const double r = q * q;
        x = (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q
            / (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1);
    }
    const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
    const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
    x = x - u / (1 + x * u / 2);
    return x * sigma + mu;
}

double sign(double x)
{
    return x == 0 ? 0 : (x < 0 ? -1 : 1);
}

// UDist.p: the Mann-Whitney recurrence p_{n,m}(U) for U = 0..u (no ties), by dynamic
// programming over one row of the (n, m) plane.
std::vector<double> uDistP(int n1, int n2, int u)
{
    int nn = n1, mm = n2;
    if (nn > mm)
        std::swap(nn, mm);
    std::vector<std::vector<double>> memo(std::size_t(nn + 1), std::vector<double>(std::size_t(u + 1), 0.0));
    for (int m = 0; m <= mm; ++m) {
        memo[0][0] = 1;
        const int nlim = std::min(nn, m);
        for (int n = 1; n <= nlim; ++n) {
            const auto &lp = memo[std::size_t(n - 1)];
            const auto &rp = n <= m - 1 ? memo[std::size_t(n)] : memo[std::size_t(m - 1)];
            const int ulim = std::min(n * m, u);
            auto &out = memo[std::size_t(n)];
            const double nplusm = double(n + m);
            for (int u1 = ulim; u1 >= 0; --u1) {
                double l = 0;
                if (u1 - m >= 0)
                    l = double(n) * lp[std::size_t(u1 - m)];
                const double r = double(m) * rp[std::size_t(u1)];
                out[std::size_t(u1)] = (l + r) / nplusm;
            }
        }
    }
    return memo[std::size_t(nn)];
}

std::int64_t chooseInt(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    k = std::min(k, n - k);
    std::int64_t r = 1;
    for (int i = 1; i <= k; ++i)
        r = r * (n - k + i) / i;
    return r;
}

// UDist.CDF with ties: the number of ways to draw sample 1 (n1 values) from the tied rank
// groups t with 2·U1 ≤ twoU, over all C(N, n1) ways. Group k of size t_k contributes
// r_k·(2·(values before it) + t_k) to 2·U1 + n1² when r_k of its members are in sample 1
// (twice its mid-rank, less one, per member) — the count Cheung and Klotz's recurrence
// builds, here by a plain sweep over the groups.
double uDistCdfTies(int n1, int n2, const std::vector<int> &t, int twoU)
{
    if (t.size() == 2) {
        // go-moremath's two-group base case, kept as it is: its upper bound divides with
        // truncation, so when 2U lies below the least reachable value it still counts the
        // arrangement r2 = 0 (and p can exceed 1). benchstat prints what it computes.
        double count = 0;
        const int r2High = (twoU - n1 * (t[0] - n1)) / (t[0] + t[1]);
        for (int r2 = std::max(0, n1 - t[0]); r2 <= r2High; ++r2)
            count += double(chooseInt(t[0], n1 - r2) * chooseInt(t[1], r2));
        return count / double(chooseInt(n1 + n2, n1));
    }
    // ways[j][s]: arrangements choosing j values so far with Σ r_k·a_k = s.
    const int n = n1 + n2;
    const std::size_t maxS = std::size_t(2 * n * n1 + 1);
    std::vector<std::vector<double>> ways(std::size_t(n1 + 1), std::vector<double>(maxS, 0.0));
    ways[0][0] = 1;
    int before = 0;
    for (const int tk : t) {
        const int a = 2 * before + tk;
        for (int j = n1; j >= 0; --j) { // downwards, so each group is used once
            for (std::size_t s = 0; s < maxS; ++s) {
                const double count = ways[std::size_t(j)][s];
                if (count == 0)
                    continue;
                for (int r = 1; r <= tk && j + r <= n1; ++r)
                    ways[std::size_t(j + r)][s + std::size_t(r * a)] += count * double(chooseInt(tk, r));
            }
        }
        before += tk;
    }
    double count = 0;
    for (std::size_t s = 0; s < maxS; ++s) {
        if (int(s) - n1 * n1 <= twoU)
            count += ways[std::size_t(n1)][s];
    }
    return count / double(chooseInt(n1 + n2, n1));
}

// UDist.CDF without ties.
double uDistCdf(int n1, int n2, double u)
{
    if (u < 0)
        return 0;
    if (u >= double(n1 * n2))
        return 1;
    int ui = int(std::floor(u));
    const bool flip = ui >= (n1 * n2 + 1) / 2;
    if (flip)
        ui = n1 * n2 - ui - 1;
    const auto pdfs = uDistP(n1, n2, ui);
    double p = 0;
    for (int i = 0; i <= ui; ++i)
        p += pdfs[std::size_t(i)];
    return flip ? 1 - p : p;
}

constexpr int kMannWhitneyExactLimit = 50;
constexpr int kMannWhitneyTiesExactLimit = 25;

// uTestMinP[n]: the smallest p the U test can give for two samples of n (benchmath's table).
constexpr double kUTestMinP[] = {0, 1, 0.3333333333333333, 0.1, 0.02857142857142857, 0.007936507936507936,
                                 0.0021645021645021645, 0.0005827505827505828, 0.0001554001554001554,
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
struct Scaler {
    int prec = 3;
    double factor = 1;
    std::string prefix;

    std::string format(double value) const
    {
        char buf[512];
        std::snprintf(buf, sizeof buf, "%.*f", prec, value / factor);
        return buf + prefix;
    }
};

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

int defaultBetter(const std::string &unit)
{
    if (unit == "ns/op" || unit == "sec/op" || unit == "B/op" || unit == "allocs/op")
        return -1;
    if (unit == "MB/s" || unit == "B/s")
        return 1;
    return 0;
}

std::size_t runeCount(std::string_view s)
{
    return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

std::string trimmed(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t\n\r\v\f");
    if (b == std::string_view::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\n\r\v\f");
    return std::string(s.substr(b, e - b + 1));
}

// Go's "%*s" pads with spaces to |width| runes: on the left, or on the right when width < 0.
std::string padTo(std::string_view s, long width)
{
    const long len = long(runeCount(s));
    if (width >= 0)
        return std::string(std::size_t(std::max(0L, width - len)), ' ') + std::string(s);
    return std::string(s) + std::string(std::size_t(std::max(0L, -width - len)), ' ');
}

// benchstat's internal/texttab: cells placed by row and column, multi-column spans,
// "shrink" columns that keep their minimum width, per-column left margins.
class TextTable {
public:
    enum class Align { Left, Center, Right };

    void row()
    {
        if (!m_cells.empty())
            ++m_row;
        m_col = 0;
    }
    void col(int c) { m_col = c; }
    int currentCol() const { return m_col; }
    void cell(std::string value, Align align = Align::Left, std::optional<std::string> margin = {})
    {
        span(1, std::move(value), align, std::move(margin));
    }
    void span(int cols, std::string value, Align align = Align::Left, std::optional<std::string> margin = {})
    {
        std::string leftMargin = (m_col == 0 || value.empty()) ? "" : " ";
        if (margin)
            leftMargin = *margin;
        m_cells.push_back({m_row, m_col, cols, std::move(value), std::move(leftMargin), align});
        m_col += cols;
        m_cols = std::max(m_cols, m_col);
    }
    void setShrink(int c)
    {
        if (int(m_shrink.size()) < c + 1)
            m_shrink.resize(std::size_t(c + 1), false);
        m_shrink[std::size_t(c)] = true;
    }

    std::string format() const
    {
        auto shrink = [&](int c) { return c < int(m_shrink.size()) && m_shrink[std::size_t(c)]; };
        std::vector<long> lmargin(std::size_t(m_cols), 0);
        for (const auto &c : m_cells)
            lmargin[std::size_t(c.col)] = std::max(lmargin[std::size_t(c.col)], long(runeCount(c.margin)));

        std::vector<long> ws(std::size_t(m_cols), 0);
        std::vector<Cell> cells = m_cells;
        std::stable_sort(cells.begin(), cells.end(), [](const Cell &a, const Cell &b) { return a.span < b.span; });
        for (const auto &c : cells) {
            long w = long(runeCount(c.value)) + lmargin[std::size_t(c.col)];
            if (c.span == 1) {
                ws[std::size_t(c.col)] = std::max(ws[std::size_t(c.col)], w);
                continue;
            }
            long tw = 0;
            for (int k = c.col; k < c.col + c.span; ++k)
                tw += ws[std::size_t(k)];
            if (tw >= w)
                continue;
            // Grow the stretchable columns to share what is missing, widest first.
            std::vector<int> spanCols;
            for (int k = c.col; k < c.col + c.span; ++k) {
                if (shrink(k))
                    w -= ws[std::size_t(k)];
                else
                    spanCols.push_back(k);
            }
            std::stable_sort(spanCols.begin(), spanCols.end(),
                             [&](int a, int b) { return ws[std::size_t(a)] > ws[std::size_t(b)]; });
            long remaining = long(spanCols.size());
            for (const int k : spanCols) {
                const long avg = (w + remaining - 1) / remaining;
                ws[std::size_t(k)] = std::max(ws[std::size_t(k)], avg);
                w -= ws[std::size_t(k)];
                --remaining;
            }
        }

        std::vector<long> offs(std::size_t(m_cols) + 1, 0);
        long off = 0;
        for (std::size_t i = 0; i < ws.size(); ++i) {
            offs[i] = off;
            off += ws[i];
        }
        offs[ws.size()] = off;

        std::stable_sort(cells.begin(), cells.end(),
                         [](const Cell &a, const Cell &b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
        std::string out;
        int row = 0;
        off = 0;
        for (const auto &c : cells) {
            if (trimmed(c.value).empty() && trimmed(c.margin).empty())
                continue;
            while (c.row > row) {
                out += '\n';
                ++row;
                off = 0;
            }
            const long spaces = offs[std::size_t(c.col)] - off;
            out += std::string(std::size_t(std::abs(spaces)), ' ');
            out += padTo(c.margin, lmargin[std::size_t(c.col)]);
            off += spaces + lmargin[std::size_t(c.col)];
            const long tw = offs[std::size_t(c.col + c.span)] - offs[std::size_t(c.col)] - lmargin[std::size_t(c.col)];
            std::string s;
            switch (c.align) {
            case Align::Left:
                s = c.value;
                break;
            case Align::Center: {
                const long l = (tw - long(runeCount(c.value))) / 2;
                s = std::string(std::size_t(std::abs(l)), ' ') + c.value;
                break;
            }
            case Align::Right:
                s = padTo(c.value, tw);
                break;
            }
            out += s;
            off += long(runeCount(s));
        }
        if (!cells.empty())
            out += '\n';
        return out;
    }

private:
    struct Cell {
        int row, col, span;
        std::string value, margin;
        Align align;
    };
    std::vector<Cell> m_cells;
    std::vector<bool> m_shrink;
    int m_cols = 0;
    int m_row = 0;
    int m_col = 0;
};

std::string superscript(int i)
{
    static const char *digits[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                   "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    if (i == 0)
        return digits[0];
    std::string out;
    for (; i > 0; i /= 10)
        out = digits[i % 10] + out;
    return out;
}

std::string ratioText(double ratio)
{
    return printf1("%+.2f%%", (ratio - 1) * 100);
}

std::string tableText(const BenchstatReport &report, const BenchstatTable &t)
{
    TextTable o;
    constexpr int kCenterCols = 3; // <center> <± CI> <footnotes>
    constexpr int kDeltaCols = 3;  // <delta> <(p=… n=…)> <footnotes>
    auto startCol = [](int exp) { return exp == 0 ? 1 : 1 + kCenterCols + (exp - 1) * (kCenterCols + kDeltaCols); };
    const int ncols = int(t.columns.size());
    const bool binary = isBinaryUnit(t.unit);

    std::vector<std::string> footnotes;
    auto warn = [&](std::initializer_list<const std::vector<std::string> *> lists) {
        std::string marks;
        for (const auto *list : lists) {
            for (const auto &msg : *list) {
                auto it = std::find(footnotes.begin(), footnotes.end(), msg);
                const int index = int(it - footnotes.begin());
                if (it == footnotes.end())
                    footnotes.push_back(msg);
                if (!marks.empty())
                    marks += ' ';
                marks += superscript(index + 1);
            }
        }
        o.cell(marks);
    };

    const int rEdge = startCol(ncols + 1);
    o.row();
    for (int i = 0; i < ncols; ++i) {
        const int l = startCol(i), r = startCol(i + 1);
        o.col(l);
        o.span(r - l, report.labels[std::size_t(t.columns[std::size_t(i)])], TextTable::Align::Center, " \u2502 ");
    }
    o.col(rEdge);
    o.cell("", TextTable::Align::Left, " \u2502");

    o.row();
    for (int i = 0; i < ncols; ++i) {
        const int l = startCol(i);
        o.col(l);
        o.span(kCenterCols, t.unit, TextTable::Align::Center, " \u2502 ");
        if (i > 0)
            o.span(kDeltaCols, "vs base", TextTable::Align::Left, "  ");
        for (int j = l + 1; j < o.currentCol(); ++j)
            o.setShrink(j);
    }
    o.col(rEdge);
    o.cell("", TextTable::Align::Left, " \u2502");

    const std::vector<std::string> none;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        o.row();
        o.cell(t.rows[r]);
        std::vector<double> centers;
        for (const auto &c : t.cells[r]) {
            if (c)
                centers.push_back(c->summary.center);
        }
        const Scaler scaler = commonScale(centers, binary);
        for (int exp = 0; exp < ncols; ++exp) {
            const auto &c = t.cells[r][std::size_t(exp)];
            if (!c)
                continue;
            o.col(startCol(exp));
            o.cell(scaler.format(c->summary.center), TextTable::Align::Right);
            // The ± sits in the margin so the ± signs line up and the range right-aligns.
            o.cell(c->summary.pctRange(), TextTable::Align::Right, " \u00b1 ");
            warn({&none, &c->summary.warnings});
            if (exp > 0 && c->comparison) {
                const auto &base = *t.cells[r][0];
                o.cell(c->comparison->delta(base.summary.center, c->summary.center), TextTable::Align::Right);
                o.cell("(" + c->comparison->text() + ")");
                warn({&c->comparison->warnings});
            }
        }
    }

    if (t.rows.size() > 1) {
        o.row();
        o.cell("geomean");
        for (int exp = 0; exp < ncols; ++exp) {
            const auto &g = t.geomean[std::size_t(exp)];
            if (g.center) {
                o.col(startCol(exp));
                o.cell(scaleValue(*g.center, binary), TextTable::Align::Right);
            }
            if (exp > 0) {
                o.col(startCol(exp) + kCenterCols);
                if (g.ratio)
                    o.cell(ratioText(*g.ratio), TextTable::Align::Right);
                else
                    o.cell("?");
            }
            o.col(startCol(exp + 1) - 1);
            warn({&g.warnings});
        }
    }

    std::string out = o.format();
    for (std::size_t i = 0; i < footnotes.size(); ++i)
        out += superscript(int(i) + 1) + ' ' + footnotes[i] + '\n';
    return out;
}

// Calls header(line) for the configuration lines before each table (only the keys that
// change, a blank line between tables) and body(table) for each table.
template <typename Header, typename Body>
void forEachTable(const BenchstatReport &report, Header header, Body body)
{
    const BenchstatTable *prev = nullptr;
    for (const auto &t : report.tables) {
        if (prev)
            header(std::string());
        for (std::size_t i = 0; i < t.config.size(); ++i) {
            if (!prev || prev->config[i].second != t.config[i].second)
                header(t.config[i].first + ": " + t.config[i].second);
        }
        prev = &t;
        body(t);
    }
}

// encoding/csv quoting.
std::string csvField(const std::string &field)
{
    bool quote = field == "\\.";
    for (const char c : field) {
        if (c == '\n' || c == '\r' || c == '"' || c == ',')
            quote = true;
    }
    if (!field.empty() && (field.front() == ' ' || field.front() == '\t' || field.front() == '\n'
                           || field.front() == '\v' || field.front() == '\f' || field.front() == '\r'))
        quote = true;
    if (!quote)
        return field;
    std::string out = "\"";
    for (const char c : field) {
        if (c == '"')
            out += "\"\"";
        else
            out += c;
    }
    return out + '"';
}

std::string csvLine(const std::vector<std::string> &row)
{
    std::string out;
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i > 0)
            out += ',';
        out += csvField(row[i]);
    }
    return out + '\n';
}

// Spreadsheet-style column name as benchstat computes it (column 0 is "A", 1 is "B").
std::string csvColumnName(std::size_t x)
{
    std::string name;
    for (; x > 0; x /= 26)
        name.insert(name.begin(), char('A' + x % 26));
    return name.empty() ? "A" : name;
}

std::string jsonString(std::string_view s)
{
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += ch;
            }
        }
    }
    return out + '"';
}

std::string jsonNumber(double v)
{
    return std::isfinite(v) ? formatGoFloat(v) : "null";
}

std::string jsonNumber(const std::optional<double> &v)
{
    return v ? jsonNumber(*v) : "null";
}

std::string jsonCell(const std::optional<BenchstatCell> &c)
{
    if (!c)
        return "null";
    return "{\"center\": " + jsonNumber(c->summary.center) + ", \"ci_low\": " + jsonNumber(c->summary.lo)
           + ", \"ci_high\": " + jsonNumber(c->summary.hi) + ", \"n\": " + std::to_string(c->values.size()) + "}";
}

std::string jsonGeomeanCell(const BenchstatGeomean &g)
{
    return "{\"center\": " + jsonNumber(g.center) + ", \"ci_low\": null, \"ci_high\": null, \"n\": "
           + std::to_string(g.count) + "}";
}

std::optional<double> deltaPct(const BenchComparison &c, double oldCenter, double newCenter)
{
    if (!c.significant())
        return std::nullopt;
    if (oldCenter == newCenter)
        return 0.0;
    if (oldCenter == 0)
        return std::nullopt;
    return (newCenter / oldCenter - 1.0) * 100.0;
}

std::string describeTableRow(const BenchstatReport &report, const BenchstatTable &t, int column, const std::string &name)
{
    return report.labels[std::size_t(t.columns[std::size_t(column)])] + " " + name + " (" + t.unit + ")";
}

} // namespace

double quantile(std::span<const double> xs, double q)
{
    if (xs.empty())
        return std::numeric_limits<double>::quiet_NaN();
    if (q <= 0)
        return xs.front();
    if (q >= 1)
        return xs.back();
    const double n = 1 / 3.0 + q * (double(xs.size()) + 1 / 3.0);
    double kf = 0;
    const double frac = std::modf(n, &kf);
    const auto k = std::int64_t(kf);
    if (k <= 0)
        return xs.front();
    if (k >= std::int64_t(xs.size()))
        return xs.back();
    return xs[std::size_t(k - 1)] + frac * (xs[std::size_t(k)] - xs[std::size_t(k - 1)]);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return quantile(values, 0.5);
}

double geomean(std::span<const double> values)
{
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    double m = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] <= 0)
            return std::numeric_limits<double>::quiet_NaN();
        m += (std::log(values[i]) - m) / double(i + 1);
    }
    return std::exp(m);
}

OrderStatisticCI quantileCI(int n, double q, double confidence)
{
    OrderStatisticCI res;
    if (confidence >= 1) {
        res.confidence = 1;
        res.loOrder = 0;
        res.hiOrder = n + 1;
        return res;
    }
    // The number of sample values below the population quantile is Binomial(n, q):
    // PMF(k) is the chance that the quantile lies between order statistics k and k+1.
    int l = 0, r = 0;
    if (n <= 30) {
        // From the mode outwards, always taking the likelier side (the left on a tie),
        // until the confidence is reached.
        int x = int(std::ceil(double(n + 1) * q) - 1);
        if (q == 0)
            x = 0;
        double accum = binomialPmf(n, q, x);
        l = x;
        r = x + 1;
        double lp = binomialPmf(n, q, l - 1), rp = binomialPmf(n, q, r);
        res.ambiguous = rp == accum;
        while (accum < confidence && (lp > 0 || rp > 0)) {
            res.ambiguous = lp == rp;
            if (lp >= rp) {
                accum += lp;
                --l;
                lp = binomialPmf(n, q, l - 1);
            } else {
                accum += rp;
                ++r;
                rp = binomialPmf(n, q, r);
            }
        }
        res.confidence = accum;
    } else {
        const double mu = double(n) * q;
        const double sigma = std::sqrt(double(n) * q * (1 - q));
        const double alpha = (1 - confidence) / 2;
        const double l1 = normalInvCdf(alpha, mu, sigma);
        const double r1 = 2 * mu - l1;
        // Band k of the binomial is [k-0.5, k+0.5] of the normal: round out to those edges.
        l = int(std::floor(std::floor(l1 - 0.5) + 0.5)) + 1;
        r = int(std::floor(std::ceil(r1 - 0.5) + 0.5)) + 1;
        auto cdf = [&](int lo, int hi) { return normalCdf(double(hi) - 0.5, mu, sigma) - normalCdf(double(lo) - 0.5, mu, sigma); };
        res.confidence = cdf(l, r);
        const int rBiased = r - 1;
        if (const double biased = cdf(l, rBiased); biased >= confidence && biased < res.confidence) {
            res.confidence = biased;
            res.ambiguous = true;
            r = rBiased;
        }
        if (l <= 0 && r >= n + 1) {
            res.confidence = 1;
            res.ambiguous = false;
        }
    }
    res.loOrder = std::max(l, 0);
    res.hiOrder = std::min(r, n + 1);
    return res;
}

Result<MannWhitneyResult> mannWhitneyUTest(std::span<const double> x1In, std::span<const double> x2In)
{
    const int n1 = int(x1In.size()), n2 = int(x2In.size());
    if (n1 == 0 || n2 == 0)
        return Error(ErrorKind::InvalidInput, "sample is too small");
    std::vector<double> x1(x1In.begin(), x1In.end()), x2(x2In.begin(), x2In.end());
    std::sort(x1.begin(), x1.end());
    std::sort(x2.begin(), x2.end());

    // Merge, remembering which sample each value came from.
    std::vector<double> merged;
    std::vector<int> labels;
    merged.reserve(std::size_t(n1 + n2));
    labels.reserve(std::size_t(n1 + n2));
    std::size_t i = 0, j = 0;
    while (i < x1.size() && j < x2.size()) {
        if (x1[i] < x2[j]) {
            merged.push_back(x1[i++]);
            labels.push_back(1);
        } else {
            merged.push_back(x2[j++]);
            labels.push_back(2);
        }
    }
    for (; i < x1.size(); ++i) {
        merged.push_back(x1[i]);
        labels.push_back(1);
    }
    for (; j < x2.size(); ++j) {
        merged.push_back(x2[j]);
        labels.push_back(2);
    }

    // Rank sum of sample 1 with tied values sharing their mean rank; t holds the tie groups.
    double r1 = 0;
    std::vector<int> t;
    bool hasTies = false;
    for (std::size_t k = 0; k < merged.size();) {
        const std::size_t rank1 = k + 1;
        const double v1 = merged[k];
        int nx1 = 0;
        for (; k < merged.size() && merged[k] == v1; ++k) {
            if (labels[k] == 1)
                ++nx1;
        }
        if (nx1 != 0)
            r1 += double(k + rank1) / 2 * nx1;
        t.push_back(int(k - rank1 + 1));
        if (k > rank1)
            hasTies = true;
    }
    const double u1 = r1 - double(n1 * (n1 + 1)) / 2;
    const double u2 = double(n1 * n2) - u1;
    const double usmall = std::min(u1, u2);

    double p = 0;
    if ((!hasTies && n1 <= kMannWhitneyExactLimit && n2 <= kMannWhitneyExactLimit)
        || (hasTies && n1 <= kMannWhitneyTiesExactLimit && n2 <= kMannWhitneyTiesExactLimit)) {
        if (t.size() == 1)
            return Error(ErrorKind::InvalidInput, "all samples are equal");
        if (u1 == u2) {
            // The distribution is symmetric about U; doubling CDF(U) would count its
            // mass twice.
            p = 1;
        } else if (hasTies) {
            p = usmall >= double(n1 * n2) ? 2 : uDistCdfTies(n1, n2, t, int(2 * usmall)) * 2;
        } else {
            p = uDistCdf(n1, n2, usmall) * 2;
        }
    } else {
        double tie = 0;
        for (const int k : t)
            tie += double(k * k * k - k);
        const double nn = double(n1 + n2);
        const double muU = double(n1 * n2) / 2;
        const double sigmaU = std::sqrt(double(n1 * n2) * ((nn + 1) - tie / (nn * (nn - 1))) / 12);
        if (sigmaU == 0)
            return Error(ErrorKind::InvalidInput, "all samples are equal");
        double numer = u1 - muU;
        numer -= sign(numer) * 0.5; // continuity correction
        const double z = numer / sigmaU;
        p = 2 * std::min(normalCdf(z, 0, 1), 1 - normalCdf(z, 0, 1));
    }
    return MannWhitneyResult{usmall, p};
}

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

BenchstatReport benchstat(const std::vector<BenchstatInput> &inputs, const BenchstatOptions &options)
{
    BenchstatReport report;
    report.alpha = options.alpha;
    report.confidence = options.confidence;
    for (const auto &in : inputs)
        report.labels.push_back(in.label);

    // Metadata by tidied unit, as benchfmt keys it.
    std::map<std::string, std::map<std::string, std::string>> metadata;
    for (const auto &[unit, meta] : options.units) {
        auto &m = metadata[tidyUnit(unit).first];
        for (const auto &[k, v] : meta)
            m.emplace(k, v);
    }
    auto metaValue = [&](const std::string &unit, const std::string &key) -> const std::string * {
        const auto u = metadata.find(unit);
        if (u == metadata.end())
            return nullptr;
        const auto k = u->second.find(key);
        return k == u->second.end() ? nullptr : &k->second;
    };

    // benchproc orders every key by first observation: configuration keys, and within each
    // key its values, units and benchmark names.
    std::vector<std::string> keys;
    for (const auto &in : inputs) {
        for (const auto &r : in.results) {
            for (const auto &kv : r.config) {
                if (std::find(keys.begin(), keys.end(), kv.first) == keys.end())
                    keys.push_back(kv.first);
            }
        }
    }
    std::vector<std::map<std::string, int>> valueOrder(keys.size());
    std::map<std::string, int> unitOrder, nameOrder;
    auto ordinal = [](std::map<std::string, int> &order, const std::string &v) {
        return order.emplace(v, int(order.size())).first->second;
    };

    struct Builder {
        std::vector<std::string> unitAndConfig; // unit, then config values
        std::map<int, std::string> rows;        // name ordinal → name
        std::map<std::pair<int, int>, std::vector<double>> cells; // (name ordinal, input) → values
        std::vector<bool> columns;
    };
    std::map<std::vector<int>, Builder> builders; // key: config value ordinals, unit ordinal

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

    for (auto &[tableKey, b] : builders) {
        BenchstatTable t;
        t.unit = b.unitAndConfig[0];
        for (std::size_t k = 0; k < keys.size(); ++k)
            t.config.emplace_back(keys[k], b.unitAndConfig[k + 1]);
        const std::string *assume = metaValue(t.unit, "assume");
        t.exact = assume && *assume == "exact";
        if (const std::string *better = metaValue(t.unit, "better"))
            t.better = *better == "higher" ? 1 : (*better == "lower" ? -1 : 0);
        else
            t.better = defaultBetter(t.unit);
        for (std::size_t col = 0; col < inputs.size(); ++col) {
            if (b.columns[col])
                t.columns.push_back(int(col));
        }
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
            for (std::size_t c = 1; c < cells.size(); ++c) {
                if (cells[c] && cells[0])
                    cells[c]->comparison = compareSamples(cells[0]->values, cells[c]->values, options.alpha, t.exact);
            }
            t.cells.push_back(std::move(cells));
        }

        // Geomean of each column's centers, and of the per-benchmark ratios to the base
        // (not the ratio of geomeans, which would compare different benchmark sets).
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
            t.geomean.push_back(std::move(g));
        }
        report.tables.push_back(std::move(t));
    }
    return report;
}

std::string formatBenchstatText(const BenchstatReport &report)
{
    std::string out;
    forEachTable(report, [&](const std::string &line) { out += line + '\n'; },
                 [&](const BenchstatTable &t) { out += tableText(report, t); });
    return out;
}

std::string formatBenchstatCsv(const BenchstatReport &report, std::vector<std::string> *warnings)
{
    std::string out;
    std::size_t rowNumber = 1;
    forEachTable(
        report,
        [&](const std::string &line) {
            out += csvLine({line});
            ++rowNumber;
        },
        [&](const BenchstatTable &t) {
            constexpr std::size_t kCenterCols = 2, kDeltaCols = 2;
            auto startCol = [](std::size_t exp) {
                return exp == 0 ? std::size_t(1) : 1 + kCenterCols + (exp - 1) * (kCenterCols + kDeltaCols);
            };
            std::vector<std::string> row;
            std::size_t rowCount = 0;
            auto clearTo = [&](std::size_t col) {
                while (row.size() < col)
                    row.emplace_back();
            };
            auto emit = [&] {
                out += csvLine(row);
                row.clear();
                ++rowCount;
            };
            auto warn = [&](const std::vector<std::string> &msgs) {
                if (!warnings)
                    return;
                for (const auto &msg : msgs)
                    warnings->push_back(csvColumnName(row.size()) + std::to_string(rowNumber + rowCount) + ": " + msg);
            };

            for (std::size_t exp = 0; exp < t.columns.size(); ++exp) {
                clearTo(startCol(exp));
                row.push_back(report.labels[std::size_t(t.columns[exp])]);
            }
            emit();
            for (std::size_t exp = 0; exp < t.columns.size(); ++exp) {
                clearTo(startCol(exp));
                row.push_back(t.unit);
                row.push_back("CI");
                if (exp > 0) {
                    row.push_back("vs base");
                    row.push_back("P");
                }
            }
            emit();
            for (std::size_t r = 0; r < t.rows.size(); ++r) {
                row.push_back(t.rows[r]);
                for (std::size_t exp = 0; exp < t.columns.size(); ++exp) {
                    const auto &c = t.cells[r][exp];
                    if (!c)
                        continue;
                    clearTo(startCol(exp));
                    warn(c->summary.warnings);
                    row.push_back(formatGoFloat(c->summary.center));
                    row.push_back(c->summary.pctRange());
                    if (exp > 0 && c->comparison) {
                        warn(c->comparison->warnings);
                        row.push_back(c->comparison->delta(t.cells[r][0]->summary.center, c->summary.center));
                        row.push_back(c->comparison->text());
                    }
                }
                emit();
            }
            row.push_back("geomean");
            for (std::size_t exp = 0; exp < t.columns.size(); ++exp) {
                const auto &g = t.geomean[exp];
                clearTo(startCol(exp));
                warn(g.warnings);
                if (g.center)
                    row.push_back(formatGoFloat(*g.center));
                if (exp > 0) {
                    clearTo(startCol(exp) + kCenterCols);
                    row.push_back(g.ratio ? ratioText(*g.ratio) : "?");
                }
            }
            emit();
            rowNumber += rowCount;
        });
    return out;
}

std::string formatBenchstatJson(const BenchstatReport &report)
{
    std::string out = "{\n  \"alpha\": " + jsonNumber(report.alpha) + ",\n  \"confidence\": " + jsonNumber(report.confidence)
                      + ",\n  \"inputs\": [";
    for (std::size_t i = 0; i < report.labels.size(); ++i)
        out += (i ? ", " : "") + jsonString(report.labels[i]);
    out += "],\n  \"rows\": [";
    bool first = true;
    auto beginRow = [&](const BenchstatTable &t, const std::string &name, std::size_t column) {
        out += first ? "\n    {" : ",\n    {";
        first = false;
        out += "\"unit\": " + jsonString(t.unit) + ", \"name\": " + jsonString(name) + ", \"config\": {";
        bool firstKey = true;
        for (const auto &[k, v] : t.config) {
            if (v.empty())
                continue;
            out += (firstKey ? "" : ", ") + jsonString(k) + ": " + jsonString(v);
            firstKey = false;
        }
        out += "}, \"better\": ";
        out += t.better > 0 ? "\"higher\"" : (t.better < 0 ? "\"lower\"" : "null");
        out += ", \"base\": " + jsonString(report.labels[std::size_t(t.columns[0])]);
        out += ", \"input\": " + (column > 0 ? jsonString(report.labels[std::size_t(t.columns[column])]) : "null");
    };
    for (const auto &t : report.tables) {
        // One row per benchmark and compared input; a table of one input lists its summaries.
        const std::size_t lastColumn = std::max<std::size_t>(t.columns.size(), 2);
        for (std::size_t column = 1; column < lastColumn; ++column) {
            const bool single = t.columns.size() == 1;
            for (std::size_t r = 0; r < t.rows.size(); ++r) {
                const auto &base = t.cells[r][0];
                const std::optional<BenchstatCell> none;
                const auto &cell = single ? none : t.cells[r][column];
                if (!base && !cell)
                    continue;
                beginRow(t, t.rows[r], single ? 0 : column);
                out += ", \"old\": " + jsonCell(base) + ", \"new\": " + jsonCell(cell);
                std::optional<double> delta, p;
                std::string deltaText;
                if (cell && cell->comparison) {
                    delta = deltaPct(*cell->comparison, base->summary.center, cell->summary.center);
                    deltaText = cell->comparison->delta(base->summary.center, cell->summary.center);
                    if (!t.exact)
                        p = cell->comparison->p;
                }
                out += ", \"delta_pct\": " + jsonNumber(delta);
                out += ", \"delta\": " + (deltaText.empty() ? std::string("null") : jsonString(deltaText));
                out += ", \"p\": " + jsonNumber(p) + "}";
            }
            beginRow(t, "geomean", single ? 0 : column);
            out += ", \"old\": " + jsonGeomeanCell(t.geomean[0]);
            out += ", \"new\": " + (single ? std::string("null") : jsonGeomeanCell(t.geomean[column]));
            std::optional<double> delta;
            if (!single && t.geomean[column].ratio)
                delta = (*t.geomean[column].ratio - 1) * 100;
            out += ", \"delta_pct\": " + jsonNumber(delta) + "}";
        }
    }
    out += first ? "],\n  \"warnings\": [" : "\n  ],\n  \"warnings\": [";
    const auto warnings = benchstatWarnings(report);
    for (std::size_t i = 0; i < warnings.size(); ++i)
        out += std::string(i ? "," : "") + "\n    " + jsonString(warnings[i]);
    out += warnings.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return out;
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
                const std::string where = describeTableRow(report, t, int(c), t.rows[r]) + " n="
                                          + std::to_string(cell->values.size());
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

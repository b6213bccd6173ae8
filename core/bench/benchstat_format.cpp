// benchstat's report as text tables (byte for byte like benchstat's), CSV and JSON.
#include "core/bench/benchstat.h"
#include "core/bench/benchstat_detail.h"
#include "core/io/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace strata {

using namespace bench_detail;

namespace {

std::size_t runeCount(std::string_view s)
{
    return std::size_t(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
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
            m_shrink.resize(std::size_t(c) + 1, false);
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
            const long tw =
                offs[std::size_t(c.col) + std::size_t(c.span)] - offs[std::size_t(c.col)] - lmargin[std::size_t(c.col)];
            std::string s;
            switch (c.align) {
            case Align::Left: s = c.value; break;
            case Align::Center: {
                const long l = (tw - long(runeCount(c.value))) / 2;
                s = std::string(std::size_t(std::abs(l)), ' ') + c.value;
                break;
            }
            case Align::Right: s = padTo(c.value, tw); break;
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
    if (!field.empty()
        && (field.front() == ' ' || field.front() == '\t' || field.front() == '\n' || field.front() == '\v'
            || field.front() == '\f' || field.front() == '\r'))
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
    return "{\"center\": " + jsonNumber(g.center)
        + ", \"ci_low\": null, \"ci_high\": null, \"n\": " + std::to_string(g.count) + "}";
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

} // namespace

std::string formatBenchstatText(const BenchstatReport &report)
{
    std::string out;
    forEachTable(
        report, [&](const std::string &line) { out += line + '\n'; },
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
    std::string out = "{\n  \"alpha\": " + jsonNumber(report.alpha)
        + ",\n  \"confidence\": " + jsonNumber(report.confidence) + ",\n  \"inputs\": [";
    for (std::size_t i = 0; i < report.labels.size(); ++i)
        out += (i ? ", " : "") + json::quoted(report.labels[i]);
    out += "],\n  \"rows\": [";
    bool first = true;
    auto beginRow = [&](const BenchstatTable &t, const std::string &name, std::size_t column) {
        out += first ? "\n    {" : ",\n    {";
        first = false;
        out += "\"unit\": " + json::quoted(t.unit) + ", \"name\": " + json::quoted(name) + ", \"config\": {";
        bool firstKey = true;
        for (const auto &[k, v] : t.config) {
            if (v.empty())
                continue;
            out += (firstKey ? "" : ", ") + json::quoted(k) + ": " + json::quoted(v);
            firstKey = false;
        }
        out += "}, \"better\": ";
        out += t.better > 0 ? "\"higher\"" : (t.better < 0 ? "\"lower\"" : "null");
        out += ", \"base\": " + json::quoted(report.labels[std::size_t(t.columns[0])]);
        out += ", \"input\": " + (column > 0 ? json::quoted(report.labels[std::size_t(t.columns[column])]) : "null");
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
                out += ", \"delta\": " + (deltaText.empty() ? std::string("null") : json::quoted(deltaText));
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
        out += std::string(i ? "," : "") + "\n    " + json::quoted(warnings[i]);
    out += warnings.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return out;
}

} // namespace strata

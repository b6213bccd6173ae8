#include "ui/bench/bench_charts.h"

#include "core/io/size_text.h"

#include "core/bench/benchstat.h"

#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QCategoryAxis>
#include <QChart>
#include <QCursor>
#include <QFile>
#include <QFileInfo>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QRegularExpression>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>

namespace strata {

namespace {

std::optional<std::uint64_t> parseSizeLabel(const QString &text)
{
    return parseSize(text.toStdString());
}

double medianOf(std::vector<double> v)
{
    return v.empty() ? 0.0 : median(std::move(v));
}

// Series in a stable order: per set, per operation as first seen.
struct SeriesKey {
    const BenchSet *set;
    QString op;
};

std::vector<SeriesKey> seriesOf(const std::vector<BenchSet> &sets, bool sizedOnly)
{
    std::vector<SeriesKey> out;
    for (const auto &set : sets) {
        QStringList ops;
        for (const auto &r : set.results) {
            const BenchKey k = benchKey(r);
            if ((!sizedOnly || k.size > 0) && !ops.contains(k.op))
                ops << k.op;
        }
        for (const auto &op : ops)
            out.push_back({&set, op});
    }
    return out;
}

QBarCategoryAxis *sizeAxis(const std::vector<BenchKey> &sizes)
{
    auto *axis = new QBarCategoryAxis;
    for (const auto &k : sizes)
        axis->append(k.sizeLabel);
    axis->setTitleText(QObject::tr("Payload size"));
    return axis;
}

// Only the sized categories, one per size.
std::vector<BenchKey> sizesOf(const std::vector<BenchSet> &sets)
{
    std::vector<BenchKey> out;
    for (const auto &k : benchCategories(sets))
        if (k.size > 0 && std::none_of(out.begin(), out.end(), [&](const BenchKey &o) { return o.size == k.size; }))
            out.push_back(k);
    return out;
}

void tooltips(QBarSet *set, const QString &unit)
{
    QObject::connect(set, &QBarSet::hovered, set, [set, unit](bool status, int index) {
        if (!status) {
            QToolTip::hideText();
            return;
        }
        const QVariantList exact = set->property("exact").toList();
        const double v = index < exact.size() ? exact[index].toDouble() : set->at(index);
        QToolTip::showText(QCursor::pos(), QStringLiteral("%1\n%2 %3").arg(set->label()).arg(v, 0, 'g', 6).arg(unit));
    });
}

QChart *newChart(const QString &title)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    return chart;
}

// A click on a legend entry hides or shows its series (or, in grouped bars, its bar set).
void toggleByLegend(QChart *chart)
{
    for (QLegendMarker *marker : chart->legend()->markers()) {
        QObject::connect(marker, &QLegendMarker::clicked, marker, [marker] {
            if (auto *bar = qobject_cast<QBarLegendMarker *>(marker)) {
                QBarSet *set = bar->barset();
                const bool hidden = set->property("hidden").toBool();
                if (!hidden)
                    set->setProperty("shownColor", set->color());
                set->setColor(hidden ? set->property("shownColor").value<QColor>() : QColor(Qt::transparent));
                set->setBorderColor(hidden ? set->property("shownColor").value<QColor>().darker()
                                           : QColor(Qt::transparent));
                set->setProperty("hidden", !hidden);
                marker->setLabelBrush(hidden ? QBrush(Qt::black) : QBrush(Qt::gray));
            } else {
                marker->series()->setVisible(!marker->series()->isVisible());
                marker->setVisible(true); // the entry stays, to show it again
                marker->setLabelBrush(marker->series()->isVisible() ? QBrush(Qt::black) : QBrush(Qt::gray));
            }
        });
    }
}

// Go's MB/s (10^6 bytes) in the binary unit that suits the largest value.
std::pair<double, QString> rateUnit(double largestMBps)
{
    const double bytes = largestMBps * 1e6;
    if (bytes >= 10.0 * (1u << 30))
        return {1e6 / double(1u << 30), QStringLiteral("GiB/s")};
    if (bytes >= 10.0 * (1u << 20))
        return {1e6 / double(1u << 20), QStringLiteral("MiB/s")};
    return {1e6 / 1024.0, QStringLiteral("KiB/s")};
}

} // namespace

LoadedBenchSet loadBenchFile(const QString &path)
{
    LoadedBenchSet out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        out.error = QObject::tr("cannot open %1: %2").arg(path, file.errorString());
        return out;
    }
    std::vector<std::string> warnings;
    const QByteArray text = file.readAll();
    auto parsed = parseGoBench(std::string_view(text.constData(), std::size_t(text.size())), &warnings);
    if (!parsed) {
        out.error = QObject::tr("cannot read %1: %2").arg(path, QString::fromStdString(parsed.error().message()));
        return out;
    }
    if (parsed->empty()) {
        out.error =
            QObject::tr("%1 holds no Go benchmark results (lines like \"BenchmarkRead/4KiB-8  1000  1234 ns/op\")")
                .arg(path);
        return out;
    }
    for (const auto &w : warnings)
        out.warnings << QString::fromStdString(w);
    // A run from many hosts (bench --hosts) holds all hosts' lines (host: all) and each
    // host's: the charts show all hosts together, not a pool of both.
    const auto hostOf = [](const BenchResult &r) {
        const std::string *host = r.configValue("host");
        return host ? *host : std::string();
    };
    if (std::any_of(parsed->begin(), parsed->end(), [&](const BenchResult &r) { return hostOf(r) == "all"; }))
        std::erase_if(*parsed, [&](const BenchResult &r) { return hostOf(r) != "all"; });
    out.set = BenchSet{QFileInfo(path).fileName(), std::move(*parsed),
                       flagsIn(std::string_view(text.constData(), std::size_t(text.size())))};
    return out;
}

BenchKey benchKey(const BenchResult &result)
{
    const QStringList parts = QString::fromStdString(result.name).split(QLatin1Char('/'));
    BenchKey key;
    QStringList op;
    for (const auto &part : parts) {
        if (key.size == 0 && !op.isEmpty())
            if (auto size = parseSizeLabel(part)) {
                key.size = *size;
                key.sizeLabel = part;
                continue;
            }
        op << part;
    }
    key.op = op.join(QLatin1Char(' '));
    return key;
}

std::vector<BenchKey> benchCategories(const std::vector<BenchSet> &sets)
{
    std::vector<BenchKey> out;
    for (const auto &set : sets)
        for (const auto &r : set.results) {
            BenchKey k = benchKey(r);
            if (std::none_of(out.begin(), out.end(),
                             [&](const BenchKey &o) { return o.op == k.op && o.size == k.size; }))
                out.push_back(std::move(k));
        }
    std::stable_sort(out.begin(), out.end(), [](const BenchKey &a, const BenchKey &b) { return a.size < b.size; });
    return out;
}

std::vector<double> samplesOf(const BenchSet &set, const QString &op, std::uint64_t size, const char *unit)
{
    std::vector<double> out;
    for (const auto &r : set.results) {
        const BenchKey k = benchKey(r);
        if (k.op == op && k.size == size)
            if (const double *v = r.value(unit))
                out.push_back(*v);
    }
    std::sort(out.begin(), out.end());
    return out;
}

QChart *throughputChart(const std::vector<BenchSet> &sets)
{
    auto *chart = newChart(QObject::tr("Throughput (median of the runs)"));
    const auto sizes = sizesOf(sets);
    double largest = 0;
    for (const auto &[set, op] : seriesOf(sets, true))
        for (const auto &k : sizes)
            largest = std::max(largest, medianOf(samplesOf(*set, op, k.size, "MB/s")));
    const auto [scale, unit] = rateUnit(largest);
    // Sizes more than 10x apart move at rates decades apart: then a logarithmic axis, so
    // the small sizes' bars are not slivers.
    std::uint64_t least = 0, most = 0;
    for (const auto &k : sizes)
        if (k.size > 0) {
            least = least ? std::min(least, k.size) : k.size;
            most = std::max(most, k.size);
        }
    const bool logarithmic = least > 0 && most > 10 * least;
    double lowest = 0;
    for (const auto &[set, op] : seriesOf(sets, true))
        for (const auto &k : sizes)
            if (const double v = medianOf(samplesOf(*set, op, k.size, "MB/s")) * scale; v > 0)
                lowest = lowest > 0 ? std::min(lowest, v) : v;
    const double floorValue = lowest > 0 ? std::pow(10.0, std::floor(std::log10(lowest))) : 0.1;
    auto *series = new QBarSeries;
    for (const auto &[set, op] : seriesOf(sets, true)) {
        auto *bars = new QBarSet(set->label + QStringLiteral(" · ") + op);
        QVariantList exact;
        for (const auto &k : sizes) {
            const double v = medianOf(samplesOf(*set, op, k.size, "MB/s")) * scale;
            *bars << (logarithmic ? std::max(v, floorValue) : v);
            exact << v;
        }
        bars->setProperty("exact", exact);
        tooltips(bars, unit);
        series->append(bars);
    }
    chart->addSeries(series);
    auto *x = sizeAxis(sizes);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    if (logarithmic) {
        auto *y = new QLogValueAxis;
        y->setBase(10);
        y->setTitleText(unit + QObject::tr(" (logarithmic)"));
        y->setLabelFormat(QStringLiteral("%g"));
        y->setRange(floorValue, std::pow(10.0, std::ceil(std::log10(largest * scale * 1.5))));
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(y);
    } else {
        auto *y = new QValueAxis;
        y->setTitleText(unit);
        y->setLabelFormat(QStringLiteral("%.0f"));
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(y);
        y->applyNiceNumbers();
    }
    toggleByLegend(chart);
    return chart;
}

namespace {

constexpr const char *kPercentileUnits[] = {"p50-ns", "p90-ns", "p99-ns", "p99.9-ns", "max-ns"};

bool hasPercentiles(const std::vector<BenchSet> &sets)
{
    for (const auto &set : sets)
        for (const auto &r : set.results)
            if (r.value("p50-ns"))
                return true;
    return false;
}

// A curve per set × operation × size through p50, p90, p99, p99.9 and max (the median of
// the runs' values each), on a logarithmic time axis: where the tails part is plain.
QChart *percentileChart(const std::vector<BenchSet> &sets)
{
    auto *chart = newChart(QObject::tr("Latency percentiles (median of the runs)"));
    const auto sizes = sizesOf(sets);
    double largest = 0, smallest = 0;
    for (const auto &[set, op] : seriesOf(sets, false))
        for (const auto &k : sizes)
            for (const char *unit : kPercentileUnits)
                if (const double v = medianOf(samplesOf(*set, op, k.size, unit)); v > 0) {
                    largest = std::max(largest, v);
                    smallest = smallest > 0 ? std::min(smallest, v) : v;
                }
    const std::pair<double, QString> unit = largest < 1e4 ? std::pair(1.0, QStringLiteral("ns"))
        : largest < 1e7                                   ? std::pair(1e3, QStringLiteral("µs"))
        : largest < 1e10                                  ? std::pair(1e6, QStringLiteral("ms"))
                                                          : std::pair(1e9, QStringLiteral("s"));
    auto *x = new QCategoryAxis;
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const char *names[] = {"p50", "p90", "p99", "p99.9", "max"};
    for (int i = 0; i < 5; ++i)
        x->append(QString::fromLatin1(names[i]), i);
    x->setRange(-0.2, 4.2);
    x->setTitleText(QObject::tr("percentile of the operations"));
    auto *y = new QLogValueAxis;
    y->setBase(10);
    y->setLabelFormat(QStringLiteral("%g"));
    y->setTitleText(QObject::tr("time per operation (%1, logarithmic)").arg(unit.second));
    const double lo = smallest > 0 ? smallest / unit.first : 1, hi = largest > 0 ? largest / unit.first : 10;
    y->setRange(std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi * 1.1))));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (const auto &[set, op] : seriesOf(sets, false))
        for (const auto &k : sizes) {
            auto *line = new QLineSeries;
            for (int i = 0; i < 5; ++i)
                if (const double v = medianOf(samplesOf(*set, op, k.size, kPercentileUnits[i])); v > 0)
                    line->append(i, v / unit.first);
            if (line->count() == 0) {
                delete line;
                continue;
            }
            line->setName(set->label + QStringLiteral(" · ") + op
                          + (k.size > 0 ? QStringLiteral(" ") + k.sizeLabel : QString()));
            line->setPointsVisible(true);
            QObject::connect(line, &QLineSeries::hovered, line, [line, unit, names](const QPointF &p, bool state) {
                if (!state) {
                    QToolTip::hideText();
                    return;
                }
                const int i = std::clamp(int(std::lround(p.x())), 0, 4);
                QToolTip::showText(QCursor::pos(),
                                   QObject::tr("%1\n%2: %3 %4")
                                       .arg(line->name(), QString::fromLatin1(names[i]))
                                       .arg(p.y(), 0, 'g', 4)
                                       .arg(unit.second));
            });
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
        }
    toggleByLegend(chart);
    return chart;
}

} // namespace

QChart *latencyChart(const std::vector<BenchSet> &sets)
{
    if (hasPercentiles(sets))
        return percentileChart(sets);
    // Go benchmark files without percentiles: the spread of the runs' ns/op.

    auto *chart = newChart(QObject::tr("Latency per operation (spread of the runs)"));
    const auto sizes = sizesOf(sets);
    // One time unit for the whole chart, from the largest value.
    double largest = 0;
    for (const auto &[set, op] : seriesOf(sets, true))
        for (const auto &k : sizes)
            for (double v : samplesOf(*set, op, k.size, "ns/op"))
                largest = std::max(largest, v);
    const std::pair<double, QString> unit = largest < 1e4 ? std::pair(1.0, QStringLiteral("ns"))
        : largest < 1e7                                   ? std::pair(1e3, QStringLiteral("µs"))
        : largest < 1e10                                  ? std::pair(1e6, QStringLiteral("ms"))
                                                          : std::pair(1e9, QStringLiteral("s"));
    auto *x = sizeAxis(sizes);
    auto *y = new QValueAxis;
    y->setTitleText(QObject::tr("time per operation (%1)").arg(unit.second));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double top = 0;
    for (const auto &[set, op] : seriesOf(sets, true)) {
        auto *series = new QBoxPlotSeries;
        series->setName(set->label + QStringLiteral(" · ") + op);
        for (const auto &k : sizes) {
            std::vector<double> v = samplesOf(*set, op, k.size, "ns/op");
            for (double &x1 : v)
                x1 /= unit.first;
            auto *box = new QBoxSet(k.sizeLabel);
            if (!v.empty()) {
                box->setValue(QBoxSet::LowerExtreme, v.front());
                box->setValue(QBoxSet::LowerQuartile, quantile(v, 0.25));
                box->setValue(QBoxSet::Median, quantile(v, 0.5));
                box->setValue(QBoxSet::UpperQuartile, quantile(v, 0.75));
                box->setValue(QBoxSet::UpperExtreme, v.back());
                top = std::max(top, v.back());
            }
            series->append(box);
        }
        QObject::connect(series, &QBoxPlotSeries::hovered, series, [series, unit](bool status, QBoxSet *box) {
            if (!status || !box) {
                QToolTip::hideText();
                return;
            }
            QToolTip::showText(QCursor::pos(),
                               QObject::tr("%1, %2\nmedian %3 %4 (runs %5 – %6)")
                                   .arg(series->name(), box->label())
                                   .arg(box->at(QBoxSet::Median), 0, 'g', 4)
                                   .arg(unit.second)
                                   .arg(box->at(QBoxSet::LowerExtreme), 0, 'g', 4)
                                   .arg(box->at(QBoxSet::UpperExtreme), 0, 'g', 4));
        });
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    y->setRange(0, top > 0 ? top * 1.1 : 1);
    y->applyNiceNumbers();
    toggleByLegend(chart);
    return chart;
}

QChart *allocationChart(const std::vector<BenchSet> &sets, const char *unit)
{
    const bool bytes = std::string_view(unit) == "B/op";
    auto *chart = newChart(bytes ? QObject::tr("Heap bytes allocated per operation")
                                 : QObject::tr("Heap allocations per operation"));
    const auto sizes = sizesOf(sets);
    constexpr double floorValue = 0.5; // where zero sits on a logarithmic axis
    // Bytes in KiB or MiB when they are that large.
    double largest = 0;
    for (const auto &[set, op] : seriesOf(sets, true))
        for (const auto &k : sizes)
            largest = std::max(largest, medianOf(samplesOf(*set, op, k.size, unit)));
    const auto [scale, shownUnit] = !bytes ? std::pair(1.0, QString::fromLatin1(unit))
        : largest >= 10 << 20              ? std::pair(1.0 / (1 << 20), QStringLiteral("MiB/op"))
        : largest >= 10 << 10              ? std::pair(1.0 / (1 << 10), QStringLiteral("KiB/op"))
                                           : std::pair(1.0, QStringLiteral("B/op"));
    auto *series = new QBarSeries;
    double top = 1;
    for (const auto &[set, op] : seriesOf(sets, true)) {
        auto *bars = new QBarSet(set->label + QStringLiteral(" · ") + op);
        QVariantList exact;
        for (const auto &k : sizes) {
            const double v = medianOf(samplesOf(*set, op, k.size, unit)) * scale;
            exact << v;
            *bars << std::max(v, floorValue);
            top = std::max(top, v);
        }
        bars->setProperty("exact", exact);
        tooltips(bars, shownUnit);
        series->append(bars);
    }
    chart->addSeries(series);
    auto *x = sizeAxis(sizes);
    auto *y = new QLogValueAxis;
    y->setBase(10);
    y->setTitleText(shownUnit + QObject::tr(" (logarithmic)"));
    y->setLabelFormat(QStringLiteral("%g"));
    y->setRange(floorValue, std::pow(10.0, std::ceil(std::log10(top * 1.5))));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    toggleByLegend(chart);
    return chart;
}

} // namespace strata

namespace strata {

QChart *timelineChart(const std::vector<TimelinePoint> &points, const QStringList &targets, bool sideBySide)
{
    auto *chart = newChart(points.empty() ? QObject::tr("Timeline (runs of a fixed time draw one as they go)")
                                          : QObject::tr("Timeline: operations per second and latency as the runs go"));
    auto *x = new QValueAxis;
    x->setTitleText(QObject::tr("seconds (runs end to end)"));
    x->setLabelFormat(QStringLiteral("%g"));
    auto *rate = new QValueAxis;
    rate->setTitleText(QObject::tr("operations per second"));
    rate->setLabelFormat(QStringLiteral("%g"));
    auto *latency = new QLogValueAxis;
    latency->setBase(10);
    latency->setTitleText(QObject::tr("p50, p99 (µs, logarithmic)"));
    latency->setLabelFormat(QStringLiteral("%g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(rate, Qt::AlignLeft);
    chart->addAxis(latency, Qt::AlignRight);
    // Per target: its rate, its p50 and its p99. Runs follow one another on the time axis:
    // each run's points are shifted by where the one before ended.
    struct Lines {
        QLineSeries *rate, *p50, *p99;
    };
    std::vector<Lines> lines;
    auto linesOf = [&](int target) -> Lines & {
        while (int(lines.size()) <= target) {
            const int i = int(lines.size());
            const QString label = i < targets.size() ? targets[i] : QObject::tr("target %1").arg(i + 1);
            Lines l{new QLineSeries, new QLineSeries, new QLineSeries};
            l.rate->setName(label + QObject::tr(" · ops/s"));
            l.p50->setName(label + QObject::tr(" · p50"));
            l.p99->setName(label + QObject::tr(" · p99"));
            QPen dashed = l.p50->pen();
            dashed.setStyle(Qt::DashLine);
            l.p50->setPen(dashed);
            for (auto *s : {l.rate, l.p50, l.p99})
                chart->addSeries(s);
            l.rate->attachAxis(x);
            l.rate->attachAxis(rate);
            for (auto *s : {l.p50, l.p99}) {
                s->attachAxis(x);
                s->attachAxis(latency);
            }
            lines.push_back(l);
        }
        return lines[std::size_t(target)];
    };
    double offset = 0, end = 0, top = 0, low = 0, high = 0;
    // Rates in thousands (or millions) when they are that large.
    double fastest = 0;
    for (const auto &p : points)
        fastest = std::max(fastest, p.opsPerSecond());
    const auto [scale, rateTitle] = fastest >= 1e7 ? std::pair(1e-6, QObject::tr("million operations per second"))
        : fastest >= 1e4                           ? std::pair(1e-3, QObject::tr("thousand operations per second"))
                                                   : std::pair(1.0, QObject::tr("operations per second"));
    rate->setTitleText(rateTitle);
    const TimelinePoint *previous = nullptr;
    double started = 0; // where the run of the points side by side began
    for (const auto &p : points) {
        if (sideBySide) {
            if (previous && (p.run != previous->run || p.benchmark != previous->benchmark))
                started = end;
            offset = started;
        } else if (previous
                   && (p.target != previous->target || p.run != previous->run || p.benchmark != previous->benchmark)) {
            offset = end;
        }
        const double t = offset + p.at;
        end = std::max(end, t);
        Lines &l = linesOf(std::max(0, p.target));
        l.rate->append(t, p.opsPerSecond() * scale);
        top = std::max(top, p.opsPerSecond() * scale);
        for (auto [series, ns] : {std::pair(l.p50, p.p50), std::pair(l.p99, p.p99)}) {
            if (ns == 0)
                continue; // an interval without operations
            const double us = double(ns) / 1e3;
            series->append(t, us);
            low = low > 0 ? std::min(low, us) : us;
            high = std::max(high, us);
        }
        previous = &p;
    }
    x->setRange(0, end > 0 ? end : 1);
    rate->setRange(0, top > 0 ? top * 1.1 : 1);
    rate->applyNiceNumbers();
    latency->setRange(low > 0 ? std::pow(10.0, std::floor(std::log10(low / 1.5))) : 0.1,
                      high > 0 ? std::pow(10.0, std::ceil(std::log10(high * 1.01))) : 1000);
    toggleByLegend(chart);
    return chart;
}

} // namespace strata

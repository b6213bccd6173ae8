// The benchmark page: charts built from two fixed Go benchmark files (written by hand in
// `go test -bench -benchmem` form, a malformed line included) carry the medians and the
// spread of the runs; the comparison table shows benchstat's deltas, "~" and p-values,
// coloured by direction; PNG and SVG exports are valid files; a run on memory:// goes end
// to end into the charts and the history; a run from two local agents (hosts) fills the
// timeline and the Hosts tab.
#include "tests/gui/gui_fixture.h"

#include "app/version.h"
#include "core/bench/bench_runner.h"
#include "core/bench/benchstat.h"
#include "ui/bench/bench_charts.h"
#include "ui/bench/bench_hosts_view.h"
#include "ui/bench/bench_job.h"
#include "ui/bench/bench_page.h"
#include "ui/bench/benchstat_model.h"

#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QColor>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QTimer>
#include <QValueAxis>
#include <QXmlStreamReader>
#include <set>

namespace strata {

using namespace gui_test;

namespace {

QString fixture(const char *name)
{
    return QStringLiteral(STRATA_GUI_DATA "/") + QLatin1String(name);
}

std::vector<BenchSet> fixtures()
{
    std::vector<BenchSet> sets;
    for (auto name : {"go_test_a.txt", "go_test_b.txt"})
        sets.push_back(*loadBenchFile(fixture(name)).set);
    return sets;
}

QBarSet *barSet(QChart *chart, const QString &name)
{
    for (auto *series : chart->series())
        if (auto *bars = qobject_cast<QBarSeries *>(series))
            for (auto *set : bars->barSets())
                if (set->label() == name)
                    return set;
    return nullptr;
}

// The GUI thread's longest stall since it was made: the longest gap of a 10 ms timer.
class StallWatch {
public:
    StallWatch()
    {
        m_heart.setInterval(10);
        QObject::connect(&m_heart, &QTimer::timeout, [this] { m_worst = std::max(m_worst, m_beat.restart()); });
        m_beat.start();
        m_heart.start();
    }
    qint64 longest()
    {
        m_heart.stop();
        return m_worst;
    }

private:
    QElapsedTimer m_beat;
    QTimer m_heart;
    qint64 m_worst = 0;
};

} // namespace

class TestBenchPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void goFileImport();
    void throughputBarsAreMedians();
    void latencyBoxesSpanTheRuns();
    void latencyCurvesThroughPercentiles();
    void allocationsOnALogAxis();
    void comparisonTableCells();
    void exportsPngAndSvg();
    void runOnMemoryEndToEnd();
    void historyNamesRenamesAndDeletes();
    void timelineGrowsLiveAndStaysWithTheRun();
    void runsFromHostsAtOnce();
    void screenshots();
};

void TestBenchPage::goFileImport()
{
    auto loaded = loadBenchFile(fixture("go_test_a.txt"));
    QVERIFY2(loaded.set, qPrintable(loaded.error));
    QCOMPARE(loaded.set->label, QStringLiteral("go_test_a.txt"));
    QCOMPARE(loaded.set->results.size(), std::size_t(18)); // PASS, ok and the broken line are not results
    QCOMPARE(loaded.warnings.size(), 1);
    QVERIFY2(loaded.warnings.front().contains(QLatin1String("line 10")), qPrintable(loaded.warnings.front()));
    const BenchKey key = benchKey(loaded.set->results.front());
    QCOMPARE(key.op, QStringLiteral("Write"));
    QCOMPARE(key.size, std::uint64_t(4096));
    QCOMPARE(*loaded.set->results.front().configValue("cpu"), std::string("AMD EPYC 7B13"));

    QTemporaryDir dir;
    QFile noise(dir.filePath(QStringLiteral("noise.txt")));
    QVERIFY(noise.open(QIODevice::WriteOnly));
    noise.write("PASS\nok  \tpkg\t0.1s\n");
    noise.close();
    auto empty = loadBenchFile(noise.fileName());
    QVERIFY(!empty.set);
    QVERIFY2(empty.error.contains(QLatin1String("no Go benchmark results")), qPrintable(empty.error));
    QVERIFY(loadBenchFile(dir.filePath(QStringLiteral("missing.txt"))).error.contains(QLatin1String("cannot open")));
}

void TestBenchPage::throughputBarsAreMedians()
{
    const auto sets = fixtures();
    std::unique_ptr<QChart> chart(throughputChart(sets));
    QBarSet *aWrite = barSet(chart.get(), QStringLiteral("go_test_a.txt · Write"));
    QBarSet *bRead = barSet(chart.get(), QStringLiteral("go_test_b.txt · Read"));
    QVERIFY(aWrite && bRead);
    // Categories: 4KiB then 1MiB.
    QCOMPARE(aWrite->count(), 2);
    // Go's MB/s shown in MiB/s (the largest, 127.9 MB/s, is over 10 MiB/s).
    const double toMiB = 1e6 / 1048576.0;
    // 4KiB and 1MiB are 256x apart: a logarithmic axis.
    QCOMPARE(chart->axes(Qt::Vertical).front()->titleText(), QStringLiteral("MiB/s (logarithmic)"));
    QVERIFY(qobject_cast<QLogValueAxis *>(chart->axes(Qt::Vertical).front()));
    QCOMPARE(aWrite->at(0), (2.51 + 2.53) / 2 * toMiB); // median of six runs
    QCOMPARE(aWrite->at(1), (114.0 + 112.7) / 2 * toMiB);
    QCOMPARE(bRead->at(0), (2.93 + 2.94) / 2 * toMiB);
    QVERIFY(bRead->at(1) <= aWrite->at(0));                            // no Read/1MiB in the file: on the axis floor...
    QCOMPARE(bRead->property("exact").toList().at(1).toDouble(), 0.0); // ...and exactly 0
    {
        // Sizes within 10x of each other: a linear axis from 0.
        auto close = parseGoBench("BenchmarkRead/4KiB-2 10 100 ns/op 40.96 MB/s\n"
                                  "BenchmarkRead/16KiB-2 10 200 ns/op 81.92 MB/s\n");
        QVERIFY(close.ok());
        std::unique_ptr<QChart> linear(throughputChart({{QStringLiteral("c"), *close, {}}}));
        QVERIFY(qobject_cast<QValueAxis *>(linear->axes(Qt::Vertical).front()));
    }
    QCOMPARE(chart->series().size(), 1);
    QCOMPARE(qobject_cast<QBarSeries *>(chart->series().front())->count(), 4); // 2 files × 2 operations
    // The legend hides and shows a bar set.
    auto markers = chart->legend()->markers();
    QCOMPARE(markers.size(), 4);
    Q_EMIT markers.front()->clicked();
    QCOMPARE(aWrite->color().alpha(), 0);
    Q_EMIT markers.front()->clicked();
    QVERIFY(aWrite->color().alpha() > 0);
}

void TestBenchPage::latencyBoxesSpanTheRuns()
{
    const auto sets = fixtures();
    std::unique_ptr<QChart> chart(latencyChart(sets));
    QBoxPlotSeries *aWrite = nullptr;
    for (auto *s : chart->series())
        if (s->name() == QStringLiteral("go_test_a.txt · Write"))
            aWrite = qobject_cast<QBoxPlotSeries *>(s);
    QStringList names;
    for (auto *s : chart->series())
        names << s->name();
    QVERIFY2(aWrite, qPrintable(names.join(QStringLiteral(" | "))));
    QCOMPARE(aWrite->count(), 2);
    QBoxSet *box = aWrite->boxSets().front();
    QCOMPARE(box->label(), QStringLiteral("4KiB"));
    // In µs: the largest value (9.5 ms) picks the unit for the whole chart.
    QVERIFY2(chart->axes(Qt::Vertical).front()->titleText().contains(QStringLiteral("µs")),
             qPrintable(chart->axes(Qt::Vertical).front()->titleText()));
    const std::vector<double> runs{1600, 1610, 1620, 1630, 1640, 1650};
    QCOMPARE(box->at(QBoxSet::LowerExtreme), 1600.0);
    QCOMPARE(box->at(QBoxSet::UpperExtreme), 1650.0);
    QCOMPARE(box->at(QBoxSet::Median), 1625.0);
    QCOMPARE(box->at(QBoxSet::LowerQuartile), quantile(runs, 0.25));
    QCOMPARE(box->at(QBoxSet::UpperQuartile), quantile(runs, 0.75));
}

// Results with percentiles (strata bench's): a curve per set × operation × size through
// p50 … max, each point the median of the runs, on a logarithmic axis.
void TestBenchPage::latencyCurvesThroughPercentiles()
{
    const std::string text =
        "goos: linux\n"
        "BenchmarkRead/4KiB-2 100 1000 ns/op 900 p50-ns 1500 p90-ns 4000 p99-ns 9000 p99.9-ns 20000 max-ns\n"
        "BenchmarkRead/4KiB-2 100 1000 ns/op 950 p50-ns 1600 p90-ns 5000 p99-ns 9500 p99.9-ns 90000 max-ns\n"
        "BenchmarkRead/4KiB-2 100 1000 ns/op 920 p50-ns 1550 p90-ns 4500 p99-ns 9200 p99.9-ns 30000 max-ns\n"
        "BenchmarkRead/64KiB-2 100 1000 ns/op 2000 p50-ns 2500 p90-ns 3000 p99-ns 3500 p99.9-ns 4000 max-ns\n";
    auto parsed = parseGoBench(text);
    QVERIFY(parsed.ok());
    std::vector<BenchSet> sets{{QStringLiteral("A"), *parsed, {}}};
    std::unique_ptr<QChart> chart(latencyChart(sets));
    QLineSeries *small = nullptr;
    QStringList names;
    for (auto *series : chart->series()) {
        names << series->name();
        if (series->name() == QStringLiteral("A · Read 4KiB"))
            small = qobject_cast<QLineSeries *>(series);
    }
    QCOMPARE(names.size(), 2);
    QVERIFY2(small, qPrintable(names.join(QStringLiteral(" | "))));
    QCOMPARE(small->count(), 5);
    // In µs (the largest median, 30 000 ns, picks the unit); each point the median of the runs.
    const double expected[] = {0.92, 1.55, 4.5, 9.2, 30};
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(small->at(i).x(), double(i));
        QVERIFY2(std::abs(small->at(i).y() - expected[i]) < 1e-9, qPrintable(QString::number(small->at(i).y())));
    }
    auto *y = qobject_cast<QLogValueAxis *>(chart->axes(Qt::Vertical).front());
    QVERIFY(y);
    QVERIFY2(y->titleText().contains(QStringLiteral("µs")), qPrintable(y->titleText()));
    QVERIFY(y->min() <= 0.92 && y->max() >= 30);
}

void TestBenchPage::allocationsOnALogAxis()
{
    const auto sets = fixtures();
    std::unique_ptr<QChart> chart(allocationChart(sets, "allocs/op"));
    QVERIFY(qobject_cast<QLogValueAxis *>(chart->axes(Qt::Vertical).front()));
    QBarSet *a = barSet(chart.get(), QStringLiteral("go_test_a.txt · Write"));
    QBarSet *b = barSet(chart.get(), QStringLiteral("go_test_b.txt · Write"));
    QCOMPARE(a->at(0), 384.0);
    QCOMPARE(b->at(0), 38.0);
    std::unique_ptr<QChart> bytes(allocationChart(sets, "B/op"));
    // Bytes in KiB: the largest median (55 772 B) is over 10 KiB.
    QVERIFY(bytes->axes(Qt::Vertical).front()->titleText().startsWith(QStringLiteral("KiB/op")));
    QCOMPARE(barSet(bytes.get(), QStringLiteral("go_test_b.txt · Read"))->at(0), 4800.0 / 1024);
    // Zero sits on the axis floor, the exact value stays for the tooltip.
    std::vector<BenchSet> zero{sets.front()};
    for (auto &r : zero.front().results)
        for (auto &[unit, value] : r.values)
            if (unit == "allocs/op")
                value = 0;
    std::unique_ptr<QChart> floor(allocationChart(zero, "allocs/op"));
    QBarSet *z = barSet(floor.get(), QStringLiteral("go_test_a.txt · Write"));
    QCOMPARE(z->property("exact").toList().front().toDouble(), 0.0);
    QVERIFY(z->at(0) > 0);
}

void TestBenchPage::comparisonTableCells()
{
    BenchstatModel model;
    std::vector<BenchstatInput> inputs;
    for (const auto &set : fixtures())
        inputs.push_back({set.label.toStdString(), set.results});
    model.setReport(benchstat(inputs));
    QCOMPARE(model.columnCount(), 5); // name, A, B, vs A, p
    QCOMPARE(model.headerData(3, Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("vs go_test_a.txt"));
    auto find = [&](const QString &unit, const QString &name) {
        bool inUnit = false;
        for (int r = 0; r < model.rowCount(); ++r) {
            const QString first = model.index(r, 0).data().toString();
            if (model.index(r, 1).data().toString().isEmpty() && !first.isEmpty() && first != QLatin1String("geomean"))
                inUnit = first == unit;
            else if (inUnit && first == name)
                return r;
        }
        return -1;
    };
    const int write = find(QStringLiteral("sec/op"), QStringLiteral("Write/4KiB-8"));
    const int read = find(QStringLiteral("sec/op"), QStringLiteral("Read/4KiB-8"));
    const int geo = find(QStringLiteral("sec/op"), QStringLiteral("geomean"));
    QVERIFY(write >= 0 && read >= 0 && geo >= 0);
    QCOMPARE(model.index(write, 1).data().toString(), QStringLiteral("1.625m ± 2%")); // seconds
    QCOMPARE(model.index(write, 2).data().toString(), QStringLiteral("825.0µ ± 3%"));
    QCOMPARE(model.index(write, 3).data().toString(), QStringLiteral("-49.23%"));
    QCOMPARE(model.index(write, 4).data().toString(), QStringLiteral("p=0.002 n=6"));
    QCOMPARE(model.index(read, 3).data().toString(), QStringLiteral("~"));
    QCOMPARE(model.index(read, 4).data().toString(), QStringLiteral("p=0.848 n=6"));
    QCOMPARE(model.index(geo, 3).data().toString(), QStringLiteral("-23.30%"));
    // Less time is better: green; not significant: grey. More B/s is better too.
    QCOMPARE(model.index(write, 3).data(Qt::ForegroundRole).value<QColor>(), QColor(0x1d, 0x6b, 0x2a));
    QCOMPARE(model.index(read, 3).data(Qt::ForegroundRole).value<QColor>(), QColor(0x80, 0x80, 0x80));
    const int speed = find(QStringLiteral("B/s"), QStringLiteral("Write/4KiB-8"));
    QCOMPARE(model.index(speed, 3).data().toString(), QStringLiteral("+97.02%"));
    QCOMPARE(model.index(speed, 3).data(Qt::ForegroundRole).value<QColor>(), QColor(0x1d, 0x6b, 0x2a));
}

void TestBenchPage::exportsPngAndSvg()
{
    auto registry = makeRegistry();
    BenchPage page(*registry);
    page.resize(1000, 700);
    page.show();
    page.openFiles({fixture("go_test_a.txt"), fixture("go_test_b.txt")});
    QCOMPARE(page.sets().size(), std::size_t(2));
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("chart.png")), svg = dir.filePath(QStringLiteral("chart.svg"));
    QCOMPARE(page.saveChart(png), QString());
    QCOMPARE(page.saveChart(svg), QString());
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 100 && image.height() > 100);
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    bool sawSvg = false, sawText = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("svg"))
            sawSvg = true;
        if (xml.isCharacters() && xml.text().contains(QLatin1String("Throughput")))
            sawText = true;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(sawSvg && sawText);
    // Results: Go text reads back, JSON and CSV are benchstat's.
    const QString text = dir.filePath(QStringLiteral("r.txt")), json = dir.filePath(QStringLiteral("r.json"));
    QCOMPARE(page.saveResults(text), QString());
    QCOMPARE(page.saveResults(json), QString());
    QCOMPARE(loadBenchFile(text).set->results.size(), std::size_t(36));
    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    QVERIFY(j.readAll().contains("\"delta_pct\""));
}

void TestBenchPage::runOnMemoryEndToEnd()
{
    auto registry = makeRegistry();
    BenchPage page(*registry);
    page.targetEdit(0)->setText(QStringLiteral("memory://gui-bench/"));
    page.targetEdit(1)->setText(QStringLiteral("memory://gui-bench-b/"));
    page.setRunOptions(QStringLiteral("4KiB,64KiB"), 2, QStringLiteral("20ms"));
    QSignalSpy done(&page, &BenchPage::runFinished);
    page.startRun();
    QVERIFY(page.running());
    QVERIFY(done.wait(60000));
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QCOMPARE(page.sets().size(), std::size_t(2));
    QCOMPARE(page.sets().front().results.size(), std::size_t(2 * 2 * 2)); // ops × sizes × count
    std::unique_ptr<QChart> chart(throughputChart(page.sets()));
    QVERIFY(barSet(chart.get(), QStringLiteral("memory://gui-bench/ · Write"))->at(0) > 0);
    QVERIFY(page.comparison()->rowCount() > 0);
    // memory:// is flagged: its numbers are no storage's (bench_flags.h), in the window and
    // in the saved run.
    QVERIFY2(page.flagsLabel()->text().contains(QStringLiteral("inside this process")),
             qPrintable(page.flagsLabel()->text()));
    QVERIFY(!page.flagsLabel()->isHidden());
    QVERIFY(!QDir(QString::fromStdString(benchHistoryDir())).entryList({QStringLiteral("*.txt")}).isEmpty());
    // The run removed what it wrote.
    auto store = registry->open("memory://gui-bench/");
    QVERIFY(store.ok());
    auto left = store->op->listAll("/");
    QVERIFY(left.ok());
    QCOMPARE(left->size(), std::size_t(0));
}

// A fixed-time run draws its timeline as it goes: points arrive while it runs, the chart is
// drawn at least twice a second and the window never stalls (a 10 ms heartbeat on the GUI
// thread); every operation is in one interval; the saved run brings its timeline back.
void TestBenchPage::timelineGrowsLiveAndStaysWithTheRun()
{
    auto registry = makeRegistry();
    BenchPage page(*registry);
    page.resize(1200, 720);
    page.show();
    page.targetEdit(0)->setText(QStringLiteral("memory://gui-timeline/"));
    page.setRunOptions(QStringLiteral("4KiB"), 1, QStringLiteral("1500ms"));
    QVERIFY(page.fixedTimeBox()->isChecked()); // the default
    QSignalSpy done(&page, &BenchPage::runFinished);
    const int draws0 = page.timelineDraws();
    QElapsedTimer running;
    running.start();
    page.startRun();
    StallWatch stalls;
    auto *tabs = page.findChild<QTabWidget *>();
    QVERIFY(tabs);
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(page.timelineView()));
    QTest::qWait(1100);
    QVERIFY(page.running());
    const std::size_t during = page.timeline().size();
    QVERIFY2(during >= 2, qPrintable(QString::number(during)));
    QLineSeries *rate = nullptr;
    for (auto *s : page.timelineView()->chart()->series())
        if (s->name() == QStringLiteral("memory://gui-timeline/ · ops/s"))
            rate = qobject_cast<QLineSeries *>(s);
    QVERIFY(rate);
    QVERIFY(rate->count() >= 2);
    const QString dir = qEnvironmentVariable("STRATA_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(page.grab().toImage().save(dir + QStringLiteral("/bench-timeline.png")));
    QVERIFY(done.wait(60000));
    const qint64 worst = stalls.longest();
    const double seconds = double(running.elapsed()) / 1000;
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    const int draws = page.timelineDraws() - draws0;
    QVERIFY2(draws >= int(2 * (seconds - 0.5)), qPrintable(QStringLiteral("%1 draws in %2 s").arg(draws).arg(seconds)));
    QVERIFY2(worst < 300, qPrintable(QStringLiteral("the GUI thread stalled for %1 ms").arg(worst)));
    // Write, then Read: each run's operations, interval by interval, add up to its count.
    const auto &results = page.sets().front().results;
    QCOMPARE(results.size(), std::size_t(2));
    for (const auto &r : results) {
        std::uint64_t ops = 0;
        for (const auto &p : page.timeline())
            if (p.benchmark == r.name)
                ops += p.ops;
        QCOMPARE(ops, r.iterations);
    }
    // Saved beside the run, and back when the run is opened from the history.
    const std::vector<TimelinePoint> shown = page.timeline();
    QVERIFY(page.history()->count() > 0);
    const QString saved = page.history()->item(0)->data(Qt::UserRole).toString();
    QVERIFY(QFile::exists(historyTimelinePath(saved)));
    page.openFiles({saved});
    QCOMPARE(page.timeline().size(), shown.size());
    for (std::size_t i = 0; i < shown.size(); ++i) {
        QCOMPARE(page.timeline()[i].ops, shown[i].ops);
        QCOMPARE(page.timeline()[i].benchmark, shown[i].benchmark);
        QCOMPARE(page.timeline()[i].p99, shown[i].p99);
    }
    // Deleting the run deletes its timeline.
    QCOMPARE(page.deleteHistory({saved}), QString());
    QVERIFY(!QFile::exists(historyTimelinePath(saved)));
}

// Runs from many hosts (issue 44): two local agents (this build's strata) reached through a
// launcher script that drops the host's name. Test says which hosts are ready and names the
// one whose strata is missing; a run draws a line for all hosts and one per host on the
// timeline, fills the Hosts tab (a row per case for all and for each host) and shows the
// merged runs, whose operations are the hosts' added up, interval by interval too.
void TestBenchPage::runsFromHostsAtOnce()
{
    QTemporaryDir tmp;
    const QString launcher = tmp.filePath(QStringLiteral("launch"));
    {
        QFile f(launcher);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\nshift\nexec \"$@\"\n");
    }
    QFile::setPermissions(launcher, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QCoreApplication::setApplicationVersion(QStringLiteral(STRATA_VERSION));
    auto registry = makeRegistry();
    BenchPage page(*registry);
    page.resize(1200, 720);
    page.show();
    page.targetEdit(0)->setText(QStringLiteral("memory://gui-hosts/"));
    page.hostsViaEdit()->setText(launcher);
    page.hostsStrataEdit()->setText(QStringLiteral(STRATA_BINARY));

    // Test: both ready; then a strata that is not there is named.
    page.hostsEdit()->setText(QStringLiteral("alpha, beta"));
    QSignalSpy note(&page, &BenchPage::notify);
    page.testHosts();
    QVERIFY(note.wait(30000));
    QVERIFY2(page.hostsView()->status()->text().startsWith(QStringLiteral("2 of 2 host(s) ready")),
             qPrintable(page.hostsView()->status()->text()));
    QVERIFY(page.hostsView()->status()->text().contains(QStringLiteral("✓ beta")));
    page.hostsStrataEdit()->setText(tmp.filePath(QStringLiteral("no-strata")));
    page.testHosts();
    QVERIFY(note.wait(30000));
    QVERIFY2(page.hostsView()->status()->text().contains(QStringLiteral("✗ alpha")),
             qPrintable(page.hostsView()->status()->text()));
    QVERIFY(page.hostsView()->status()->text().startsWith(QStringLiteral("0 of 2")));
    page.hostsStrataEdit()->setText(QStringLiteral(STRATA_BINARY));
    // A host that is no host is refused before anything starts.
    page.hostsEdit()->setText(QStringLiteral("alpha, -oProxyCommand=x"));
    page.startRun();
    QVERIFY(!page.running());
    QVERIFY2(page.statusLabel()->text().contains(QStringLiteral("is no host")), qPrintable(page.statusLabel()->text()));

    // The run.
    page.hostsEdit()->setText(QStringLiteral("alpha, beta"));
    page.setRunOptions(QStringLiteral("4KiB"), 1, QStringLiteral("600ms"));
    QSignalSpy done(&page, &BenchPage::runFinished);
    page.startRun();
    StallWatch stalls;
    QVERIFY(page.running());
    QVERIFY(done.wait(60000));
    const qint64 worst = stalls.longest();
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QVERIFY2(worst < 300, qPrintable(QStringLiteral("the GUI thread stalled for %1 ms").arg(worst)));
    QCOMPARE(page.sets().size(), std::size_t(1));
    const auto &merged = page.sets().front().results;
    QCOMPARE(merged.size(), std::size_t(2)); // Write, Read
    // Intervals: all hosts (target 0) add up to the two hosts' (1, 2), and to the run's count.
    for (const auto &r : merged) {
        std::uint64_t ops[3] = {0, 0, 0};
        for (const auto &p : page.timeline())
            if (p.benchmark == r.name && p.target >= 0 && p.target < 3)
                ops[p.target] += p.ops;
        QVERIFY2(ops[1] > 0 && ops[2] > 0, r.name.c_str());
        QCOMPARE(ops[0], ops[1] + ops[2]);
        QCOMPARE(ops[0], r.iterations);
    }
    QStringList lines;
    for (auto *series : page.timelineView()->chart()->series())
        lines << series->name();
    for (const char *name : {"all hosts · ops/s", "alpha · ops/s", "beta · p99"})
        QVERIFY2(lines.contains(QString::fromUtf8(name)), qPrintable(lines.join(QStringLiteral(", "))));
    // The Hosts tab: per case, all hosts (their shares add to about all) then each.
    auto *table = page.hostsView()->table();
    QCOMPARE(table->rowCount(), 6);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("Write/4KiB")); // in the order they ran
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("all"));
    QCOMPARE(table->item(1, 1)->text(), QStringLiteral("alpha"));
    QCOMPARE(table->item(2, 1)->text(), QStringLiteral("beta"));
    const double all = table->item(0, 3)->text().toDouble();
    const double sum = table->item(1, 3)->text().toDouble() + table->item(2, 3)->text().toDouble();
    QVERIFY2(std::abs(all - sum) <= 0.01 * all + 1, qPrintable(QStringLiteral("%1 vs %2").arg(all).arg(sum)));
    QVERIFY(table->item(1, 7)->text().endsWith(QStringLiteral(" %")));
    QVERIFY2(page.hostsView()->status()->text().startsWith(QStringLiteral("Start skew at most")),
             qPrintable(page.hostsView()->status()->text()));
    const QString dir = qEnvironmentVariable("STRATA_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        QVERIFY(page.grab().toImage().save(dir + QStringLiteral("/bench-hosts-timeline.png")));
        page.findChild<QTabWidget *>()->setCurrentWidget(table->parentWidget());
        QTest::qWait(50);
        QVERIFY(page.grab().toImage().save(dir + QStringLiteral("/bench-hosts-table.png")));
    }
    // Saved with every host's lines and the timeline of each.
    const QString saved = page.history()->item(0)->data(Qt::UserRole).toString();
    QFile text(saved);
    QVERIFY(text.open(QIODevice::ReadOnly));
    const QByteArray body = text.readAll();
    for (const char *key : {"host: all\n", "host: alpha\n", "host: beta\n"})
        QVERIFY2(body.contains(key), body.constData());
    const std::size_t points = page.timeline().size();
    const std::size_t mergedRuns = merged.size();
    page.openFiles({saved});
    QCOMPARE(page.timeline().size(), points);
    QCOMPARE(page.sets().front().results.size(), mergedRuns); // all hosts' lines, not pooled with each host's
    std::set<int> targets;
    for (const auto &p : page.timeline())
        targets.insert(p.target);
    QCOMPARE(targets.size(), std::size_t(3));
    QCOMPARE(page.deleteHistory({saved}), QString());
}

// The page with two files compared, one picture per tab (STRATA_SCREENSHOT_DIR).
// The history names each saved run by its label, target and time (no slug's '_' left), and
// runs are renamed (the file's header) and deleted.
void TestBenchPage::historyNamesRenamesAndDeletes()
{
    const QString dir = QString::fromStdString(benchHistoryDir());
    QDir(dir).removeRecursively();
    QVERIFY(QDir().mkpath(dir));
    auto write = [&](const std::string &name, const std::string &text) {
        QFile f(dir + QLatin1Char('/') + QString::fromStdString(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(text));
    };
    const std::string line = "BenchmarkRead/4KiB-2\t100\t1000 ns/op\n";
    QCOMPARE(historyFileName("20261202-203000", "", "memory://demo/"), std::string("20261202-203000-memory-demo.txt"));
    write(historyFileName("20261202-203000", "", "memory://demo/"), historyHeader("memory://demo/", "") + line);
    write(historyFileName("20261202-203100", "nightly", "s3://b/"), historyHeader("s3://b/", "nightly") + line);
    auto registry = makeRegistry();
    BenchPage page(*registry);
    QListWidget *list = page.history();
    QCOMPARE(list->count(), 2);
    QStringList texts;
    for (int i = 0; i < list->count(); ++i)
        texts << list->item(i)->text();
    texts.sort();
    const QString local = QDateTime(QDate(2026, 12, 2), QTime(20, 30, 0), Qt::UTC)
                              .toLocalTime()
                              .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    QCOMPARE(texts[0], QStringLiteral("memory://demo/ · ") + local);
    QVERIFY2(texts[1].startsWith(QStringLiteral("nightly — s3://b/ · ")), qPrintable(texts[1]));
    QString demoPath;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text().startsWith(QStringLiteral("memory://")))
            demoPath = list->item(i)->data(Qt::UserRole).toString();
    QCOMPARE(page.renameHistory(demoPath, QStringLiteral("  before the upgrade ")), QString());
    QFile renamed(demoPath);
    QVERIFY(renamed.open(QIODevice::ReadOnly));
    QCOMPARE(renamed.readLine(), QByteArray("# strata bench of memory://demo/ (before the upgrade)\n"));
    QCOMPARE(renamed.readLine(), QByteArray::fromStdString(line)); // the results kept
    renamed.close();
    bool shown = false;
    for (int i = 0; i < list->count(); ++i)
        shown = shown || list->item(i)->text() == QStringLiteral("before the upgrade — memory://demo/ · ") + local;
    QVERIFY(shown);
    // A saved run's flags show when it is opened.
    QFile withFlag(demoPath);
    QVERIFY(withFlag.open(QIODevice::Append));
    withFlag.write("# flag loopback: the server runs on this machine (127.0.0.1)\n");
    withFlag.close();
    page.openFiles({demoPath});
    QCOMPARE(page.flagsLabel()->text(), QStringLiteral("⚠ the server runs on this machine (127.0.0.1)"));
    QCOMPARE(page.deleteHistory({demoPath}), QString());
    QVERIFY(!QFile::exists(demoPath));
    QCOMPARE(list->count(), 1);
    QVERIFY(page.deleteHistory({demoPath}) != QString()); // gone already: said so
}

void TestBenchPage::screenshots()
{
    auto registry = makeRegistry();
    BenchPage page(*registry);
    page.resize(1200, 720);
    page.show();
    page.openFiles({fixture("go_test_a.txt"), fixture("go_test_b.txt")});
    auto *tabs = page.findChild<QTabWidget *>();
    QVERIFY(tabs);
    const QString dir = qEnvironmentVariable("STRATA_SCREENSHOT_DIR");
    const char *names[] = {"bench-throughput", "bench-latency",        "bench-bytes",      "bench-allocs",
                           "bench-comparison", "bench-timeline-empty", "bench-hosts-empty"};
    QCOMPARE(tabs->count(), int(std::size(names)));
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QTest::qWait(50);
        const QImage picture = page.grab().toImage();
        QVERIFY(!picture.isNull());
        if (!dir.isEmpty())
            QVERIFY(picture.save(dir + QLatin1Char('/') + QLatin1String(names[i]) + QStringLiteral(".png")));
    }
    // A run of Strata with its flags: the warnings under the status line.
    QTemporaryDir tmp;
    QFile run(tmp.filePath(QStringLiteral("run.txt")));
    QVERIFY(run.open(QIODevice::WriteOnly));
    run.write(historyHeader("s3://bucket/", "nightly").c_str());
    QFile a(fixture("go_test_a.txt"));
    QVERIFY(a.open(QIODevice::ReadOnly));
    run.write(a.readAll());
    run.write("# flag loopback: the server runs on this machine (127.0.0.1): no network between, and it shares the "
              "CPUs with the client\n# flag variation Write/4KiB: ns/op varies ±14 % (95 % interval of the median): "
              "more runs, or a quieter machine\n");
    run.close();
    page.openFiles({run.fileName()});
    tabs->setCurrentIndex(0);
    QTest::qWait(50);
    QVERIFY(!page.flagsLabel()->isHidden());
    if (!dir.isEmpty())
        QVERIFY(page.grab().toImage().save(dir + QStringLiteral("/bench-flags.png")));
    // Two runs with percentiles: the latency tab's curves.
    QStringList files;
    for (const auto &[name, scale] : {std::pair("a.txt", 1.0), std::pair("b.txt", 1.6)}) {
        QFile f(tmp.filePath(QLatin1String(name)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int round = 0; round < 3; ++round)
            for (const auto &[size, base] : {std::pair("4KiB", 900.0), std::pair("1MiB", 60000.0)}) {
                const double v = base * scale * (1 + round * 0.02);
                f.write(QStringLiteral(
                            "BenchmarkRead/%1-2 100 %2 ns/op %3 p50-ns %4 p90-ns %5 p99-ns %6 p99.9-ns %7 max-ns\n")
                            .arg(QLatin1String(size))
                            .arg(v * 1.1)
                            .arg(v)
                            .arg(v * 1.4)
                            .arg(v * 3)
                            .arg(v * 6 * scale)
                            .arg(v * 20)
                            .toUtf8());
            }
        files << f.fileName();
    }
    page.openFiles(files);
    tabs->setCurrentIndex(1);
    QTest::qWait(50);
    if (!dir.isEmpty())
        QVERIFY(page.grab().toImage().save(dir + QStringLiteral("/bench-percentiles.png")));
}

} // namespace strata

QTEST_MAIN(strata::TestBenchPage)
#include "test_bench_page.moc"

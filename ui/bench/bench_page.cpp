#include "ui/bench/bench_page.h"

#include "core/bench/bench_runner.h"
#include "core/bench/benchstat.h"
#include "core/io/duration_text.h"
#include "ui/bench/bench_hosts_view.h"
#include "ui/bench/bench_job.h"
#include "ui/bench/benchstat_model.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace strata {

BenchPage::BenchPage(Registry &registry, QWidget *parent) : QWidget(parent), m_registry(registry)
{
    setAcceptDrops(true);
    m_job = new BenchJob(registry, this);
    connect(m_job, &BenchJob::progressed, this, [this] { m_progress->setValue(m_progress->value() + 1); });
    connect(m_job, &BenchJob::finished, this, &BenchPage::runDone);
    connect(m_job, &BenchJob::timelinePoint, this, [this](const TimelinePoint &p) {
        m_timeline.push_back(p);
        drawTimeline();
    });
    connect(m_job, &BenchJob::checked, this, &BenchPage::showChecked);
    auto *layout = new QHBoxLayout(this);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(buildControls());
    m_tabs = new QTabWidget(split);
    const QStringList titles{tr("Throughput"), tr("Latency"), tr("Bytes allocated"), tr("Allocations"),
                             tr("Comparison")};
    for (int i = 0; i < 4; ++i) {
        auto *view = new QChartView(new QChart, m_tabs);
        view->setRenderHint(QPainter::Antialiasing);
        m_views.push_back(view);
        m_tabs->addTab(view, titles[i]);
    }
    m_comparison = new BenchstatModel(this);
    m_table = new QTableView(m_tabs);
    m_table->setModel(m_comparison);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setAlternatingRowColors(true);
    m_tabs->addTab(m_table, titles[4]);
    m_timelineView = new QChartView(timelineChart({}, {}), m_tabs);
    m_timelineView->setRenderHint(QPainter::Antialiasing);
    m_tabs->addTab(m_timelineView, tr("T&imeline"));
    m_hostsView = new BenchHostsView(m_tabs);
    m_tabs->addTab(m_hostsView, tr("H&osts"));
    connect(m_job, &BenchJob::hostsReported, m_hostsView, &BenchHostsView::showReport);
    split->addWidget(m_tabs);
    split->setStretchFactor(1, 1);
    layout->addWidget(split);
    refreshHistory();
}

BenchPage::~BenchPage() = default;

QWidget *BenchPage::buildControls()
{
    auto *box = new QWidget(this);
    auto *v = new QVBoxLayout(box);
    auto *form = new QFormLayout;
    m_targetA = new QLineEdit(QStringLiteral("memory://bench/"), box);
    m_targetB = new QLineEdit(box);
    m_targetB->setPlaceholderText(tr("optional: a second connection to compare"));
    form->addRow(tr("Connection &A:"), m_targetA);
    form->addRow(tr("Connection &B:"), m_targetB);
    auto *opsRow = new QHBoxLayout;
    for (auto op : {BenchOp::Write, BenchOp::Read, BenchOp::Stat, BenchOp::List, BenchOp::Delete}) {
        auto *check = new QCheckBox(QString::fromStdString(std::string(benchName(op))), box);
        check->setChecked(op == BenchOp::Write || op == BenchOp::Read);
        check->setProperty("op", int(op));
        m_ops.push_back(check);
        opsRow->addWidget(check);
    }
    form->addRow(tr("Operations:"), opsRow);
    m_sizes = new QLineEdit(QStringLiteral("4KiB,256KiB,4MiB,16MiB"), box);
    form->addRow(tr("&Sizes:"), m_sizes);
    m_count = new QSpinBox(box);
    m_count->setRange(1, 50);
    m_count->setValue(6);
    form->addRow(tr("&Runs of each:"), m_count);
    m_benchtime = new QLineEdit(QStringLiteral("1s"), box);
    form->addRow(tr("&Time per run:"), m_benchtime);
    m_concurrency = new QLineEdit(QStringLiteral("1"), box);
    form->addRow(tr("&Concurrency:"), m_concurrency);
    m_fixedTime = new QCheckBox(tr("&Fixed time per run, drawn live on the timeline"), box);
    m_fixedTime->setChecked(true);
    m_fixedTime->setToolTip(tr("Each run lasts exactly its time (as warp and fio run) and its operations per "
                               "second and latency are drawn as it goes. Off: each run grows its operation count "
                               "until it lasts about that long (Go's way); deletes are always timed so."));
    form->addRow(QString(), m_fixedTime);
    m_hosts = new QLineEdit(box);
    m_hosts->setPlaceholderText(tr("optional: run from these hosts at once, like bench@node1, node2:2222"));
    m_hosts->setToolTip(tr("Each host runs the benchmark side by side with the others, started over ssh (your "
                           "config, keys and known hosts) as `strata bench --agent`; their histograms are added "
                           "exactly. Connection A is opened on every host."));
    m_testHosts = new QPushButton(tr("T&est"), box);
    m_testHosts->setToolTip(tr("Reach each host as a run would: its strata, its version and its clock"));
    auto *hostsRow = new QHBoxLayout;
    hostsRow->addWidget(m_hosts, 1);
    hostsRow->addWidget(m_testHosts);
    auto *hostsLabel = new QLabel(tr("&Hosts:"), box);
    hostsLabel->setBuddy(m_hosts);
    form->addRow(hostsLabel, hostsRow);
    m_hostsVia = new QLineEdit(QStringLiteral("ssh"), box);
    m_hostsVia->setToolTip(tr("The command that reaches a host, as rsync's -e: ssh with options (ssh -F ~/.ssh/bench), "
                              "or a launcher given the host and the command (srun -w, a script)"));
    form->addRow(tr("Reach &with:"), m_hostsVia);
    m_hostsStrata = new QLineEdit(QStringLiteral("strata"), box);
    m_hostsStrata->setToolTip(tr("Where strata is on the hosts (the same version as this one)"));
    form->addRow(tr("Strata the&re:"), m_hostsStrata);
    v->addLayout(form);
    auto *buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("&Run"), box);
    m_stop = new QPushButton(tr("S&top"), box);
    m_stop->setEnabled(false);
    buttons->addWidget(m_run);
    buttons->addWidget(m_stop);
    v->addLayout(buttons);
    m_progress = new QProgressBar(box);
    m_status = new QLabel(tr("Run a benchmark, or open Go benchmark files (drop them here)."), box);
    m_status->setWordWrap(true);
    v->addWidget(m_progress);
    v->addWidget(m_status);
    m_flags = new QLabel(box);
    m_flags->setWordWrap(true);
    m_flags->setTextFormat(Qt::PlainText);
    m_flags->setStyleSheet(QStringLiteral("QLabel { color: #8a5300; }"));
    m_flags->hide();
    v->addWidget(m_flags);
    v->addWidget(new QLabel(tr("History (select one or two):"), box));
    m_history = new QListWidget(box);
    m_history->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_history->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *rename = new QAction(tr("&Rename…"), m_history);
    rename->setShortcut(QKeySequence(Qt::Key_F2));
    rename->setShortcutContext(Qt::WidgetShortcut);
    connect(rename, &QAction::triggered, this, &BenchPage::askRenameHistory);
    auto *remove = new QAction(tr("&Delete…"), m_history);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    connect(remove, &QAction::triggered, this, &BenchPage::askDeleteHistory);
    m_history->addAction(rename);
    m_history->addAction(remove);
    v->addWidget(m_history, 1);
    auto *files = new QHBoxLayout;
    auto *open = new QPushButton(tr("&Open…"), box);
    auto *saveResults = new QPushButton(tr("Save &results…"), box);
    auto *saveChart = new QPushButton(tr("Save c&hart…"), box);
    files->addWidget(open);
    files->addWidget(saveResults);
    files->addWidget(saveChart);
    v->addLayout(files);

    connect(m_run, &QPushButton::clicked, this, &BenchPage::startRun);
    connect(m_testHosts, &QPushButton::clicked, this, &BenchPage::testHosts);
    connect(m_hosts, &QLineEdit::returnPressed, this, &BenchPage::testHosts);
    connect(m_stop, &QPushButton::clicked, this, &BenchPage::stopRun);
    connect(m_history, &QListWidget::itemSelectionChanged, this, [this] {
        QStringList paths;
        for (auto *item : m_history->selectedItems())
            paths << item->data(Qt::UserRole).toString();
        if (!paths.isEmpty() && paths.size() <= 2)
            openFiles(paths);
    });
    connect(open, &QPushButton::clicked, this, [this] {
        auto *dialog = new QFileDialog(this, tr("Open benchmark results"), QString(),
                                       tr("Go benchmark text (*.txt *.bench);;All files (*)"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setFileMode(QFileDialog::ExistingFiles);
        connect(dialog, &QFileDialog::filesSelected, this, &BenchPage::openFiles);
        dialog->open();
    });
    // Asks where to save (without a nested event loop), then writes and says how it went.
    auto askAndSave = [this](const QString &title, const QString &name, const QString &filter,
                             QString (BenchPage::*save)(const QString &) const) {
        auto *dialog = new QFileDialog(this, title, name, filter);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setAcceptMode(QFileDialog::AcceptSave);
        connect(dialog, &QFileDialog::fileSelected, this, [this, save](const QString &path) {
            const QString error = (this->*save)(path);
            Q_EMIT notify(error.isEmpty() ? tr("Saved %1").arg(path) : error, !error.isEmpty());
        });
        dialog->open();
    };
    connect(saveResults, &QPushButton::clicked, this, [=, this] {
        askAndSave(tr("Save results"), QStringLiteral("results.txt"),
                   tr("Go benchmark text (*.txt);;benchstat JSON (*.json);;benchstat CSV (*.csv)"),
                   &BenchPage::saveResults);
    });
    connect(saveChart, &QPushButton::clicked, this, [=, this] {
        askAndSave(tr("Save chart"), QStringLiteral("chart.png"), tr("PNG image (*.png);;SVG drawing (*.svg)"),
                   &BenchPage::saveChart);
    });
    return box;
}

void BenchPage::setRunOptions(const QString &sizes, int count, const QString &benchtime)
{
    m_sizes->setText(sizes);
    m_count->setValue(count);
    m_benchtime->setText(benchtime);
}

QChartView *BenchPage::chartView(int which) const
{
    return m_views[std::size_t(which)];
}

void BenchPage::showSets(std::vector<BenchSet> sets)
{
    m_sets = std::move(sets);
    m_views[0]->setChart(throughputChart(m_sets)); // the view owns and deletes the old chart
    m_views[1]->setChart(latencyChart(m_sets));
    m_views[2]->setChart(allocationChart(m_sets, "B/op"));
    m_views[3]->setChart(allocationChart(m_sets, "allocs/op"));
    std::vector<BenchstatInput> inputs;
    for (const auto &set : m_sets)
        inputs.push_back({set.label.toStdString(), set.results});
    m_comparison->setReport(benchstat(inputs));
    // What to read the numbers with: a line per flag, its set named when there are two.
    QStringList lines;
    for (const auto &set : m_sets)
        for (const auto &f : set.flags) {
            QString line = QStringLiteral("⚠ ");
            if (m_sets.size() > 1)
                line += set.label + QStringLiteral(": ");
            if (!f.benchmark.empty())
                line += QString::fromStdString(f.benchmark) + QStringLiteral(": ");
            lines << line + QString::fromStdString(f.detail);
        }
    m_flags->setText(lines.join(QLatin1Char('\n')));
    m_flags->setVisible(!lines.isEmpty());
}

void BenchPage::drawTimeline()
{
    // The view deletes the old one.
    m_timelineView->setChart(timelineChart(m_timeline, m_timelineTargets, m_timelineSideBySide));
    ++m_timelineDraws;
}

void BenchPage::openFiles(const QStringList &paths)
{
    std::vector<BenchSet> sets;
    QStringList problems;
    m_timeline.clear();
    m_timelineTargets.clear();
    m_timelineSideBySide = false;
    for (const auto &path : paths) {
        auto loaded = loadBenchFile(path);
        if (loaded.set) {
            // The timeline saved beside it, if any: its points as this set's.
            // A run from many hosts has a line per host and one for all: each its own.
            QFile side(historyTimelinePath(path));
            std::vector<std::string> names;
            if (side.open(QIODevice::ReadOnly)) {
                const QByteArray text = side.readAll();
                const int first = int(m_timelineTargets.size());
                for (auto p : parseTimelineCsv(std::string_view(text.constData(), std::size_t(text.size())), &names)) {
                    p.target = names.size() > 1 ? first + p.target : first;
                    m_timeline.push_back(std::move(p));
                }
            }
            if (names.size() > 1) {
                m_timelineSideBySide = true;
                for (const auto &n : names)
                    m_timelineTargets << loaded.set->label + QStringLiteral(" · ") + QString::fromStdString(n);
            } else {
                m_timelineTargets << loaded.set->label;
            }
            sets.push_back(std::move(*loaded.set));
        } else {
            problems << loaded.error;
        }
        problems << loaded.warnings;
    }
    drawTimeline();
    if (!sets.empty())
        showSets(std::move(sets));
    m_status->setText(problems.isEmpty() ? tr("Showing %1").arg(paths.join(QStringLiteral(", ")))
                                         : problems.join(QLatin1Char('\n')));
}

void BenchPage::startRun()
{
    if (running())
        return;
    BenchOptions options;
    options.ops.clear();
    for (auto *check : m_ops)
        if (check->isChecked())
            options.ops.push_back(BenchOp(check->property("op").toInt()));
    options.sizes.clear();
    for (const auto &part : m_sizes->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        BenchResult probe;
        probe.name = "x/" + part.trimmed().toStdString();
        const auto size = benchKey(probe).size;
        if (size == 0) {
            m_status->setText(tr("'%1' is not a size like 4KiB or 16MiB").arg(part.trimmed()));
            return;
        }
        options.sizes.push_back(size);
    }
    options.count = m_count->value();
    const auto benchtime = parseDuration(m_benchtime->text().toStdString(), std::chrono::minutes(10));
    options.concurrency.clear();
    for (const auto &part : m_concurrency->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (const int c = part.trimmed().toInt(); c > 0 && c <= 256)
            options.concurrency.push_back(c);
    if (options.ops.empty() || options.sizes.empty() || !benchtime || options.concurrency.empty()) {
        m_status->setText(tr(
            "Choose at least one operation, sizes like 4KiB,1MiB, a time like 1s or 500ms and a concurrency like 1,4"));
        return;
    }
    options.benchtime = *benchtime;
    QString problem;
    auto plan = hostsPlan(problem);
    if (!problem.isEmpty()) {
        m_status->setText(problem);
        return;
    }
    if (plan) {
        const bool deletes = std::find(options.ops.begin(), options.ops.end(), BenchOp::Delete) != options.ops.end();
        if (deletes || !m_targetB->text().trimmed().isEmpty()) {
            m_status->setText(tr("Runs from many hosts are fixed-time, on one connection: untick Delete and leave "
                                 "Connection B empty"));
            return;
        }
        QStringList ops;
        for (auto op : options.ops)
            ops << QString::fromStdString(std::string(benchName(op))).toLower();
        QStringList concurrency;
        for (int c : options.concurrency)
            concurrency << QString::number(c);
        const auto ms =
            std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(*benchtime).count());
        plan->args = {"--ops",         ops.join(QLatin1Char(',')).toStdString(),
                      "--sizes",       m_sizes->text().remove(QLatin1Char(' ')).toStdString(),
                      "--count",       std::to_string(options.count),
                      "--duration",    std::to_string(ms) + "ms",
                      "--concurrency", concurrency.join(QLatin1Char(',')).toStdString()};
        plan->duration = std::chrono::milliseconds(ms);
        plan->interval = std::chrono::milliseconds(250); // four redraws a second
        m_timeline.clear();
        m_timelineTargets = {tr("all hosts")};
        for (const auto &h : plan->hosts)
            m_timelineTargets << QString::fromStdString(h.name);
        m_timelineSideBySide = true;
        drawTimeline();
        m_hostsView->say(tr("Running on %n host(s)…", nullptr, int(plan->hosts.size())));
        m_progress->setRange(
            0, int(options.count * options.sizes.size() * options.ops.size() * options.concurrency.size()));
        m_progress->setValue(0);
        m_status->setText(tr("Reaching %n host(s), then running on all at once…", nullptr, int(plan->hosts.size())));
        m_tabs->setCurrentWidget(m_timelineView);
        setRunning(true);
        m_job->startHosts(std::move(*plan));
        return;
    }
    std::vector<std::string> uris{m_targetA->text().trimmed().toStdString()};
    if (!m_targetB->text().trimmed().isEmpty())
        uris.push_back(m_targetB->text().trimmed().toStdString());
    // Fixed-time runs draw the timeline (deletes need their objects made beforehand, as
    // many as the iterations: they keep Go's way).
    const bool deletes = std::find(options.ops.begin(), options.ops.end(), BenchOp::Delete) != options.ops.end();
    m_timeline.clear();
    m_timelineTargets.clear();
    m_timelineSideBySide = false;
    for (const auto &uri : uris)
        m_timelineTargets << QString::fromStdString(uri);
    if (m_fixedTime->isChecked() && !deletes) {
        options.duration = *benchtime;
        options.timelineInterval = std::chrono::milliseconds(250); // four redraws a second
    }
    drawTimeline();
    const int total =
        int(uris.size() * options.count * options.sizes.size() * options.ops.size() * options.concurrency.size());
    m_progress->setRange(0, total);
    m_progress->setValue(0);
    m_status->setText(m_fixedTime->isChecked() && deletes
                          ? tr("Running (deletes are timed by operation counts: no timeline for this run)…")
                          : tr("Running…"));
    if (options.timelineInterval.count() > 0)
        m_tabs->setCurrentWidget(m_timelineView);
    setRunning(true);
    m_job->start(std::move(uris), std::move(options));
}

bool BenchPage::running() const
{
    return m_job->running();
}

void BenchPage::stopRun()
{
    m_job->stop();
    m_status->setText(tr("Stopping: removing what the run wrote…"));
}

void BenchPage::setRunning(bool running)
{
    m_run->setEnabled(!running);
    m_testHosts->setEnabled(!running);
    m_stop->setEnabled(running);
}

std::optional<FleetPlan> BenchPage::hostsPlan(QString &problem) const
{
    const QString text = m_hosts->text().trimmed();
    if (text.isEmpty())
        return std::nullopt;
    auto hosts = parseFleetHosts(text.toStdString());
    if (!hosts) {
        problem = QString::fromStdString(hosts.error().message());
        return std::nullopt;
    }
    auto via = splitCommand(m_hostsVia->text().trimmed().toStdString());
    if (!via || via->empty()) {
        problem = tr("Reach with takes a command, like ssh or ssh -F ~/.ssh/bench_config");
        return std::nullopt;
    }
    const QString strata = m_hostsStrata->text().trimmed();
    if (strata.isEmpty()) {
        problem = tr("Say where strata is on the hosts (strata, if it is on their PATH)");
        return std::nullopt;
    }
    FleetPlan plan;
    plan.hosts = std::move(*hosts);
    plan.launcher = std::move(*via);
    plan.strataPath = strata.toStdString();
    plan.version = QCoreApplication::applicationVersion().toStdString();
    plan.uri = m_targetA->text().trimmed().toStdString();
    plan.env = fleetEnvironment();
    return plan;
}

void BenchPage::testHosts()
{
    if (running())
        return;
    QString problem;
    auto plan = hostsPlan(problem);
    if (!plan) {
        m_hostsView->say(problem.isEmpty() ? tr("Name the hosts first, like bench@node1, node2:2222") : problem);
        m_tabs->setCurrentWidget(m_hostsView);
        return;
    }
    m_hostsView->say(tr("Reaching %n host(s)…", nullptr, int(plan->hosts.size())));
    m_tabs->setCurrentWidget(m_hostsView);
    setRunning(true);
    m_job->checkHosts(std::move(*plan));
}

void BenchPage::showChecked(const std::vector<FleetHostReport> &hosts)
{
    setRunning(false);
    bool allReady = false;
    const QString summary = m_hostsView->showChecked(hosts, allReady);
    Q_EMIT notify(summary, !allReady);
}

void BenchPage::runDone(const QString &error, const std::vector<BenchSet> &sets)
{
    setRunning(false);
    if (!error.isEmpty()) {
        m_status->setText(error);
        Q_EMIT runFinished(false, error);
        return;
    }
    showSets(sets);
    refreshHistory();
    m_status->setText(tr("Done: %n run(s)", nullptr, m_progress->value()));
    Q_EMIT runFinished(true, m_status->text());
}

// Each saved run by its label, target and local time ("nightly — s3://b/ · 2026-12-02
// 21:30:05"), read from its first line and the time its name starts with.
void BenchPage::refreshHistory()
{
    const QSignalBlocker quiet(m_history); // a cleared selection is no choice of the user
    m_history->clear();
    QDir dir(QString::fromStdString(benchHistoryDir()));
    for (const QFileInfo &f : dir.entryInfoList({QStringLiteral("*.txt")}, QDir::Files, QDir::Time)) {
        QFile file(f.absoluteFilePath());
        std::optional<HistoryHeader> header;
        if (file.open(QIODevice::ReadOnly))
            header = parseHistoryHeader(file.readLine(4096).toStdString());
        const QString stem = f.completeBaseName();
        QDateTime when = QDateTime::fromString(stem.left(15), QStringLiteral("yyyyMMdd-HHmmss"));
        when.setTimeSpec(Qt::UTC);
        QString text;
        if (header) {
            const QString target = QString::fromStdString(header->target);
            text =
                header->label.empty() ? target : QString::fromStdString(header->label) + QStringLiteral(" — ") + target;
        } else {
            text = stem;
        }
        if (when.isValid())
            text += QStringLiteral(" · ") + when.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        auto *item = new QListWidgetItem(text, m_history);
        item->setData(Qt::UserRole, f.absoluteFilePath());
        item->setToolTip(f.absoluteFilePath());
    }
}

QString BenchPage::renameHistory(const QString &path, const QString &label)
{
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly))
        return tr("cannot read %1: %2").arg(path, in.errorString());
    const std::string text = relabelHistory(in.readAll().toStdString(), label.simplified().toStdString());
    in.close();
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(QByteArray::fromStdString(text)) < 0 || !out.commit())
        return tr("cannot rename %1: %2").arg(path, out.errorString());
    refreshHistory();
    return {};
}

QString BenchPage::deleteHistory(const QStringList &paths)
{
    QStringList failed;
    for (const QString &path : paths) {
        if (!QFile::remove(path))
            failed << path;
        QFile::remove(historyTimelinePath(path)); // its timeline, where it has one
    }
    refreshHistory();
    return failed.isEmpty() ? QString() : tr("cannot delete %1").arg(failed.join(QStringLiteral(", ")));
}

void BenchPage::askRenameHistory()
{
    auto *item = m_history->currentItem();
    if (!item)
        return;
    const QString path = item->data(Qt::UserRole).toString();
    QString current;
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        if (auto h = parseHistoryHeader(file.readLine(4096).toStdString()))
            current = QString::fromStdString(h->label);
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Rename run"));
    dialog->setLabelText(tr("Label of this run:"));
    dialog->setTextValue(current);
    connect(dialog, &QInputDialog::textValueSelected, this, [this, path](const QString &label) {
        const QString error = renameHistory(path, label);
        if (!error.isEmpty())
            Q_EMIT notify(error, true);
    });
    dialog->open();
}

void BenchPage::askDeleteHistory()
{
    QStringList paths;
    for (auto *item : m_history->selectedItems())
        paths << item->data(Qt::UserRole).toString();
    if (paths.isEmpty())
        return;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Delete runs"),
                                tr("Delete %n saved run(s) from the history?", nullptr, int(paths.size())),
                                QMessageBox::Cancel, this);
    box->addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [this, box, paths](QAbstractButton *button) {
        if (box->buttonRole(button) != QMessageBox::DestructiveRole)
            return;
        const QString error = deleteHistory(paths);
        Q_EMIT notify(error.isEmpty() ? tr("Deleted %n run(s)", nullptr, int(paths.size())) : error, !error.isEmpty());
    });
    box->open();
}

QString BenchPage::saveResults(const QString &path) const
{
    if (m_sets.empty())
        return tr("there are no results to save yet");
    std::string text;
    if (path.endsWith(QLatin1String(".json")) || path.endsWith(QLatin1String(".csv"))) {
        text = path.endsWith(QLatin1String(".json")) ? formatBenchstatJson(m_comparison->report())
                                                     : formatBenchstatCsv(m_comparison->report());
    } else {
        for (const auto &set : m_sets)
            text += formatGoBench(set.results);
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(QByteArray::fromStdString(text)) < 0 || !out.commit())
        return tr("cannot save %1: %2").arg(path, out.errorString());
    return {};
}

QString BenchPage::saveChart(const QString &path) const
{
    auto *view = qobject_cast<QChartView *>(m_tabs->currentWidget());
    if (!view)
        view = m_views.front();
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(view->size());
        svg.setViewBox(QRect(QPoint(0, 0), view->size()));
        svg.setTitle(view->chart()->title());
        QPainter painter;
        if (!painter.begin(&svg))
            return tr("cannot write %1").arg(path);
        view->render(&painter);
        painter.end();
        return QFileInfo(path).size() > 0 ? QString() : tr("cannot write %1").arg(path);
    }
    if (!view->grab().save(path))
        return tr("cannot write %1 (use .png or .svg)").arg(path);
    return {};
}

void BenchPage::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void BenchPage::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (!paths.isEmpty())
        openFiles(paths);
    event->acceptProposedAction();
}

} // namespace strata

#pragma once

#include "core/bench/bench_fleet.h"
#include "core/storage/registry.h"
#include "ui/bench/bench_charts.h"

#include <QWidget>

#include <memory>
#include <vector>

class QChartView;
class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace strata {

class BenchHostsView;
class BenchJob;
class BenchstatModel;

// The benchmark page: run Strata's benchmark on one or two connections (A and B, taking
// turns run by run) with live progress and Stop, or open / drop Go benchmark files from
// anyone (two sets = a comparison); see throughput, latency spread and allocations as
// charts and benchstat's comparison as a table, fixed-time runs drawn live on a timeline
// (kept beside the saved run); save results (Go text, JSON, CSV) and
// charts (PNG, SVG); pick earlier runs from the history.
class BenchPage : public QWidget {
    Q_OBJECT
public:
    explicit BenchPage(Registry &registry, QWidget *parent = nullptr);
    ~BenchPage() override;

    // Shows these sets (the first is the baseline of the comparison).
    void showSets(std::vector<BenchSet> sets);
    const std::vector<BenchSet> &sets() const { return m_sets; }
    void openFiles(const QStringList &paths);
    void startRun();
    void stopRun();
    bool running() const;

    // Writes the shown results or the current chart; an error is one sentence.
    QString saveResults(const QString &path) const; // .txt Go text, .json / .csv benchstat
    QString saveChart(const QString &path) const;   // .png or .svg

    QChartView *chartView(int which) const; // 0 throughput, 1 latency, 2 B/op, 3 allocs/op
    // The timeline tab: the intervals of the run going (or of the saved runs shown), and
    // how often it was drawn.
    QChartView *timelineView() const { return m_timelineView; }
    const std::vector<TimelinePoint> &timeline() const { return m_timeline; }
    int timelineDraws() const { return m_timelineDraws; }
    QCheckBox *fixedTimeBox() const { return m_fixedTime; }
    BenchstatModel *comparison() const { return m_comparison; }
    QLineEdit *targetEdit(int which) const { return which == 0 ? m_targetA : m_targetB; }
    // Runs from many hosts (bench_fleet.h): the hosts ("user@host:port, …"), the command
    // that reaches them (ssh by default) and the strata there; Test reaches each and says
    // what it found (hostsView()); after a run the Hosts tab has a row per case for all
    // hosts and for each host, and the timeline a line for each.
    QLineEdit *hostsEdit() const { return m_hosts; }
    QLineEdit *hostsViaEdit() const { return m_hostsVia; }
    QLineEdit *hostsStrataEdit() const { return m_hostsStrata; }
    void testHosts();
    BenchHostsView *hostsView() const { return m_hostsView; }
    QLabel *statusLabel() const { return m_status; }
    void setRunOptions(const QString &sizes, int count, const QString &benchtime);
    // The history list (label, target and local time of each saved run, newest first).
    QListWidget *history() const { return m_history; }
    // The warnings of the results shown (bench_flags.h); hidden when there are none.
    QLabel *flagsLabel() const { return m_flags; }
    // Names the saved run `path` `label` (its header line); "" on success, else why not.
    QString renameHistory(const QString &path, const QString &label);
    // Removes saved runs; "" on success, else why not.
    QString deleteHistory(const QStringList &paths);

Q_SIGNALS:
    void runFinished(bool ok, const QString &message);
    void notify(const QString &message, bool error);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    QWidget *buildControls();
    void refreshHistory();
    void askRenameHistory();
    void askDeleteHistory();
    void runDone(const QString &error, const std::vector<BenchSet> &sets);
    void drawTimeline();
    // The plan for the hosts field, or why there is none (an empty plan without hosts).
    std::optional<FleetPlan> hostsPlan(QString &problem) const;
    void showChecked(const std::vector<FleetHostReport> &hosts);
    void setRunning(bool running);

    Registry &m_registry;
    std::vector<BenchSet> m_sets;
    QLineEdit *m_targetA, *m_targetB, *m_sizes, *m_benchtime, *m_concurrency;
    std::vector<QCheckBox *> m_ops;
    QSpinBox *m_count;
    QPushButton *m_run, *m_stop;
    QProgressBar *m_progress;
    QLabel *m_status;
    QListWidget *m_history;
    QLabel *m_flags;
    QTabWidget *m_tabs;
    std::vector<QChartView *> m_views;
    QTableView *m_table;
    BenchstatModel *m_comparison;
    BenchJob *m_job;
    QCheckBox *m_fixedTime;
    QChartView *m_timelineView;
    std::vector<TimelinePoint> m_timeline;
    QStringList m_timelineTargets;
    int m_timelineDraws = 0;
    bool m_timelineSideBySide = false; // the targets ran at once (hosts)
    QLineEdit *m_hosts, *m_hostsVia, *m_hostsStrata;
    QPushButton *m_testHosts;
    BenchHostsView *m_hostsView;
};

} // namespace strata

#pragma once

#include "core/bench/bench_fleet.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTableWidget;

namespace strata {

// The bench page's Hosts tab (runs from many hosts, bench_fleet.h): a status above a table.
// After a run, a row per case for all hosts (bold) and then for each host, with the
// medians of its runs (ops/s, MB/s, p50, p99) and its share of all; above it the start
// skew, the clocks, and each host's lateness or why it left. After a Test, each host's
// strata, version and clock, or why it could not be reached.
class BenchHostsView : public QWidget {
    Q_OBJECT
public:
    explicit BenchHostsView(QWidget *parent = nullptr);

    void say(const QString &text); // a status line, the table emptied
    void showReport(const FleetReport &report);
    // What checkFleet found; returns the summary line ("2 of 3 host(s) ready:").
    QString showChecked(const std::vector<FleetHostReport> &hosts, bool &allReady);

    QTableWidget *table() const { return m_table; }
    QLabel *status() const { return m_status; }

private:
    QLabel *m_status;
    QTableWidget *m_table;
};

} // namespace strata

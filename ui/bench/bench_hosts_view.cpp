#include "ui/bench/bench_hosts_view.h"

#include "core/bench/benchstat.h"
#include "core/storage/printable.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace strata {

BenchHostsView::BenchHostsView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_status = new QLabel(tr("Runs from many hosts at once show each host here."), this);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_table = new QTableWidget(0, 8, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Benchmark"), tr("Host"), tr("Runs"), tr("ops/s"), tr("MB/s"), tr("p50"), tr("p99"), tr("Share")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
}

void BenchHostsView::say(const QString &text)
{
    m_table->setRowCount(0);
    m_status->setText(text);
}

QString BenchHostsView::showChecked(const std::vector<FleetHostReport> &hosts, bool &allReady)
{
    QStringList lines;
    int ok = 0;
    for (const auto &h : hosts) {
        if (h.failure.empty()) {
            ++ok;
            lines << tr("✓ %1 (%2): strata %3, clock %4 ms from ours (± %5 ms)")
                         .arg(QString::fromStdString(h.name), QString::fromStdString(printable(h.hostname)),
                              QString::fromStdString(printable(h.version)))
                         .arg(double(h.clock.offset) / 1e6, 0, 'f', 2)
                         .arg(double(h.clock.uncertainty) / 1e6, 0, 'f', 2);
        } else {
            lines << tr("✗ %1: %2").arg(QString::fromStdString(h.name), QString::fromStdString(h.failure));
        }
    }
    lines.prepend(tr("%1 of %n host(s) ready:", nullptr, int(hosts.size())).arg(ok));
    m_status->setText(lines.join(QLatin1Char('\n')));
    allReady = ok == int(hosts.size());
    return lines.front();
}

void BenchHostsView::showReport(const FleetReport &report)
{
    // A row per case for all hosts, then one per host: medians of its runs.
    struct Row {
        QString benchmark, host;
        std::vector<const BenchRun *> runs;
    };
    std::vector<Row> rows;
    const auto rowOf = [&](const BenchRun &r, const QString &host) -> Row & {
        const QString name = QString::fromStdString(r.name);
        for (auto &row : rows)
            if (row.benchmark == name && row.host == host)
                return row;
        rows.push_back({name, host, {}});
        return rows.back();
    };
    for (const auto &r : report.merged)
        rowOf(r, tr("all")).runs.push_back(&r);
    for (const auto &h : report.hosts)
        for (const auto &r : h.runs)
            rowOf(r, QString::fromStdString(h.name)).runs.push_back(&r);
    // Cases in the order they ran, all hosts first in each.
    QStringList order;
    for (const auto &row : rows)
        if (!order.contains(row.benchmark))
            order << row.benchmark;
    std::stable_sort(rows.begin(), rows.end(), [&](const Row &a, const Row &b) {
        return order.indexOf(a.benchmark) < order.indexOf(b.benchmark);
    });
    const auto micros = [](double ns) {
        return ns > 0 ? tr("%1 µs").arg(ns / 1e3, 0, 'f', ns < 1e4 ? 2 : 0) : QString();
    };
    m_table->setRowCount(int(rows.size()));
    double allRate = 0;
    for (int i = 0; i < int(rows.size()); ++i) {
        const Row &row = rows[std::size_t(i)];
        std::vector<double> rate, mb, p50, p99;
        for (const BenchRun *r : row.runs) {
            rate.push_back(r->nsPerOp > 0 ? 1e9 / r->nsPerOp : 0);
            mb.push_back(r->mbPerSecond);
            p50.push_back(double(r->latency.p50));
            p99.push_back(double(r->latency.p99));
        }
        const double ops = median(rate);
        if (row.host == tr("all"))
            allRate = ops;
        const QStringList cells{row.benchmark,
                                row.host,
                                QString::number(row.runs.size()),
                                QString::number(ops, 'f', ops < 100 ? 1 : 0),
                                mb.empty() || median(mb) == 0 ? QString() : QString::number(median(mb), 'f', 1),
                                micros(median(p50)),
                                micros(median(p99)),
                                row.host == tr("all") || allRate <= 0
                                    ? QString()
                                    : QStringLiteral("%1 %").arg(100 * ops / allRate, 0, 'f', 0)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            if (c >= 2)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (row.host == tr("all")) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            m_table->setItem(i, c, item);
        }
    }
    QStringList lines{tr("Start skew at most %1 ms; clocks read within %2 ms.")
                          .arg(double(report.largestSkew) / 1e6, 0, 'f', 2)
                          .arg(double(report.clockWithin) / 1e6, 0, 'f', 2)};
    for (const auto &h : report.hosts) {
        std::int64_t late = 0;
        for (auto ns : h.late)
            late = std::max(late, ns);
        lines << (h.failure.empty()
                      ? tr("%1 (%2): %n run(s), each started at most %3 ms late", nullptr, int(h.runs.size()))
                            .arg(QString::fromStdString(h.name), QString::fromStdString(printable(h.hostname)))
                            .arg(double(late) / 1e6, 0, 'f', 2)
                      : tr("%1: left: %2").arg(QString::fromStdString(h.name), QString::fromStdString(h.failure)));
    }
    m_status->setText(lines.join(QLatin1Char('\n')));
}

} // namespace strata

#pragma once

#include "core/bench/benchstat.h"

#include <QAbstractTableModel>

namespace strata {

// benchstat's comparison as a table: per unit a heading row, one row per benchmark with
// each input's median ± confidence interval and, for every input after the first, the
// change against the first ("~" when not significant) and the test's p-value; then the
// geomean row. Changes are coloured by direction (green better, red worse) when
// significant, grey when not.
class BenchstatModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit BenchstatModel(QObject *parent = nullptr);

    void setReport(BenchstatReport report);
    const BenchstatReport &report() const { return m_report; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Row {
        int table = 0;
        int row = -1; // -1: the unit's heading, -2: geomean
    };
    // Column c: 0 name; then per input i: value (and for i > 0, delta and p).
    struct Column {
        int input = 0;
        enum { Name, Value, Delta, P } what = Name;
    };
    Column column(int c) const;
    QString cellText(const BenchstatTable &t, const Row &r, const Column &c) const;
    QVariant cellColor(const BenchstatTable &t, const Row &r, const Column &c) const;

    BenchstatReport m_report;
    std::vector<Row> m_rows;
};

} // namespace strata

#include "ui/bench/benchstat_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace strata {

BenchstatModel::BenchstatModel(QObject *parent) : QAbstractTableModel(parent) {}

void BenchstatModel::setReport(BenchstatReport report)
{
    beginResetModel();
    m_report = std::move(report);
    m_rows.clear();
    for (int t = 0; t < int(m_report.tables.size()); ++t) {
        m_rows.push_back({t, -1});
        for (int r = 0; r < int(m_report.tables[std::size_t(t)].rows.size()); ++r)
            m_rows.push_back({t, r});
        m_rows.push_back({t, -2});
    }
    endResetModel();
}

int BenchstatModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int BenchstatModel::columnCount(const QModelIndex &parent) const
{
    const int inputs = int(m_report.labels.size());
    return parent.isValid() || inputs == 0 ? 0 : 1 + 1 + 3 * (inputs - 1);
}

BenchstatModel::Column BenchstatModel::column(int c) const
{
    if (c == 0)
        return {0, Column::Name};
    if (c == 1)
        return {0, Column::Value};
    const int rest = c - 2;
    return {1 + rest / 3, rest % 3 == 0 ? Column::Value : rest % 3 == 1 ? Column::Delta : Column::P};
}

QVariant BenchstatModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const Column c = column(section);
    switch (c.what) {
    case Column::Name: return tr("Benchmark");
    case Column::Value: return QString::fromStdString(m_report.labels[std::size_t(c.input)]);
    case Column::Delta: return tr("vs %1").arg(QString::fromStdString(m_report.labels.front()));
    case Column::P: return tr("p-value");
    }
    return {};
}

QString BenchstatModel::cellText(const BenchstatTable &t, const Row &r, const Column &c) const
{
    // The table's own column for an input, if the input has results in it.
    int col = -1;
    for (int i = 0; i < int(t.columns.size()); ++i)
        if (t.columns[std::size_t(i)] == c.input)
            col = i;
    const bool binary = isBinaryUnit(t.unit);
    if (r.row == -1)
        return c.what == Column::Name ? QString::fromStdString(t.unit) : QString();
    if (r.row == -2) {
        if (c.what == Column::Name)
            return tr("geomean");
        if (col < 0)
            return {};
        const auto &g = t.geomean[std::size_t(col)];
        if (c.what == Column::Value)
            return g.center ? QString::fromStdString(scaleValue(*g.center, binary)) : QString();
        if (c.what == Column::Delta && g.ratio)
            return QStringLiteral("%1%2%")
                .arg(*g.ratio >= 1 ? QStringLiteral("+") : QString())
                .arg((*g.ratio - 1) * 100, 0, 'f', 2);
        return {};
    }
    if (c.what == Column::Name)
        return QString::fromStdString(t.rows[std::size_t(r.row)]);
    if (col < 0)
        return {};
    const auto &cell = t.cells[std::size_t(r.row)][std::size_t(col)];
    if (!cell)
        return {};
    switch (c.what) {
    case Column::Value:
        return QString::fromStdString(scaleValue(cell->summary.center, binary) + " ± " + cell->summary.pctRange());
    case Column::Delta: {
        const auto &base = t.cells[std::size_t(r.row)][0];
        if (!cell->comparison || !base)
            return {};
        return QString::fromStdString(cell->comparison->delta(base->summary.center, cell->summary.center));
    }
    case Column::P: return cell->comparison ? QString::fromStdString(cell->comparison->text()) : QString();
    case Column::Name: break;
    }
    return {};
}

QVariant BenchstatModel::cellColor(const BenchstatTable &t, const Row &r, const Column &c) const
{
    if (c.what != Column::Delta || r.row < 0)
        return {};
    const QString delta = cellText(t, r, c);
    if (delta == QLatin1String("~"))
        return QColor(0x80, 0x80, 0x80);
    if (delta.isEmpty() || t.better == 0 || delta == QLatin1String("?"))
        return {};
    const bool up = delta.startsWith(QLatin1Char('+'));
    const bool better = (up && t.better > 0) || (!up && t.better < 0);
    return better ? QColor(0x1d, 0x6b, 0x2a) : QColor(0xb0, 0x1c, 0x12);
}

QVariant BenchstatModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    const BenchstatTable &t = m_report.tables[std::size_t(r.table)];
    const Column c = column(index.column());
    switch (role) {
    case Qt::DisplayRole: return cellText(t, r, c);
    case Qt::ForegroundRole: return cellColor(t, r, c);
    case Qt::FontRole:
        if (r.row < 0) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::TextAlignmentRole:
        return c.what == Column::Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (c.what == Column::Delta && cellText(t, r, c) == QLatin1String("~"))
            return tr("not a significant difference (p > %1)").arg(m_report.alpha);
        return {};
    }
    return {};
}

} // namespace strata

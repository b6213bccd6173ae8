#pragma once

#include <QSortFilterProxyModel>

#include <string>

namespace strata {

// Filters a DirectoryModel by the text typed in the filter box. It never sorts itself: a
// sort (a header click) goes to the model, which keeps its rows sorted (folders first,
// names in natural order) and sorts a big folder off the GUI thread; the proxy keeps the
// model's order, so rows arriving in a huge folder cost it no sorted insertion.
class DirectoryFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit DirectoryFilterProxy(QObject *parent = nullptr);
    void setSourceModel(QAbstractItemModel *model) override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    // Shows the rows whose name contains `text`, without regard to case.
    void setNameFilter(const QString &text);

protected:
    // Reads the names as UTF-8, with no QString made per row for an ASCII filter.
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    class DirectoryModel *m_directory = nullptr;
    QString m_filter;
    std::string m_asciiFilter; // lower case; empty unless the filter is ASCII
};

} // namespace strata

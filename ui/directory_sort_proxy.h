#pragma once

#include <QSortFilterProxyModel>

namespace strata {

// Sorts a DirectoryModel the way file managers do (folders first, names in natural
// order: "file2" before "file10") and filters it by the text typed in the filter box.
class DirectorySortProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit DirectorySortProxy(QObject *parent = nullptr);
    void setSourceModel(QAbstractItemModel *model) override;

protected:
    // On a DirectoryModel, compares the entries themselves (names as UTF-8, sizes, times):
    // a million-row folder is sorted with no QVariant or QString made per comparison.
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    const class DirectoryModel *m_directory = nullptr;
};

} // namespace strata

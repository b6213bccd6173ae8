#pragma once

#include <QSortFilterProxyModel>

namespace strata {

// Sorts a DirectoryModel the way file managers do (folders first, names in natural
// order: "file2" before "file10") and filters it by the text typed in the filter box.
class DirectorySortProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit DirectorySortProxy(QObject *parent = nullptr);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace strata

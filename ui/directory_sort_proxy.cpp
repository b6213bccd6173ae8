#include "ui/directory_sort_proxy.h"

#include "ui/directory_model.h"


namespace strata {

namespace {

// Natural order, whatever the locale: runs of digits compare as numbers ("file2" before
// "file10"), letters without regard to case.
int naturalCompare(const QString &a, const QString &b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype ie = i, je = j;
            while (ie < a.size() && a[ie].isDigit())
                ++ie;
            while (je < b.size() && b[je].isDigit())
                ++je;
            // Compare as numbers without overflow: strip leading zeros, longer is larger.
            qsizetype is = i, js = j;
            while (is + 1 < ie && a[is] == QLatin1Char('0'))
                ++is;
            while (js + 1 < je && b[js] == QLatin1Char('0'))
                ++js;
            if (ie - is != je - js)
                return ie - is < je - js ? -1 : 1;
            if (int c = QStringView(a).mid(is, ie - is).compare(QStringView(b).mid(js, je - js)); c != 0)
                return c;
            i = ie;
            j = je;
            continue;
        }
        const QChar x = a[i].toCaseFolded(), y = b[j].toCaseFolded();
        if (x != y)
            return x < y ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size())
        return i < a.size() ? 1 : -1;
    return a.compare(b); // equal but for case: a stable order still
}

} // namespace

DirectorySortProxy::DirectorySortProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(DirectoryModel::SortRole);
    setFilterKeyColumn(DirectoryModel::Name);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

bool DirectorySortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool leftDir = left.data(DirectoryModel::IsDirRole).toBool();
    const bool rightDir = right.data(DirectoryModel::IsDirRole).toBool();
    if (leftDir != rightDir)
        return sortOrder() == Qt::AscendingOrder ? leftDir : rightDir; // folders stay on top
    if (left.column() == DirectoryModel::Name || left.column() == DirectoryModel::Kind) {
        const int c = naturalCompare(left.data(sortRole()).toString(), right.data(sortRole()).toString());
        if (c != 0 || left.column() == DirectoryModel::Name)
            return c < 0;
        return naturalCompare(left.siblingAtColumn(DirectoryModel::Name).data(sortRole()).toString(),
                              right.siblingAtColumn(DirectoryModel::Name).data(sortRole()).toString()) < 0;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace strata

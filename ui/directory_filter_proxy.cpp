#include "ui/directory_filter_proxy.h"

#include "ui/directory_model.h"

#include <algorithm>
#include <string_view>

namespace strata {

namespace {

char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

} // namespace

DirectoryFilterProxy::DirectoryFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setFilterKeyColumn(DirectoryModel::Name);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true); // rows arriving or changing are filtered; the proxy never sorts
}

void DirectoryFilterProxy::setSourceModel(QAbstractItemModel *model)
{
    m_directory = qobject_cast<DirectoryModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

void DirectoryFilterProxy::sort(int column, Qt::SortOrder order)
{
    if (m_directory)
        m_directory->sort(column, order);
    else
        QSortFilterProxyModel::sort(column, order);
}

void DirectoryFilterProxy::setNameFilter(const QString &text)
{
    if (text == m_filter)
        return;
    m_filter = text;
    m_asciiFilter.clear();
    if (std::all_of(text.begin(), text.end(), [](QChar c) { return c.unicode() < 0x80; })) {
        m_asciiFilter = text.toStdString();
        std::transform(m_asciiFilter.begin(), m_asciiFilter.end(), m_asciiFilter.begin(), asciiLower);
    }
    // Rebuilt in one pass, not row intervals added and removed one by one: a filter that
    // keeps rows scattered over a million costs O(rows), not O(rows × intervals).
    invalidate();
}

bool DirectoryFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_filter.isEmpty())
        return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
    const ListedEntry *e = m_directory ? m_directory->rowAt(sourceRow) : nullptr;
    if (!e)
        return sourceModel()
            ->index(sourceRow, DirectoryModel::Name, sourceParent)
            .data()
            .toString()
            .contains(m_filter, Qt::CaseInsensitive);
    if (!m_asciiFilter.empty()) {
        const std::string_view name = e->name();
        return std::search(name.begin(), name.end(), m_asciiFilter.begin(), m_asciiFilter.end(),
                           [](char a, char b) { return asciiLower(a) == b; })
            != name.end();
    }
    const std::string_view name = e->name();
    return QString::fromUtf8(name.data(), qsizetype(name.size())).contains(m_filter, Qt::CaseInsensitive);
}

} // namespace strata

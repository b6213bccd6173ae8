#include "ui/directory_sort_proxy.h"

#include "ui/directory_model.h"

#include <string_view>

namespace strata {

namespace {

// The next code point of UTF-8 text (a stray byte stands for itself).
char32_t nextCodePoint(std::string_view s, std::size_t &i)
{
    const auto c = static_cast<unsigned char>(s[i++]);
    if (c < 0xC0) // ASCII, or a continuation byte out of place
        return c;
    const int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    char32_t cp = c & (0x3F >> more);
    for (int k = 0; k < more && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3F);
    return cp;
}

bool isAsciiDigit(char c)
{
    return c >= '0' && c <= '9';
}

// naturalCompare on UTF-8 names: the same order (runs of ASCII digits as numbers, letters
// case-folded), without converting either name.
int naturalCompareUtf8(std::string_view a, std::string_view b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (isAsciiDigit(a[i]) && isAsciiDigit(b[j])) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && isAsciiDigit(a[ie]))
                ++ie;
            while (je < b.size() && isAsciiDigit(b[je]))
                ++je;
            std::size_t is = i, js = j;
            while (is + 1 < ie && a[is] == '0')
                ++is;
            while (js + 1 < je && b[js] == '0')
                ++js;
            if (ie - is != je - js)
                return ie - is < je - js ? -1 : 1;
            if (int c = a.substr(is, ie - is).compare(b.substr(js, je - js)); c != 0)
                return c;
            i = ie;
            j = je;
            continue;
        }
        const char32_t x = QChar::toCaseFolded(nextCodePoint(a, i));
        const char32_t y = QChar::toCaseFolded(nextCodePoint(b, j));
        if (x != y)
            return x < y ? -1 : 1;
    }
    if (i < a.size() || j < b.size())
        return i < a.size() ? 1 : -1;
    return a.compare(b); // equal but for case: a stable order still
}

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

void DirectorySortProxy::setSourceModel(QAbstractItemModel *model)
{
    m_directory = qobject_cast<const DirectoryModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

bool DirectorySortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const Entry *a = m_directory ? m_directory->entryAt(left.row()) : nullptr;
    const Entry *b = m_directory ? m_directory->entryAt(right.row()) : nullptr;
    if (a && b && left.column() != DirectoryModel::Kind) {
        if (a->isDir() != b->isDir())
            return sortOrder() == Qt::AscendingOrder ? a->isDir() : b->isDir(); // folders stay on top
        switch (left.column()) {
        case DirectoryModel::Size:
            return (a->isDir() ? 0 : a->size) < (b->isDir() ? 0 : b->size);
        case DirectoryModel::Modified:
            return a->mtimeNs.value_or(0) < b->mtimeNs.value_or(0);
        default:
            return naturalCompareUtf8(a->name, b->name) < 0;
        }
    }
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

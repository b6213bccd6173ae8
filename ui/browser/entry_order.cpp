#include "ui/browser/entry_order.h"

#include "ui/common/entry_format.h"

#include <QString>

#include <algorithm>

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

// The same natural order on kinds ("PNG image"), which are QStrings.
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
    return a.compare(b);
}

std::string_view nameOf(const Entry &e)
{
    return e.name;
}
std::string_view nameOf(const ListedEntry &e)
{
    return e.name();
}
std::int64_t timeOf(const Entry &e)
{
    return e.mtimeNs.value_or(0);
}
std::int64_t timeOf(const ListedEntry &e)
{
    return e.mtime().value_or(0);
}

// The comparison itself; `kindA`/`kindB` are the entries' kinds when sorting by kind.
template <typename E>
bool entryLess(const E &a, const E &b, int column, Qt::SortOrder order, const QString *kindA, const QString *kindB)
{
    if (a.isDir() != b.isDir())
        return a.isDir();
    int c = 0;
    switch (column) {
    case EntryOrder::Size: {
        const std::uint64_t x = a.isDir() ? 0 : a.size, y = b.isDir() ? 0 : b.size;
        c = x == y ? 0 : x < y ? -1 : 1;
        break;
    }
    case EntryOrder::Modified: {
        const std::int64_t x = timeOf(a), y = timeOf(b);
        c = x == y ? 0 : x < y ? -1 : 1;
        break;
    }
    case EntryOrder::Kind: c = naturalCompare(*kindA, *kindB); break;
    default: break;
    }
    const int byName = c == 0 ? naturalCompareUtf8(nameOf(a), nameOf(b)) : 0;
    if (c == 0 && column != EntryOrder::Name)
        return byName < 0; // ties in size, time or kind: by name, A to Z
    if (c == 0)
        c = byName;
    return order == Qt::AscendingOrder ? c < 0 : c > 0;
}

QString kindOf(const Entry &e)
{
    return kindText(e);
}
QString kindOf(const ListedEntry &e)
{
    return kindText(e.kind, e.name());
}

// Sorts rows; by kind, each row's kind is found once, not once per comparison.
template <typename E>
void sortRows(std::vector<const E *> &rows, int column, Qt::SortOrder order)
{
    if (column != EntryOrder::Kind) {
        std::sort(rows.begin(), rows.end(), [column, order](const E *a, const E *b) {
            return entryLess(*a, *b, column, order, nullptr, nullptr);
        });
        return;
    }
    struct Keyed {
        const E *entry;
        QString kind;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(rows.size());
    for (const E *e : rows)
        keyed.push_back({e, kindOf(*e)});
    std::sort(keyed.begin(), keyed.end(), [column, order](const Keyed &a, const Keyed &b) {
        return entryLess(*a.entry, *b.entry, column, order, &a.kind, &b.kind);
    });
    for (std::size_t i = 0; i < rows.size(); ++i)
        rows[i] = keyed[i].entry;
}

} // namespace

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

bool EntryOrder::operator()(const Entry &a, const Entry &b) const
{
    if (m_column != Kind)
        return entryLess(a, b, m_column, m_order, nullptr, nullptr);
    const QString x = kindOf(a), y = kindOf(b);
    return entryLess(a, b, m_column, m_order, &x, &y);
}

bool EntryOrder::operator()(const ListedEntry &a, const ListedEntry &b) const
{
    if (m_column != Kind)
        return entryLess(a, b, m_column, m_order, nullptr, nullptr);
    const QString x = kindOf(a), y = kindOf(b);
    return entryLess(a, b, m_column, m_order, &x, &y);
}

void EntryOrder::sort(std::vector<const Entry *> &rows) const
{
    sortRows(rows, m_column, m_order);
}

void EntryOrder::sort(std::vector<const ListedEntry *> &rows) const
{
    sortRows(rows, m_column, m_order);
}

void EntryOrder::sort(std::vector<Entry> &entries) const
{
    std::vector<const Entry *> rows(entries.size());
    std::transform(entries.begin(), entries.end(), rows.begin(), [](const Entry &e) { return &e; });
    sort(rows);
    std::vector<Entry> sorted;
    sorted.reserve(entries.size());
    for (const Entry *e : rows)
        sorted.push_back(std::move(entries[std::size_t(e - entries.data())]));
    entries = std::move(sorted);
}

} // namespace strata

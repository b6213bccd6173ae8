#pragma once

#include "core/storage/entry.h"
#include "ui/browser/listed_page.h"

#include <Qt>

#include <vector>

namespace strata {

// The order of a browser's rows, as file managers sort: folders first (in either
// direction), then the column's value (names in natural order: "file2" before "file10",
// letters without regard to case), then the name. One comparison for the listing thread
// that sorts each page, the model that merges pages, and a sort by a header click.
// Usable on any thread.
class EntryOrder {
public:
    // Columns as DirectoryModel numbers them.
    enum Column { Name, Size, Modified, Kind };

    EntryOrder() = default;
    EntryOrder(int column, Qt::SortOrder order) : m_column(column), m_order(order) {}

    int column() const { return m_column; }
    Qt::SortOrder order() const { return m_order; }
    // Column and direction in one number, for an atomic shared with the listing thread.
    int key() const { return m_column * 2 + (m_order == Qt::DescendingOrder); }
    static EntryOrder fromKey(int key) { return {key / 2, key % 2 ? Qt::DescendingOrder : Qt::AscendingOrder}; }
    bool operator==(const EntryOrder &other) const = default;

    bool operator()(const Entry &a, const Entry &b) const;
    bool operator()(const Entry *a, const Entry *b) const { return (*this)(*a, *b); }
    bool operator()(const ListedEntry &a, const ListedEntry &b) const;
    bool operator()(const ListedEntry *a, const ListedEntry *b) const { return (*this)(*a, *b); }
    // Sorts rows; by kind, each row's kind is found once, not once per comparison.
    void sort(std::vector<const Entry *> &rows) const;
    void sort(std::vector<const ListedEntry *> &rows) const;
    void sort(std::vector<Entry> &entries) const;

private:
    int m_column = Name;
    Qt::SortOrder m_order = Qt::AscendingOrder;
};

// Natural order on UTF-8 names: runs of ASCII digits as numbers, letters case-folded;
// names equal but for case in byte order, so only equal names tie.
int naturalCompareUtf8(std::string_view a, std::string_view b);

} // namespace strata

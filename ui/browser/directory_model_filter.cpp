// DirectoryModel's name filter: the rows shown under it, worked out off the GUI thread for
// a big folder, and swapped in with one layout change.
#include "ui/browser/directory_model.h"
#include "ui/browser/directory_model_work.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata {

using directory_model_work::freeElsewhere;
using directory_model_work::kSmallFolder;

void DirectoryModel::setNameFilter(const QString &text)
{
    NameFilter wanted(text);
    if (wanted == m_nameFilter)
        return;
    m_nameFilter = std::move(wanted);
    refilter();
    Q_EMIT stateChanged();
}

// Filters the rows: a small folder at once, a big one on a worker thread (a million names
// take 10-30 ms), whose result is shown only if the filter and the order are still the
// wanted ones (else it filters again). The rows do not change meanwhile (m_work).
void DirectoryModel::refilter()
{
    if (!m_nameFilter.active() && !m_shown) {
        m_refilterWanted = false; // no filter, none shown
        return;
    }
    if (m_work != Work::None) {
        m_refilterWanted = true;
        return;
    }
    m_refilterWanted = false;
    if (!m_nameFilter.active()) {
        showRows(nullptr, nullptr); // all rows again
        return;
    }
    const auto filtered = [](const Rows &all, const NameFilter &filter) {
        auto rows = std::make_shared<Rows>();
        for (const ListedEntry *e : all)
            if (filter.matches(e->name()))
                rows->push_back(e);
        return rows;
    };
    if (m_rows->size() < kSmallFolder) {
        showRows(filtered(*m_rows, m_nameFilter), m_store);
        return;
    }
    m_work = Work::Filtering;
    const quint64 ticket = ++m_workTicket;
    QtConcurrent::run([all = m_rows, store = m_store, filter = m_nameFilter, filtered] {
        return filtered(*all, filter);
    }).then(this, [this, ticket, filter = m_nameFilter, store = m_store](std::shared_ptr<Rows> rows) {
        if (ticket != m_workTicket)
            return; // another folder since
        m_work = Work::None;
        if (filter == m_nameFilter && !m_sortWanted)
            showRows(std::move(rows), store);
        else {
            freeElsewhere(std::move(*rows));
            m_refilterWanted = true; // typed on or sorted meanwhile
        }
        if (m_sortWanted) {
            m_sortWanted = false;
            startSort();
        }
        goOn();
        Q_EMIT stateChanged();
    });
}

void DirectoryModel::showRows(std::shared_ptr<Rows> rows, std::shared_ptr<EntryStore> store)
{
    const Rows &fresh = rows ? *rows : *m_rows;
    const Rows &old = shown();
    // A refresh since the rows shown were filtered gives their entries new sizes and times:
    // then a held row not found by the order is looked for by name.
    const bool relisted = (m_shown ? m_shownStore : m_store) != (rows ? store : m_store);
    // Rows come and go, columns stay: Qt keeps a selection row by row. A row the views hold
    // follows its entry, or goes when the filter leaves it out.
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int> to(std::size_t(before.size()), -1);
    std::unordered_map<std::string_view, int> byName; // held rows not found by the order
    for (qsizetype i = 0; i < before.size(); ++i) {
        const ListedEntry *e = old[std::size_t(before[i].row())];
        const auto it = std::lower_bound(fresh.begin(), fresh.end(), e, m_order);
        if (it != fresh.end() && (*it)->name() == e->name())
            to[std::size_t(i)] = int(it - fresh.begin());
        else if (relisted)
            byName.emplace(e->name(), -1);
    }
    if (!byName.empty())
        for (std::size_t row = 0; row < fresh.size(); ++row)
            if (const auto it = byName.find(fresh[row]->name()); it != byName.end())
                it->second = int(row);
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i) {
        int row = to[std::size_t(i)];
        if (row < 0 && !byName.empty())
            if (const auto it = byName.find(old[std::size_t(before[i].row())]->name()); it != byName.end())
                row = it->second;
        after << (row < 0 ? QModelIndex() : createIndex(row, before[i].column()));
    }
    const bool filtered = rows != nullptr;
    std::shared_ptr<Rows> leftover = std::exchange(m_shown, std::move(rows));
    std::shared_ptr<EntryStore> oldStore = std::exchange(m_shownStore, filtered ? std::move(store) : nullptr);
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    freeElsewhere(std::move(leftover));
    freeElsewhere(std::move(oldStore));
}

} // namespace strata

#include "ui/browser/directory_model.h"

#include "core/storage/path.h"
#include "core/storage/printable.h"
#include "ui/browser/directory_model_work.h"
#include "ui/browser/drag_mime_data.h"
#include "ui/common/entry_format.h"
#include "ui/common/io_pool.h"

#include <QApplication>
#include <QMimeData>
#include <QPromise>
#include <QStyle>
#include <QThreadPool>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <iterator>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace strata {

using directory_model_work::freeElsewhere;
using directory_model_work::kMostInsertions;
using directory_model_work::kSmallFolder;

namespace {

constexpr std::size_t kPageSize = 1000;

// Whether dropping `source` into the directory `destination` changes nothing (already
// there) or makes no sense (a folder into itself or its own subfolder).
bool droppedInPlace(const QString &source, const QString &destination)
{
    auto s = Uri::parse(source.toStdString());
    auto d = Uri::parse(destination.toStdString());
    if (!s || !d)
        return false;
    const std::string sp = s->path(), dp = d->path();
    s->setPath("/");
    d->setPath("/");
    if (s->toString() != d->toString())
        return false; // another storage
    return parentPath(sp) == dp || dp == sp || dp.starts_with(sp + "/");
}

// Runs on a storage thread: each page becomes a result as soon as it is listed, sorted in
// the order the model shows (read again for each page: the user may sort meanwhile).
void listAllPages(QPromise<ListingPage> &promise, std::shared_ptr<Operator> op, std::string path,
                  std::shared_ptr<std::atomic<int>> order)
{
    ListOptions options;
    options.pageSize = kPageSize;
    do {
        if (promise.isCanceled())
            return;
        auto page = op->list(path, options);
        if (!page) {
            auto failed = std::make_shared<ListingChunk>();
            failed->error = QString::fromStdString(page.error().message());
            promise.addResult(std::move(failed));
            return;
        }
        options.pageToken = std::move(page->nextPageToken);
        auto chunk = std::make_shared<ListingChunk>();
        chunk->page = ListedPage(page->entries);
        const auto &rows = chunk->page.rows();
        chunk->sorted.resize(rows.size());
        std::transform(rows.begin(), rows.end(), chunk->sorted.begin(), [](const ListedEntry &e) { return &e; });
        chunk->sortedBy = order->load();
        EntryOrder::fromKey(chunk->sortedBy).sort(chunk->sorted);
        chunk->skipped = std::move(page->skipped);
        promise.addResult(std::move(chunk));
    } while (!options.pageToken.empty());
}

// Above it, pages wait and are merged together at most this often.
constexpr int kMergeIntervalMs = 200;

} // namespace

DirectoryModel::DirectoryModel(QObject *parent)
    : QAbstractTableModel(parent), m_store(std::make_shared<EntryStore>()), m_rows(std::make_shared<Rows>()),
      m_listingOrder(std::make_shared<std::atomic<int>>(m_order.key())), m_rowsOrder(m_order.key())
{
    m_mergeTimer.setSingleShot(true);
    connect(&m_mergeTimer, &QTimer::timeout, this, &DirectoryModel::mergePending);
    m_takeTimer.setSingleShot(true);
    m_takeTimer.setInterval(0);
    connect(&m_takeTimer, &QTimer::timeout, this, &DirectoryModel::takePages);
    m_sinceMerge.start();
}

DirectoryModel::~DirectoryModel()
{
    stopListing();
}

void DirectoryModel::setLocation(const Location &location)
{
    clearMarks();
    stopListing();
    beginResetModel();
    m_location = location;
    auto folder = normalizePath(location.path);
    m_folder = folder ? std::move(*folder) : location.path;
    m_rows = std::make_shared<Rows>(); // a task may still read the old ones
    m_pending.clear();
    m_pendingOrder.clear();
    m_store = std::make_shared<EntryStore>();
    m_rowsOrder = m_order.key();
    m_shown = m_nameFilter.active() ? std::make_shared<Rows>() : nullptr; // rows arrive filtered
    m_shownStore = m_shown ? m_store : nullptr;
    m_refilterWanted = m_sortWanted = false;
    ++m_generation;
    m_work = Work::None;
    m_incoming.reset();
    ++m_workTicket; // a sort or merge of the rows that went is of no use
    m_error.clear();
    m_skipped.clear();
    endResetModel();
    startListing();
}

// Lists again and applies the differences when the new listing is complete: rows that
// stayed keep their place (and the view its selection and scroll position), gone ones
// are removed, changed ones updated, new ones merged in.
void DirectoryModel::refresh()
{
    clearMarks();
    if (!m_location.op)
        return;
    const bool refreshing = m_incoming || m_work == Work::PlanningRefresh;
    if (loading() && !refreshing) {
        setLocation(m_location); // still on the first listing: start it again
        return;
    }
    stopListing();
    if (m_work == Work::PlanningRefresh) {
        m_work = Work::None;                      // a refresh worked out meanwhile is of no use now
        m_rows = std::make_shared<Rows>(*m_rows); // and may still read these
    }
    m_incoming = std::make_shared<EntryStore>();
    m_incomingError.clear();
    m_incomingSkipped.clear();
    startListing();
    // What waited for a dropped refresh plan goes on now (the listing runs: a sort does
    // not take the empty new listing for the folder).
    if (m_rowsOrder != m_order.key())
        startSort();
    if (m_work == Work::None && m_refilterWanted)
        refilter();
}

// Works out the differences (a big folder's on a worker thread), then applies them.
void DirectoryModel::applyRefresh()
{
    if (m_work != Work::None)
        return; // a sort or merge runs on these rows: applied when it ends
    std::shared_ptr<EntryStore> store = std::move(m_incoming);
    m_incoming.reset();
    if (!m_incomingError.isEmpty()) {
        m_error = m_incomingError; // the old rows stay, under the reason
        return;
    }
    m_error.clear();
    m_skipped = std::move(m_incomingSkipped);
    m_incomingSkipped.clear();
    std::size_t listed = 0;
    for (const auto &page : *store)
        listed += page.size();
    if (m_rows->size() < kSmallFolder && listed < kSmallFolder) {
        RefreshPlan plan = planRefresh(*m_rows, *store, m_order);
        finishRefresh(std::move(store), std::move(plan));
        return;
    }
    m_work = Work::PlanningRefresh;
    const quint64 ticket = m_listingTicket;
    // The task holds both stores: the old rows' entries and the new listing. The rows do
    // not change meanwhile: sorts and merges wait for it.
    QtConcurrent::run([rows = m_rows, old = m_store, store, order = m_order] {
        return std::make_shared<RefreshPlan>(planRefresh(*rows, *store, order));
    }).then(this, [this, store, ticket](std::shared_ptr<RefreshPlan> plan) {
        if (ticket != m_listingTicket || m_work != Work::PlanningRefresh)
            return; // listed again or elsewhere since
        m_work = Work::None;
        finishRefresh(store, std::move(*plan));
        if (m_work == Work::None && m_refilterWanted)
            refilter();
        Q_EMIT stateChanged();
    });
}

// Rows that stayed keep their place (and the view its selection and scroll position),
// gone ones are removed, changed ones updated, new ones merged in.
void DirectoryModel::finishRefresh(std::shared_ptr<EntryStore> store, RefreshPlan plan)
{
    if (m_shown) { // filtered: the views see m_shown, filtered again below
        m_rows->swap(plan.kept);
    } else if (plan.gone.size() <= kMostInsertions) {
        // From the last run back: the rows before stay where they were.
        for (auto run = plan.gone.rbegin(); run != plan.gone.rend(); ++run) {
            beginRemoveRows({}, int(run->first), int(run->second));
            m_rows->erase(m_rows->begin() + std::ptrdiff_t(run->first),
                          m_rows->begin() + std::ptrdiff_t(run->second) + 1);
            endRemoveRows();
        }
        m_rows->swap(plan.kept); // the same rows, now pointing into the new listing
    } else {                     // gone from many places: one layout change
        Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        const QModelIndexList before = persistentIndexList();
        QModelIndexList after;
        after.reserve(before.size());
        std::vector<std::size_t> goneBefore(plan.gone.size()); // rows gone before each run
        for (std::size_t i = 1; i < plan.gone.size(); ++i)
            goneBefore[i] = goneBefore[i - 1] + plan.gone[i - 1].second - plan.gone[i - 1].first + 1;
        for (const QModelIndex &p : before) {
            const auto row = std::size_t(p.row());
            // The first run that ends at or after the row: the row is in it, or before it.
            const auto run = std::lower_bound(plan.gone.begin(), plan.gone.end(), row,
                                              [](const auto &r, std::size_t at) { return r.second < at; });
            const auto i = std::size_t(run - plan.gone.begin());
            if (run != plan.gone.end() && run->first <= row)
                after << QModelIndex(); // gone
            else {
                const std::size_t shift =
                    i == 0 ? 0 : goneBefore[i - 1] + plan.gone[i - 1].second - plan.gone[i - 1].first + 1;
                after << createIndex(int(row - shift), p.column());
            }
        }
        m_rows->swap(plan.kept);
        changePersistentIndexList(before, after);
        Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    }
    if (!m_shown && !m_rows->empty()) {
        if (plan.changed.size() > 256) // one signal, not thousands
            Q_EMIT dataChanged(index(0, 0), index(int(m_rows->size()) - 1, ColumnCount - 1));
        else
            for (const std::size_t row : plan.changed)
                Q_EMIT dataChanged(index(int(row), 0), index(int(row), ColumnCount - 1));
    }
    freeElsewhere(std::move(plan.kept)); // the old rows, swapped out
    // The old entries are freed on a worker thread (a million take a while); a task in
    // flight holds them alive until it ends.
    QThreadPool::globalInstance()->start([old = std::exchange(m_store, std::move(store))]() mutable { old.reset(); });
    ++m_generation;
    if (!plan.inOrder)
        m_rowsOrder = -1;             // a changed row moves
    if (m_rowsOrder != m_order.key()) // (or sorted by another column meanwhile)
        startSort();
    if (!plan.added.empty()) {
        m_pending.push_back(std::move(plan.added));
        m_pendingOrder.push_back(plan.sortedBy);
        mergePending();
    }
    if (m_shown || m_refilterWanted)
        refilter(); // now, or when the sort or merge started above ends
}

QString DirectoryModel::uri() const
{
    return m_location.op ? QString::fromStdString(m_location.display()) : QString();
}

QString DirectoryModel::uriOf(const std::string &path) const
{
    return m_location.op ? QString::fromStdString(m_location.op->uriFor(path).toString()) : QString();
}

void DirectoryModel::startListing()
{
    if (!m_location.op)
        return;
    m_watcher = new QFutureWatcher<ListingPage>(this);
    ++m_listingTicket;
    m_taken = 0;
    connect(m_watcher, &QFutureWatcher<ListingPage>::resultsReadyAt, this, &DirectoryModel::takePages);
    connect(m_watcher, &QFutureWatcher<ListingPage>::finished, this, &DirectoryModel::takePages);
    m_watcher->setFuture(QtConcurrent::run(ioPool(), listAllPages, m_location.op, m_location.path, m_listingOrder));
    Q_EMIT stateChanged();
}

// The storage thread notices the cancel between pages; nothing waits for it here.
void DirectoryModel::stopListing()
{
    if (!m_watcher)
        return;
    m_takeTimer.stop();
    m_watcher->disconnect(this);
    m_watcher->cancel();
    m_watcher->deleteLater();
    m_watcher = nullptr;
}

// Takes the pages listed so far, up to 5 ms' worth per turn of the event loop: a fast
// storage lists faster than the GUI thread takes pages, and must not starve the loop (a
// turn, a repaint and a merge stay within a 60 Hz frame).
void DirectoryModel::takePages()
{
    if (!m_watcher)
        return;
    QElapsedTimer turn;
    turn.start();
    const auto *watcher = m_watcher;
    const bool listed = watcher->isFinished(); // asked first: then `available` are all there are
    const int available = watcher->future().resultCount();
    while (m_taken < available) {
        if (turn.elapsed() >= 5) {
            m_takeTimer.start();
            return;
        }
        // The results keep only an emptied page.
        ListingPage page = watcher->resultAt(m_taken++);
        appendPage(*page);
        if (m_watcher != watcher)
            return; // a slot went elsewhere meanwhile
    }
    if (listed)
        listingFinished();
}

void DirectoryModel::appendPage(ListingChunk &chunk)
{
    if (m_incoming) { // gathered until the listing is complete
        if (!chunk.error.isEmpty())
            m_incomingError = chunk.error;
        m_incomingSkipped.insert(m_incomingSkipped.end(), chunk.skipped.begin(), chunk.skipped.end());
        m_incoming->push_back(std::move(chunk.page));
        return;
    }
    if (!chunk.error.isEmpty())
        m_error = chunk.error;
    m_skipped.insert(m_skipped.end(), chunk.skipped.begin(), chunk.skipped.end());
    if (chunk.page.empty()) {
        if (!chunk.error.isEmpty() || !chunk.skipped.empty())
            Q_EMIT stateChanged();
        return;
    }
    // The page moves into the store whole: its rows keep their addresses.
    m_store->push_back(std::move(chunk.page));
    m_pending.push_back(std::move(chunk.sorted));
    m_pendingOrder.push_back(chunk.sortedBy);
    // A small folder takes each page at once (cheap); a big one a few times a second.
    if (m_rows->size() < kSmallFolder || m_sinceMerge.elapsed() >= kMergeIntervalMs)
        mergePending();
    else if (!m_mergeTimer.isActive())
        m_mergeTimer.start(std::max(0, kMergeIntervalMs - int(m_sinceMerge.elapsed())));
}

QString DirectoryModel::warning() const
{
    if (m_skipped.empty())
        return {};
    QStringList names;
    for (std::size_t i = 0; i < std::min<std::size_t>(m_skipped.size(), 3); ++i)
        names << QLatin1Char('\'') + QString::fromStdString(printable(m_skipped[i])) + QLatin1Char('\'');
    if (m_skipped.size() > 3)
        names << tr("…");
    return tr("Left out %n entry(s) whose names are no path here (an empty, '.' or '..' part, or a '/' inside a name): "
              "%1",
              nullptr, int(m_skipped.size()))
        .arg(names.join(QStringLiteral(", ")));
}

void DirectoryModel::listingFinished()
{
    m_takeTimer.stop();
    m_watcher->disconnect(this);
    m_watcher->deleteLater();
    m_watcher = nullptr;
    if (m_incoming)
        applyRefresh();
    else
        mergePending();
    Q_EMIT stateChanged();
}

// Merges the pages that arrived since the last merge: a small folder at once, a big one's
// comparisons and copying on a worker thread (after a sort in flight, if any).
void DirectoryModel::mergePending()
{
    m_mergeTimer.stop();
    if (m_work != Work::None || m_pending.empty())
        return;
    if (m_rowsOrder != m_order.key()) { // merged into rows in the wanted order only
        startSort();
        return;
    }
    std::vector<Rows> runs = std::move(m_pending);
    std::vector<int> sortedBy = std::move(m_pendingOrder);
    m_pending.clear();
    m_pendingOrder.clear();
    std::size_t incoming = 0;
    for (const Rows &run : runs)
        incoming += run.size();
    if (m_rows->size() + incoming < kSmallFolder) {
        MergePlan plan = planMerge(std::move(runs), sortedBy, *m_rows, m_order);
        applyMerge(plan);
        m_sinceMerge.restart();
        Q_EMIT stateChanged();
        return;
    }
    m_work = Work::Merging;
    const quint64 ticket = ++m_workTicket;
    const EntryOrder order = m_order;
    // The task holds the store: the entries it reads outlive another folder.
    QtConcurrent::run([runs = std::move(runs), sortedBy = std::move(sortedBy), rows = m_rows, store = m_store,
                       order]() mutable {
        return std::make_shared<MergePlan>(planMerge(std::move(runs), sortedBy, *rows, order));
    }).then(this, [this, ticket, order](std::shared_ptr<MergePlan> plan) {
        if (ticket != m_workTicket)
            return; // another folder since
        m_work = Work::None;
        if (order != m_order) { // sorted by another column meanwhile: merged after that sort
            m_pending.push_back(std::move(plan->batch));
            m_pendingOrder.push_back(order.key());
            freeElsewhere(std::move(*plan));
            startSort();
            return;
        }
        applyMerge(*plan);
        freeElsewhere(std::move(*plan));
        m_sinceMerge.restart();
        if (!m_watcher) // the listing is over: the rest goes in now
            goOn();
        else if (!m_pending.empty() && !m_mergeTimer.isActive())
            m_mergeTimer.start(kMergeIntervalMs);
        if (m_work == Work::None && m_refilterWanted)
            refilter();
        Q_EMIT stateChanged();
    });
}

// Puts each run of the batch (the rows going to one place) into the rows, from the last
// place back: the places before stay where they were. `tell`: an insertion for each.
void DirectoryModel::insertRuns(const Rows &batch, const std::vector<std::size_t> &where, bool tell)
{
    for (std::size_t end = batch.size(); end > 0;) {
        std::size_t begin = end - 1;
        while (begin > 0 && where[begin - 1] == where[end - 1])
            --begin;
        const int at = int(where[begin]);
        if (tell)
            beginInsertRows({}, at, at + int(end - begin) - 1);
        m_rows->insert(m_rows->begin() + at, batch.begin() + std::ptrdiff_t(begin),
                       batch.begin() + std::ptrdiff_t(end));
        if (tell)
            endInsertRows();
        end = begin;
    }
}

// Puts the new rows in their places. One place: an insertion. More in a small folder: an
// insertion for each place (few) or one at the end and a layout change to the merged order
// (many). More in a big one: one layout change that also grows the rows, with no
// comparisons and no insertion into a million rows on the GUI thread.
void DirectoryModel::applyMerge(MergePlan &plan)
{
    const Rows &batch = plan.batch;
    const std::vector<std::size_t> &where = plan.where;
    const std::size_t n = m_rows->size(), k = batch.size();
    if (k == 0)
        return;
    if (m_shown) { // filtered: the views see m_shown; the merged rows are filtered anew
        if (plan.places == 1)
            m_rows->swap(plan.grown);
        else if (!plan.merged.empty())
            m_rows->swap(plan.merged);
        else { // a small folder's few places: the grown rows have room for the batch
            m_rows->swap(plan.grown);
            insertRuns(batch, where, false);
        }
        refilter();
        return;
    }
    const bool big = n + k >= kSmallFolder;
    // The rows come made (copied and grown off the GUI thread) and are swapped in. One
    // place (a listing in order: the end) is an insertion, at any size: a view repaints
    // only if it shows rows at or after it.
    if (plan.places == 1) {
        const int at = int(where.front());
        beginInsertRows({}, at, at + int(k) - 1);
        m_rows->swap(plan.grown);
        endInsertRows();
        return;
    }
    if (plan.places <= kMostInsertions && !big) {
        m_rows->swap(plan.grown); // the same rows, with room for the batch
        insertRuns(batch, where, true);
        return;
    }
    // `appended`: the batch is at the end of the rows the views know (row n + i is batch[i]).
    const bool appended = !big;
    if (appended) {
        beginInsertRows({}, int(n), int(n + k) - 1);
        m_rows->swap(plan.grown);
        endInsertRows();
    }
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    // Old row r moves down by the new rows placed before it; new row i lands at where[i] + i.
    const QModelIndexList before = persistentIndexList();
    QModelIndexList after;
    after.reserve(before.size());
    for (const QModelIndex &p : before) {
        const auto r = std::size_t(p.row());
        const std::size_t to = r < n ? r + std::size_t(std::upper_bound(where.begin(), where.end(), r) - where.begin())
                                     : where[r - n] + (r - n);
        after << createIndex(int(to), p.column());
    }
    // The old order stays in the plan, freed with it.
    m_rows->swap(plan.places == 1 ? plan.grown : plan.merged);
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

// Puts rows in a new order (the same entries), keeping persistent indexes on their entries.
// `rows` gets the old order.
void DirectoryModel::replaceRows(Rows &rows)
{
    if (m_shown) { // filtered: the views see m_shown, filtered again in the new order
        m_rows->swap(rows);
        ++m_generation;
        refilter();
        return;
    }
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::unordered_map<const ListedEntry *, int> moved;
    for (const QModelIndex &p : before)
        moved.emplace((*m_rows)[std::size_t(p.row())], -1);
    if (!moved.empty())
        for (std::size_t row = 0; row < rows.size(); ++row)
            if (auto it = moved.find(rows[row]); it != moved.end())
                it->second = int(row);
    QModelIndexList after;
    after.reserve(before.size());
    for (const QModelIndex &p : before)
        after << createIndex(moved.at((*m_rows)[std::size_t(p.row())]), p.column());
    m_rows->swap(rows);
    ++m_generation;
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void DirectoryModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    const EntryOrder wanted(column, order);
    if (wanted == m_order)
        return;
    m_order = wanted;
    m_listingOrder->store(m_order.key());
    startSort();
}

// Sorts the rows in m_order: a small folder at once, a big one on a worker thread, whose
// result is taken only if the rows did not change meanwhile (else it sorts again).
void DirectoryModel::startSort()
{
    if (m_work == Work::Filtering) {
        m_sortWanted = true; // sorted when the filter is worked out
        return;
    }
    if (m_work != Work::None)
        return; // the task in flight notices the change when it ends
    if (m_rows->size() < kSmallFolder) {
        Rows rows = *m_rows;
        m_order.sort(rows);
        m_rowsOrder = m_order.key();
        replaceRows(rows);
        goOn();
        return;
    }
    m_work = Work::Sorting;
    const quint64 generation = m_generation, ticket = ++m_workTicket;
    const EntryOrder order = m_order;
    // The task holds the store: the entries it reads outlive a refresh or another folder.
    // It copies the rows itself: they do not change while it runs (merges and refreshes
    // wait for it; another folder gets rows of its own), and 8 MB copied here, faulted in
    // fresh, stalled the window for 40 ms.
    QtConcurrent::run([shown = m_rows, store = m_store, order] {
        auto rows = std::make_shared<Rows>(*shown);
        order.sort(*rows);
        return rows;
    }).then(this, [this, generation, ticket, order](std::shared_ptr<Rows> rows) {
        if (ticket != m_workTicket)
            return; // another folder since: its rows are not these
        m_work = Work::None;
        if (generation != m_generation || order != m_order) {
            freeElsewhere(std::move(*rows));
            startSort(); // the rows or the wanted order changed meanwhile
            return;
        }
        m_rowsOrder = order.key();
        replaceRows(*rows);
        freeElsewhere(std::move(*rows));
        goOn();
        Q_EMIT stateChanged();
    });
    Q_EMIT stateChanged();
}

// Goes on with what waited for a sort or merge: a refresh listed meanwhile, or the pages
// that arrived.
void DirectoryModel::goOn()
{
    if (m_incoming && !m_watcher)
        applyRefresh();
    else
        mergePending();
    if (m_work == Work::None && m_refilterWanted)
        refilter();
}

bool DirectoryModel::loading() const
{
    return m_watcher || m_incoming || !m_pending.empty() || m_work == Work::Merging || m_work == Work::PlanningRefresh;
}

const ListedEntry *DirectoryModel::rowAt(int row) const
{
    const Rows &rows = shown();
    return row >= 0 && row < int(rows.size()) ? rows[std::size_t(row)] : nullptr;
}

std::optional<Entry> DirectoryModel::entryAt(int row) const
{
    if (const ListedEntry *e = rowAt(row))
        return e->toEntry(m_folder);
    return std::nullopt;
}

// Bounds checked here, not by two virtual calls: a view lays out a million rows by asking
// each one's index.
QModelIndex DirectoryModel::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || row < 0 || column < 0 || std::size_t(row) >= shown().size() || column >= ColumnCount)
        return {};
    return createIndex(row, column);
}

int DirectoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(shown().size());
}

int DirectoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

Qt::ItemFlags DirectoryModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::ItemIsDropEnabled; // onto the directory itself
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
    if (const ListedEntry *e = rowAt(index.row()); e && e->isDir())
        f |= Qt::ItemIsDropEnabled;
    return f;
}

bool DirectoryModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_watcher != nullptr;
}

// Pages stream in on their own; a view asking for more just waits for the next one.
void DirectoryModel::fetchMore(const QModelIndex &) {}

QStringList DirectoryModel::mimeTypes() const
{
    return {QString::fromLatin1(UriListMime), QStringLiteral("text/uri-list")};
}

QMimeData *DirectoryModel::mimeData(const QModelIndexList &indexes) const
{
    std::vector<Entry> entries;
    for (const auto &index : indexes)
        if (index.column() == Name)
            if (auto e = entryAt(index.row()))
                entries.push_back(std::move(*e));
    std::vector<const Entry *> dragged(entries.size());
    std::transform(entries.begin(), entries.end(), dragged.begin(), [](const Entry &e) { return &e; });
    return dragData(m_location, dragged, m_desktopExport);
}

QMimeData *DirectoryModel::dragData(const Location &location, const std::vector<const Entry *> &entries,
                                    const DesktopExport &desktopExport)
{
    QStringList uris;
    QList<QUrl> urls;
    std::vector<Entry> remote;
    for (const Entry *e : entries) {
        uris << QString::fromStdString(location.op->uriFor(e->path).toString());
        // The desktop understands local files only.
        if (auto local = location.op->localPath(e->path))
            urls << QUrl::fromLocalFile(QString::fromStdString(*local));
        else
            remote.push_back(*e);
    }
    if (uris.isEmpty())
        return nullptr;
    DragMimeData::Export exportRemote;
    if (!remote.empty() && desktopExport)
        exportRemote = [exportFiles = desktopExport, location, remote] { return exportFiles(location, remote); };
    auto *data = new DragMimeData(urls, std::move(exportRemote));
    data->setData(QString::fromLatin1(UriListMime), uris.join(QLatin1Char('\n')).toUtf8());
    return data;
}

QStringList DirectoryModel::urisIn(const QMimeData *data)
{
    if (!data)
        return {};
    if (data->hasFormat(QString::fromLatin1(UriListMime)))
        return QString::fromUtf8(data->data(QString::fromLatin1(UriListMime)))
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList uris;
    for (const QUrl &url : data->urls()) {
        if (url.isLocalFile())
            uris << QString::fromStdString(Uri::fromLocalPath(url.toLocalFile().toStdString()).toString());
        else if (!url.scheme().isEmpty())
            uris << url.toString();
    }
    return uris;
}

bool DirectoryModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int, int,
                                     const QModelIndex &parent) const
{
    if (!m_location.op || (action != Qt::CopyAction && action != Qt::MoveAction))
        return false;
    if (parent.isValid()) {
        const ListedEntry *e = rowAt(parent.row());
        if (!e || !e->isDir())
            return false;
    }
    return !urisIn(data).isEmpty();
}

bool DirectoryModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                                  const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    std::string dir = m_location.path;
    if (parent.isValid())
        dir = entryAt(parent.row())->path;
    const QStringList sources = urisIn(data);
    const QString destination = uriOf(dir);
    // A drop back into the folder the items came from, or of a folder into itself, is
    // nothing to do.
    QStringList moving;
    for (const auto &source : sources)
        if (!droppedInPlace(source, destination))
            moving << source;
    if (moving.isEmpty())
        return false;
    Q_EMIT transferRequested(moving, destination, action == Qt::MoveAction);
    // The transfer engine does the work (and removes moved sources itself): the view
    // must not delete the dragged rows.
    return false;
}

} // namespace strata

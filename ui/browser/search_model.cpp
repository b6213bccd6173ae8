#include "ui/browser/search_model.h"

#include "core/storage/path.h"
#include "core/walk/walker.h"
#include "ui/browser/entry_order.h"
#include "ui/common/entry_format.h"

#include <QMimeData>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <mutex>

namespace strata {

struct SearchModel::State {
    std::mutex mutex;
    std::vector<Entry> pending; // found, not yet taken by the GUI thread
    std::size_t kept = 0;       // entries found in all
    bool truncated = false;
    std::atomic<std::uint64_t> looked{0};
    std::stop_source stop;
    // Written by the walk's thread before `done`, read after it.
    QString error;
    int unreadable = 0;
    std::atomic<bool> done{false};
};

namespace {

constexpr int kTakeIntervalMs = 100;

// The folder of `path` relative to the search's root ("" directly below it).
QString folderOf(const std::string &root, const std::string &path)
{
    std::string_view parent = parentPath(path);
    if (parent.size() <= root.size() || root == "/")
        return parent.size() > 1 && root == "/" ? QString::fromStdString(std::string(parent.substr(1))) : QString();
    return QString::fromStdString(std::string(parent.substr(root.size() + 1)));
}

// The listing's column (DirectoryModel::Column) that shows what `column` shows.
int listingColumn(int column)
{
    switch (column) {
    case SearchModel::Size: return DirectoryModel::Size;
    case SearchModel::Modified: return DirectoryModel::Modified;
    case SearchModel::Kind: return DirectoryModel::Kind;
    default: return DirectoryModel::Name;
    }
}

} // namespace

SearchModel::SearchModel(QObject *parent) : QAbstractTableModel(parent)
{
    m_takeTimer.setInterval(kTakeIntervalMs);
    connect(&m_takeTimer, &QTimer::timeout, this, &SearchModel::take);
}

SearchModel::~SearchModel()
{
    if (m_state)
        m_state->stop.request_stop();
    for (auto &s : m_retiredStates)
        s->stop.request_stop();
    // The threads were told to stop; their destructors join them.
}

void SearchModel::start(const Location &location, FindCriteria criteria)
{
    clear();
    m_location = location;
    m_stopped = m_truncated = false;
    auto state = std::make_shared<State>();
    m_state = state;
    const bool statAll = criteria.needsStat();
    m_thread = std::make_unique<std::jthread>([state, location, filter = FindFilter(std::move(criteria)), statAll] {
        WalkOptions options;
        options.stat = statAll;
        const std::string &root = location.path;
        const bool local = location.op->localPath(root).has_value();
        auto summary = walkTree(
            *location.op, root, options,
            [&](std::span<const WalkEntry> batch) {
                std::vector<Entry> found;
                for (const auto &e : batch) {
                    const std::string_view name = e.path.substr(e.path.rfind('/') + 1);
                    if (!filter.matches(name, e.kind, e.size, e.mtimeNs))
                        continue;
                    Entry entry;
                    entry.path = joinPath(root, e.path);
                    // Sizes and times of what was found, where the walk did not read them.
                    if (!statAll && local)
                        if (auto st = location.op->stat(entry.path))
                            entry = std::move(*st);
                    if (entry.name.empty()) {
                        entry.name = std::string(name);
                        entry.kind = e.kind;
                        entry.size = e.size;
                        if (e.mtimeNs)
                            entry.mtimeNs = e.mtimeNs;
                    }
                    found.push_back(std::move(entry));
                }
                state->looked.fetch_add(batch.size(), std::memory_order_relaxed);
                if (found.empty())
                    return;
                std::lock_guard lock(state->mutex);
                for (auto &entry : found) {
                    if (state->kept >= kMaxResults) {
                        state->truncated = true;
                        state->stop.request_stop();
                        break;
                    }
                    ++state->kept;
                    state->pending.push_back(std::move(entry));
                }
            },
            state->stop.get_token());
        if (!summary)
            state->error = QString::fromStdString(summary.error().message());
        else
            state->unreadable = int(summary->errors.size());
        state->done.store(true, std::memory_order_release);
    });
    m_takeTimer.start();
    Q_EMIT progress();
}

void SearchModel::stop()
{
    if (!m_state)
        return;
    m_stopped = true;
    m_state->stop.request_stop();
}

void SearchModel::clear()
{
    retire();
    beginResetModel();
    m_rows.clear();
    ++m_generation;
    endResetModel();
    m_looked = 0;
    m_error.clear();
    m_unreadable = 0;
}

// The running search is told to stop and joined later, once its thread is done: the GUI
// thread never waits for a listing call to come back.
void SearchModel::retire()
{
    if (!m_state)
        return;
    m_state->stop.request_stop();
    m_retired.push_back(std::move(m_thread));
    m_retiredStates.push_back(std::move(m_state));
    m_state.reset();
}

void SearchModel::take()
{
    for (std::size_t i = 0; i < m_retired.size();) {
        if (m_retiredStates[i]->done.load(std::memory_order_acquire)) {
            m_retired[i].reset(); // its thread has ended: joins at once
            m_retired.erase(m_retired.begin() + std::ptrdiff_t(i));
            m_retiredStates.erase(m_retiredStates.begin() + std::ptrdiff_t(i));
        } else {
            ++i;
        }
    }
    if (!m_state) {
        if (m_retired.empty())
            m_takeTimer.stop();
        return;
    }
    const bool done = m_state->done.load(std::memory_order_acquire);
    std::vector<Entry> batch;
    {
        std::lock_guard lock(m_state->mutex);
        batch.swap(m_state->pending);
        m_truncated = m_state->truncated;
    }
    m_looked = m_state->looked.load(std::memory_order_relaxed);
    if (!batch.empty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + batch.size() - 1));
        m_rows.insert(m_rows.end(), std::make_move_iterator(batch.begin()), std::make_move_iterator(batch.end()));
        endInsertRows();
    }
    Q_EMIT progress();
    if (!done)
        return;
    m_error = m_state->error;
    m_unreadable = m_state->unreadable;
    m_thread.reset(); // done: joins at once
    m_state.reset();
    if (m_retired.empty())
        m_takeTimer.stop();
    if (m_sortColumn >= 0)
        applySort();
    Q_EMIT finished();
}

const Entry *SearchModel::entryAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_rows.size() ? &m_rows[std::size_t(row)] : nullptr;
}

int SearchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SearchModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SearchModel::data(const QModelIndex &index, int role) const
{
    const Entry *e = index.isValid() ? entryAt(index.row()) : nullptr;
    if (!e)
        return {};
    if (index.column() != Folder)
        return DirectoryModel::entryData(*e, listingColumn(index.column()), role, *m_location.op);
    if (role == Qt::DisplayRole)
        return folderOf(m_location.path, e->path);
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(m_location.op->display(e->path));
    return {};
}

QVariant SearchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    return section == Folder ? tr("Folder") : DirectoryModel::columnTitle(listingColumn(section));
}

Qt::ItemFlags SearchModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags; // results are no folder to drop into
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
}

// Sorted when asked and again when the search ends; rows arriving meanwhile go last. A sort
// of many rows runs on Qt's pool and is applied if nothing replaced the rows meanwhile.
void SearchModel::sort(int column, Qt::SortOrder order)
{
    m_sortColumn = column;
    m_sortOrder = order;
    applySort();
}

void SearchModel::applySort()
{
    // As the listing sorts (EntryOrder: folders first, names in natural order); by folder,
    // the folders' paths in natural order, then the names.
    const int column = m_sortColumn;
    const Qt::SortOrder direction = m_sortOrder;
    auto sortRows = [column, direction](std::vector<Entry> &rows) {
        if (column == Folder) {
            std::stable_sort(rows.begin(), rows.end(), [direction](const Entry &a, const Entry &b) {
                int c = naturalCompareUtf8(parentPath(a.path), parentPath(b.path));
                if (c == 0)
                    c = naturalCompareUtf8(a.name, b.name);
                return direction == Qt::DescendingOrder ? c > 0 : c < 0;
            });
            return;
        }
        const int byColumn = column == Size ? EntryOrder::Size
            : column == Modified            ? EntryOrder::Modified
            : column == Kind                ? EntryOrder::Kind
                                            : EntryOrder::Name;
        EntryOrder(byColumn, direction).sort(rows);
    };
    if (m_rows.size() <= 20'000) { // a few milliseconds
        Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        const QModelIndexList before = persistentIndexList();
        std::vector<std::string> paths;
        for (const auto &index : before)
            paths.push_back(m_rows[std::size_t(index.row())].path);
        sortRows(m_rows);
        if (!before.isEmpty()) {
            std::unordered_map<std::string_view, int> rowOf;
            for (std::size_t i = 0; i < m_rows.size(); ++i)
                rowOf.emplace(m_rows[i].path, int(i));
            QModelIndexList after;
            for (qsizetype i = 0; i < before.size(); ++i)
                after << index(rowOf.at(paths[std::size_t(i)]), before[i].column());
            changePersistentIndexList(before, after);
        }
        Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
        return;
    }
    const quint64 generation = ++m_generation;
    const std::size_t count = m_rows.size();
    QtConcurrent::run([rows = m_rows, sortRows]() mutable {
        sortRows(rows);
        return rows;
    }).then(this, [this, generation, count](std::vector<Entry> rows) {
        if (generation != m_generation || count != m_rows.size())
            return; // the rows changed meanwhile; the search's end sorts them again
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
    });
}

QStringList SearchModel::mimeTypes() const
{
    return {QString::fromLatin1(DirectoryModel::UriListMime), QStringLiteral("text/uri-list")};
}

QMimeData *SearchModel::mimeData(const QModelIndexList &indexes) const
{
    std::vector<const Entry *> entries;
    for (const auto &index : indexes)
        if (index.column() == Name)
            if (const Entry *e = entryAt(index.row()))
                entries.push_back(e);
    return m_location.op ? DirectoryModel::dragData(m_location, entries, m_desktopExport) : nullptr;
}

} // namespace strata

#pragma once

#include "core/storage/entry.h"
#include "core/storage/registry.h"
#include "ui/browser/entry_order.h"
#include "ui/browser/listed_page.h"
#include "ui/browser/name_filter.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace strata {

// One page of a listing as it comes back from the storage thread, made compact and sorted
// there.
struct ListingChunk {
    ListedPage page;
    std::vector<const ListedEntry *> sorted; // the page's rows in `sortedBy` order
    QString error;                           // set on the last chunk of a failed listing
    int sortedBy = -1;                       // EntryOrder::key() of the order `sorted` is in
    std::vector<std::string> skipped;        // names the storage sent that are no path (ListPage::skipped)
};
// Shared, so that the GUI thread takes the entries out of the future's results, no copy.
using ListingPage = std::shared_ptr<ListingChunk>;

// One directory of any storage as a table (name, size, modified, kind), sorted in the
// model (EntryOrder). The listing runs off the GUI thread page by page, each page sorted
// there; the GUI thread merges sorted pages into the rows as they arrive, a few times a
// second once the folder is big, so the first rows of a huge directory show while the
// rest streams in and no merge stalls the event loop for long. A sort by another column
// of a big folder runs off the GUI thread too. A failed listing is model state (error()),
// not a dialog. Drags carry the entries' URIs; drops ask for transfers.
class DirectoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Size, Modified, Kind, ColumnCount };
    enum Role { EntryPathRole = Qt::UserRole + 1, IsDirRole, SortRole, UriRole, CompareMarkRole };
    // How a row compares with the other pane's folder (Compare Folders): the row's colour
    // and tooltip say it until the folder is listed again.
    enum class Mark : std::uint8_t { None, Same, OnlyHere, NewerHere, OlderHere, Different, DiffersInside };
    using Marks = std::unordered_map<std::string, Mark>; // by name; names not in it are the Same
    static constexpr auto UriListMime = "application/x-strata-uri-list";

    explicit DirectoryModel(QObject *parent = nullptr);
    ~DirectoryModel() override;

    // Lists `path` of `location`; what was shown goes at once.
    void setLocation(const Location &location);
    // Lists again; rows that stayed keep their place (selection and scroll survive).
    void refresh();
    // Marks the rows by name (Compare Folders); cleared by listing again.
    void setMarks(Marks marks);
    void clearMarks();
    bool marked() const { return m_marked; }
    Mark markOf(const Entry &entry) const { return markOf(entry.name); }
    Mark markOf(std::string_view name) const;
    static QString markText(Mark mark);
    const Location &location() const { return m_location; }
    QString uri() const;                          // redacted, for display
    QString uriOf(const std::string &path) const; // full URI, to open again

    // Listing, merging listed pages, or working out a refresh.
    bool loading() const;
    QString error() const { return m_error; }
    // What the listing left out and why (names that are no path); empty when nothing.
    QString warning() const;
    // The entry of a row, made again from what the row keeps (ListedEntry: no allocated
    // size, hashes, storage class, device or inode).
    std::optional<Entry> entryAt(int row) const;
    // What a row keeps, for reading many rows cheaply (filtering, finding a name).
    const ListedEntry *rowAt(int row) const;
    // Shows only the rows whose name contains `text`, without regard to case (the filter
    // box), in the model's order; rows arriving, changing or sorted meanwhile are filtered
    // too. A big folder's rows are filtered on a worker thread and change when it is done.
    void setNameFilter(const QString &text);
    QString nameFilter() const { return m_nameFilter.text(); }
    bool filtering() const { return m_work == Work::Filtering || m_refilterWanted; }
    EntryOrder order() const { return m_order; }
    bool sorting() const { return m_work == Work::Sorting; } // a big folder's sort is running
    // Sorts the rows (a big folder off the GUI thread: the rows change when it is done).
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    // What a view shows of an entry of `op` in a column (Column) for a role (a Qt role or Role):
    // one look for the listing and the search results.
    static QVariant entryData(const Entry &entry, int column, int role, const Operator &op);
    static QString columnTitle(int column);
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDragActions() const override { return Qt::CopyAction | Qt::MoveAction; }
    Qt::DropActions supportedDropActions() const override { return Qt::CopyAction | Qt::MoveAction; }
    bool canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                         const QModelIndex &parent) const override;
    bool dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                      const QModelIndex &parent) override;

    // The URIs a drag or a desktop drop carries (ours first, then text/uri-list).
    static QStringList urisIn(const QMimeData *data);
    // Gives remote entries a local file for the desktop's file manager (fetched there when
    // a drag starts); local entries need none.
    using DesktopExport = std::function<QList<QUrl>(const Location &, const std::vector<Entry> &)>;
    void setDesktopExport(DesktopExport exportFiles) { m_desktopExport = std::move(exportFiles); }
    DesktopExport desktopExport() const { return m_desktopExport; }
    // What a drag of `entries` of `location` carries: their URIs, local files as URLs, and
    // remote ones fetched through `desktopExport` when the desktop asks.
    static QMimeData *dragData(const Location &location, const std::vector<const Entry *> &entries,
                               const DesktopExport &desktopExport);

Q_SIGNALS:
    // Listing started, finished or failed: the pane updates its status line.
    void stateChanged();
    // Dropped URIs should be copied (or moved) into the directory `destinationUri`.
    void transferRequested(const QStringList &sources, const QString &destinationUri, bool move);

private:
    // Entries live in the pages they were listed in and never move while listed: rows
    // point at them, and a sort off the GUI thread reads them (holding the store alive).
    using EntryStore = std::vector<ListedPage>;
    using Rows = std::vector<const ListedEntry *>;

    void startListing();
    void stopListing();
    void takePages();
    void appendPage(ListingChunk &chunk);
    void listingFinished();
    void applyRefresh();
    // A merge worked out off the GUI thread: the rows it adds, in order, where each goes,
    // and (if they go to many places) all the rows in their new order.
    struct MergePlan {
        Rows batch;
        std::vector<std::size_t> where;
        std::size_t places = 0;
        Rows grown; // the rows with the batch in (one place) or at the end (many), else with room for it
        Rows merged;
    };

    // A refresh worked out off the GUI thread.
    struct RefreshPlan {
        std::vector<std::pair<std::size_t, std::size_t>> gone; // runs of rows gone [first, last], in order
        Rows kept;                                             // the rows that stayed, pointing into the new listing
        std::vector<std::size_t> changed;                      // rows of `kept` shown otherwise now
        Rows added;                                            // new entries, sorted
        int sortedBy = 0;                                      // EntryOrder::key() of `added`
        bool inOrder = true;                                   // no changed row has to move
    };

    static RefreshPlan planRefresh(const Rows &rows, const EntryStore &fresh, const EntryOrder &order);
    void finishRefresh(std::shared_ptr<EntryStore> store, RefreshPlan plan);
    void mergePending();
    static MergePlan planMerge(std::vector<Rows> runs, const std::vector<int> &sortedBy, const Rows &rows,
                               const EntryOrder &order);
    void applyMerge(MergePlan &plan);
    void insertRuns(const Rows &batch, const std::vector<std::size_t> &where, bool tell);
    void replaceRows(Rows &rows);
    void startSort();
    void goOn();
    // What the views see: the rows that pass the name filter (all of them when none).
    const Rows &shown() const { return m_shown ? *m_shown : *m_rows; }
    // Works out the rows shown under the filter (a big folder's on a worker thread) after
    // the filter or the rows changed; with a task in flight, when it ends.
    void refilter();
    // Puts `rows` (entries of `store`; null: all rows) before the views in one layout
    // change, persistent indexes following their entries.
    void showRows(std::shared_ptr<Rows> rows, std::shared_ptr<EntryStore> store);

    Location m_location;
    std::string m_folder; // m_location.path as the listing's paths begin
    std::shared_ptr<EntryStore> m_store;
    // In m_order. Shared with the task working on them (a sort, merge or refresh plan), which
    // only reads: they change on this thread only when no task reads them (m_work).
    std::shared_ptr<Rows> m_rows;
    // While a filter is on: the rows shown, a subset of m_rows as it was when last
    // filtered, and the store their entries live in (kept until they are filtered again:
    // a refresh replaces m_store). Changes of m_rows reach the views only through them.
    std::shared_ptr<Rows> m_shown;
    std::shared_ptr<EntryStore> m_shownStore;
    NameFilter m_nameFilter;
    bool m_refilterWanted = false;   // the rows or the filter changed while a task ran
    bool m_sortWanted = false;       // a sort asked for while the filter was worked out
    std::vector<Rows> m_pending;     // sorted pages not merged yet
    std::vector<int> m_pendingOrder; // the order each pending page is sorted in
    EntryOrder m_order;
    std::shared_ptr<std::atomic<int>> m_listingOrder; // what the listing thread sorts pages by
    // What runs off the GUI thread: one task at a time, the others wait for it to end. A
    // listing runs beside it (m_watcher), gathered aside for a refresh (m_incoming).
    enum class Work { None, Sorting, Merging, PlanningRefresh, Filtering };
    Work m_work = Work::None;
    quint64 m_generation = 0; // changes whenever the rows change other than by merging
    int m_rowsOrder;          // EntryOrder::key() of the order m_rows is in; -1: none (to be sorted)
    quint64 m_workTicket = 0; // the sort or merge off the GUI thread whose result is wanted
    QTimer m_mergeTimer;
    QElapsedTimer m_sinceMerge;
    QString m_error;
    std::vector<std::string> m_skipped; // of the listing shown
    QFutureWatcher<ListingPage> *m_watcher = nullptr;
    int m_taken = 0;    // pages of the listing taken from m_watcher so far
    QTimer m_takeTimer; // takes the pages left when one turn's share is done
    DesktopExport m_desktopExport;
    Marks m_marks;
    bool m_marked = false;
    quint64 m_listingTicket = 0;            // the listing a refresh worked out belongs to
    std::shared_ptr<EntryStore> m_incoming; // a refresh's listing, gathered until it is complete
    QString m_incomingError;
    std::vector<std::string> m_incomingSkipped;
};

} // namespace strata

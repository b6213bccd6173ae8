#pragma once

#include "core/storage/entry.h"
#include "core/storage/registry.h"
#include "core/walk/find.h"
#include "ui/browser/directory_model.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <memory>
#include <thread>
#include <vector>

namespace strata {

// What a search below one folder found (the browser's Ctrl+Shift+F): the parallel walker
// (core/walk) runs on a thread of its own, keeps the entries FindFilter accepts, and the
// GUI thread takes them in every 100 ms as rows, so results stream in and the window never
// waits. Entries carry their full paths: every file action works on them as on a listing.
class SearchModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Folder, Size, Modified, Kind, ColumnCount };
    static constexpr std::size_t kMaxResults = 100'000; // then the walk stops: narrow the search

    explicit SearchModel(QObject *parent = nullptr);
    ~SearchModel() override;

    // Searches below `root` of `location`; what was shown goes at once.
    void start(const Location &location, FindCriteria criteria);
    void stop();  // keeps what was found
    void clear(); // stops and forgets
    bool running() const { return m_state != nullptr; }
    const Location &location() const { return m_location; }
    std::uint64_t looked() const { return m_looked; } // entries the walk passed so far
    bool truncated() const { return m_truncated; }    // stopped at kMaxResults
    bool stopped() const { return m_stopped; }        // by stop(), before the end
    QString error() const { return m_error; }         // the root could not be read
    int unreadable() const { return m_unreadable; }   // folders the walk could not list
    const Entry *entryAt(int row) const;
    void setDesktopExport(DirectoryModel::DesktopExport exportFiles) { m_desktopExport = std::move(exportFiles); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDragActions() const override { return Qt::CopyAction | Qt::MoveAction; }

Q_SIGNALS:
    void progress(); // rows came in, or the count of entries looked at moved
    void finished(); // the walk ended (done, stopped, truncated or failed)

private:
    struct State;
    void take();
    void retire();
    void applySort();

    Location m_location;
    std::vector<Entry> m_rows;
    std::shared_ptr<State> m_state;                       // of the running search
    std::unique_ptr<std::jthread> m_thread;               // the running search's walker
    std::vector<std::unique_ptr<std::jthread>> m_retired; // told to stop, joined once done
    std::vector<std::shared_ptr<State>> m_retiredStates;
    QTimer m_takeTimer;
    std::uint64_t m_looked = 0;
    bool m_truncated = false, m_stopped = false;
    QString m_error;
    int m_unreadable = 0;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    quint64 m_generation = 0; // changes whenever the rows are replaced
    DirectoryModel::DesktopExport m_desktopExport;
};

} // namespace strata

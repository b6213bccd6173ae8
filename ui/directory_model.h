#pragma once

#include "core/storage/entry.h"
#include "core/storage/registry.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QStringList>
#include <QUrl>

#include <functional>

#include <memory>
#include <vector>

namespace strata {

// One page of a listing as it comes back from the storage thread.
struct ListingChunk {
    std::vector<Entry> entries;
    QString error; // set on the last chunk of a failed listing
};

// One directory of any storage as a table (name, size, modified, kind). The listing runs
// off the GUI thread page by page; each page is appended as it arrives, so the first
// rows of a huge directory show while the rest streams in. A failed listing is model
// state (error()), not a dialog. Drags carry the entries' URIs; drops ask for transfers.
class DirectoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Size, Modified, Kind, ColumnCount };
    enum Role { EntryPathRole = Qt::UserRole + 1, IsDirRole, SortRole, UriRole };
    static constexpr auto UriListMime = "application/x-strata-uri-list";

    explicit DirectoryModel(QObject *parent = nullptr);
    ~DirectoryModel() override;

    // Lists `path` of `location`; what was shown goes at once.
    void setLocation(const Location &location);
    // Lists again; rows that stayed keep their place (selection and scroll survive).
    void refresh();
    const Location &location() const { return m_location; }
    QString uri() const; // redacted, for display
    QString uriOf(const std::string &path) const; // full URI, to open again

    bool loading() const { return m_watcher != nullptr; }
    QString error() const { return m_error; }
    const Entry *entryAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
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

Q_SIGNALS:
    // Listing started, finished or failed: the pane updates its status line.
    void stateChanged();
    // Dropped URIs should be copied (or moved) into the directory `destinationUri`.
    void transferRequested(const QStringList &sources, const QString &destinationUri, bool move);

private:
    void startListing();
    void stopListing();
    void appendPage(int index);
    void listingFinished();
    void applyRefresh();

    Location m_location;
    std::vector<Entry> m_entries;
    QString m_error;
    QFutureWatcher<ListingChunk> *m_watcher = nullptr;
    DesktopExport m_desktopExport;
    bool m_refreshing = false;       // a refresh gathers the listing here, then applies it
    std::vector<Entry> m_incoming;
    QString m_incomingError;
};

} // namespace strata

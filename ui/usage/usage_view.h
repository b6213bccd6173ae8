#pragma once

#include "core/storage/registry.h"
#include "ui/usage/treemap_widget.h"
#include "ui/usage/usage_tree.h"

#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QMenu;
class QPushButton;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace strata {

class AllocationMap;
class FileActions;

// Where the space goes below a folder of any connection. The page stands on its own: a
// location box (recent locations and the ones the window offers) with Scan and Cancel, a
// progress line while the walk runs (entries, bytes, rate), Open and Save for scans kept
// as files (core/walk/scan.h). A nested treemap of the current folder (treemap_widget.h;
// a click selects, a double click zooms in, Backspace and the breadcrumbs zoom out) with a
// legend of the file categories sits beside the tree of its entries, largest first, with
// size, size on disk, share and file count; the two selections follow each other. Walks
// and loads run on a thread of their own and can be cancelled.
class UsageView : public QWidget {
    Q_OBJECT
public:
    explicit UsageView(QWidget *parent = nullptr);
    ~UsageView() override;

    // Where Scan opens a typed URI (off the GUI thread); without one only scan() works.
    void setRegistry(Registry *registry) { m_registry = registry; }
    // How entries are deleted (the Files tab's confined delete); without, Delete is off.
    void setFileActions(FileActions *actions) { m_actions = actions; }
    // Locations offered in the box besides the recent ones (URIs).
    void setLocations(const QStringList &uris);
    QComboBox *locationBox() const { return m_location; }

    // Walks an opened location (credentials and all), as the Files tab's Ctrl+U does.
    void scan(const Location &location);
    // Opens the URI in the location box and walks it.
    void scanTyped();
    // Reads a saved scan instead of walking.
    void openScan(const QString &file);
    // Writes the scan on show to a file; false (and a message on the page) when it cannot.
    bool saveScan(const QString &file);
    void cancel();
    bool scanning() const { return m_worker.joinable() && !m_done; }
    // Shows a finished tree.
    void setTree(std::unique_ptr<UsageTree> tree, const QString &rootLabel);
    UsageNode *current() const { return m_current; }
    void zoomTo(UsageNode *node);
    TreemapWidget *treemap() const { return m_map; }
    QTreeWidget *largest() const { return m_list; }
    // The allocation map of the selected file (hidden unless its storage knows extents).
    AllocationMap *imageMap() const { return m_image; }
    QString statusText() const;
    // Scans opened or saved lately (files that still exist), newest first; the Open Scan
    // button's menu lists them.
    QStringList recentScans() const;
    QMenu *recentScansMenu() const { return m_recentScans; }

    // The URI of an entry of the tree on show; empty for a scan read from a file.
    QString uriOf(const UsageNode *node) const;
    // Asks, then deletes node (a file, or a folder with everything in it) from its storage
    // and, once gone, from the tree; only for a finished scan of a location.
    void deleteEntry(const UsageNode *node);
    // The entry selected in the map or the list (Delete and Copy URI of the window act on it).
    const UsageNode *selectedEntry() const;
    bool canDelete(const UsageNode *node) const;

    // The changes since a saved scan (the same comparison as strata du --compare): the map
    // colours growth, the list gains a Change column. Off again with a new tree.
    void compareWith(const QString &scanFile);
    void stopComparing();
    bool comparing() const { return m_changes != nullptr; }
    // What an entry of the tree on show was in the saved scan (none: it appeared).
    struct Change {
        std::uint64_t before = 0;
        bool appeared = false;
    };
    Change changeOf(const UsageNode *node) const;

Q_SIGNALS:
    void scanFinished(bool ok, const QString &message);
    // A picture of the scan under way is on show (a partial tree).
    void previewShown();
    void comparisonFinished(bool ok, const QString &message);
    void entryDeleted(bool ok);
    // "Open in Files tab": a folder (a file's folder) to show in a pane.
    void openRequested(const QString &uri);

private:
    // Whether the tree is worth showing, what to say about it (an error, folders missed),
    // and where it was walked (none for a saved scan).
    struct Outcome {
        bool ok = false;
        QString message;
        std::optional<Location> where;
        bool oneFile = false; // the location is a file (a disk image): the tree is that file
    };
    using Job = std::function<Outcome(std::stop_token, UsageTree &)>;
    // Runs job on the scan's thread and shows its tree; `recent`: the label is a location
    // to list among the recent ones once it scanned.
    void start(const QString &label, bool recent, Job job);
    Outcome walkInto(const Location &location, std::stop_token stop, UsageTree &tree);
    void showCurrent();
    // Shows a tree (a preview or the finished one), staying in the folder on show.
    void showTree(std::shared_ptr<UsageTree> tree);
    void applyComparison();
    QString changeText(const UsageNode *node) const;
    // The storage path of an entry of the tree on show (m_where set).
    std::string pathOf(const UsageNode *node) const;
    // Where a selected file's data, zeros and holes lie, where the storage can tell.
    void showImage(const UsageNode *node);
    void fill(QTreeWidgetItem *parent, const UsageNode &node);
    void remember(const QString &uri);
    void rememberScan(const QString &file);
    void listRecentScans();
    QTreeWidgetItem *itemOf(const UsageNode *node) const;
    void showMenu(const UsageNode *node, const QPoint &globalPos);

    Registry *m_registry = nullptr;
    FileActions *m_actions = nullptr;
    QComboBox *m_location;
    QPushButton *m_scan;
    QHBoxLayout *m_crumbs;
    QLabel *m_status;
    QPushButton *m_cancel;
    QPushButton *m_save;
    QPushButton *m_compare;
    QMenu *m_recentScans;
    QWidget *m_categoryLegend;
    TreemapWidget *m_map;
    QTreeWidget *m_list;
    QTimer *m_progress;
    std::shared_ptr<UsageTree> m_tree; // shared with a drawing in progress
    QString m_zoom;                    // the path of m_current, kept when a new picture comes
    bool m_partial = false;            // m_tree is a picture of a scan under way
    // Changes since a saved scan, by entry of m_tree (absent: unchanged or below one that
    // appeared), and what the status line says about them.
    using Changes = QHash<const UsageNode *, Change>;
    std::shared_ptr<const Changes> m_changes;
    QString m_changesSummary;
    QWidget *m_changeLegend = nullptr;
    bool m_oneFile = false; // the scanned location is one file (the tree's only entry)
    QLabel *m_imageTitle;
    QString m_imageName;
    AllocationMap *m_image;
    std::optional<Location> m_where; // where m_tree was walked
    UsageNode *m_current = nullptr;
    QString m_rootLabel;
    QString m_scanning;         // the label of the scan under way
    quint64 m_generation = 0;   // of the scan under way: a late end of an older one is dropped
    std::int64_t m_started = 0; // ms since the epoch, of the scan in progress
    std::atomic<std::uint64_t> m_seen{0};
    std::atomic<std::uint64_t> m_bytes{0};
    bool m_done = true;
    QString m_failure;     // why the last scan ended without a tree (what the status line says)
    std::jthread m_worker; // last: stopped and joined before the members it uses go
};

} // namespace strata

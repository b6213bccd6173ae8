#pragma once

#include "core/storage/registry.h"
#include "ui/treemap_widget.h"
#include "ui/usage_tree.h"

#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace strata {

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
    QString statusText() const;

    // The URI of an entry of the tree on show; empty for a scan read from a file.
    QString uriOf(const UsageNode *node) const;

Q_SIGNALS:
    void scanFinished(bool ok, const QString &message);
    // "Open in Files tab": a folder (a file's folder) to show in a pane.
    void openRequested(const QString &uri);

private:
    // Whether the tree is worth showing, what to say about it (an error, folders missed),
    // and where it was walked (none for a saved scan).
    struct Outcome {
        bool ok = false;
        QString message;
        std::optional<Location> where;
    };
    using Job = std::function<Outcome(std::stop_token, UsageTree &)>;
    // Runs job on the scan's thread and shows its tree; `recent`: the label is a location
    // to list among the recent ones once it scanned.
    void start(const QString &label, bool recent, Job job);
    Outcome walkInto(const Location &location, std::stop_token stop, UsageTree &tree);
    void showCurrent();
    void fill(QTreeWidgetItem *parent, const UsageNode &node);
    void remember(const QString &uri);
    QTreeWidgetItem *itemOf(const UsageNode *node) const;
    void showMenu(const UsageNode *node, const QPoint &globalPos);

    Registry *m_registry = nullptr;
    QComboBox *m_location;
    QPushButton *m_scan;
    QHBoxLayout *m_crumbs;
    QLabel *m_status;
    QPushButton *m_cancel;
    QPushButton *m_save;
    TreemapWidget *m_map;
    QTreeWidget *m_list;
    QTimer *m_progress;
    std::shared_ptr<UsageTree> m_tree; // shared with a drawing in progress
    std::optional<Location> m_where;   // where m_tree was walked
    UsageNode *m_current = nullptr;
    QString m_rootLabel;
    QString m_scanning;         // the label of the scan under way
    quint64 m_generation = 0;   // of the scan under way: a late end of an older one is dropped
    std::int64_t m_started = 0; // ms since the epoch, of the scan in progress
    std::atomic<std::uint64_t> m_seen{0};
    std::atomic<std::uint64_t> m_bytes{0};
    bool m_done = true;
    std::jthread m_worker; // last: stopped and joined before the members it uses go
};

} // namespace strata

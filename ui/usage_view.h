#pragma once

#include "core/storage/registry.h"
#include "ui/treemap_widget.h"
#include "ui/usage_tree.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <thread>

class QHBoxLayout;
class QLabel;
class QPushButton;
class QTimer;
class QTreeWidget;

namespace strata {

// Where the space goes below a folder of any connection: a nested treemap of the current
// folder (treemap_widget.h; a click selects, a double click zooms in, Backspace and the
// breadcrumbs zoom out) with a legend of the file categories, beside the list of its
// largest children, whose selection follows the map's. The scan runs on a thread of its
// own with live counts and can be cancelled.
class UsageView : public QWidget {
    Q_OBJECT
public:
    explicit UsageView(QWidget *parent = nullptr);
    ~UsageView() override;

    void scan(const Location &location);
    void cancel();
    bool scanning() const { return m_worker.joinable() && !m_done; }
    // Shows a finished tree (the view owns it).
    void setTree(std::unique_ptr<UsageTree> tree, const QString &rootLabel);
    UsageNode *current() const { return m_current; }
    void zoomTo(UsageNode *node);
    TreemapWidget *treemap() const { return m_map; }
    QTreeWidget *largest() const { return m_list; }

Q_SIGNALS:
    void scanFinished(bool ok, const QString &message);

private:
    void showCurrent();

    QHBoxLayout *m_crumbs;
    QLabel *m_status;
    QPushButton *m_cancel;
    TreemapWidget *m_map;
    QTreeWidget *m_list;
    QTimer *m_progress;
    std::shared_ptr<UsageTree> m_tree; // shared with a drawing in progress
    UsageNode *m_current = nullptr;
    QString m_rootLabel;
    std::atomic<std::uint64_t> m_seen{0};
    bool m_done = true;
    std::jthread m_worker; // last: stopped and joined before the members it uses go
};

} // namespace strata

#pragma once

#include "core/storage/registry.h"
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

class TreemapWidget;

// Where the space goes below a folder of any connection: a squarified treemap of the
// current folder's children (hover shows path and size, a click on a folder zooms in,
// the breadcrumbs zoom out) beside the list of its largest children. The scan runs on a
// thread of its own with live counts and can be cancelled.
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
    std::unique_ptr<UsageTree> m_tree;
    UsageNode *m_current = nullptr;
    QString m_rootLabel;
    std::atomic<std::uint64_t> m_seen{0};
    bool m_done = true;
    std::jthread m_worker; // last: stopped and joined before the members it uses go
};

// The treemap itself: one rectangle per child of a node, area by size.
class TreemapWidget : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;
    void setNode(UsageNode *node);
    // The rectangles of the node's children, in their order (largest first).
    const std::vector<QRectF> &rects() const { return m_rects; }
    UsageNode *childAt(const QPointF &pos) const;

Q_SIGNALS:
    void zoomRequested(strata::UsageNode *node);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    void layoutRects();
    UsageNode *m_node = nullptr;
    std::vector<QRectF> m_rects;
};

} // namespace strata

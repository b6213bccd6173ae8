#pragma once

#include "ui/usage/treemap.h"

#include <QImage>
#include <QWidget>

#include <memory>

namespace strata {

struct UsageNode;
class UsageTree;

// The treemap of a folder: everything below it nested (folders framed, files in the colours
// of their categories, cushion-shaded), laid out and drawn off the GUI thread. A click
// selects the tile under the cursor, a double click or the wheel zooms into the folder
// there, Backspace or the wheel back zooms out; the tooltip names path, size, share and
// file count.
class TreemapWidget : public QWidget {
    Q_OBJECT
public:
    explicit TreemapWidget(QWidget *parent = nullptr);
    ~TreemapWidget() override;

    // Shows node; `tree` (where it belongs) is kept alive, and read under its lock, while a
    // drawing of it is being made.
    void setNode(UsageNode *node, std::shared_ptr<const UsageTree> tree = {});
    // Leaves coloured by `coloring` instead of by category (none: by category again).
    void setColoring(TileColoring coloring);
    // A last line for the tooltip of a tile (the change since a saved scan); none: no line.
    void setTooltipNote(std::function<QString(const UsageNode &)> note) { m_note = std::move(note); }
    UsageNode *node() const { return m_node; }
    // The rectangles of the node's children, in their order (largest first).
    const std::vector<QRectF> &rects() const { return m_rects; }
    // The node's child whose rectangle holds pos (a folder or a file), if any.
    UsageNode *childAt(const QPointF &pos) const;
    // The deepest tile drawn at pos (a file, or a folder too small to open), if any.
    const UsageNode *tileAt(const QPointF &pos) const;
    const UsageNode *selected() const { return m_selected; }
    void select(const UsageNode *node);
    // Whether the drawing of the current node and size is on screen (not still being made).
    bool drawn() const { return m_drawnGeneration == m_generation; }
    // How long the last drawing took off the GUI thread (layout and shading), in ms.
    double lastDrawMs() const { return m_lastDrawMs; }

Q_SIGNALS:
    void zoomRequested(strata::UsageNode *node);
    void zoomOutRequested();
    void selectionChanged(const strata::UsageNode *node);
    void drawingFinished();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void relayout();
    QRectF mapArea() const;

    UsageNode *m_node = nullptr;
    std::shared_ptr<const UsageTree> m_tree;
    TileColoring m_coloring;
    std::function<QString(const UsageNode &)> m_note;
    std::vector<QRectF> m_rects;
    // The drawing on screen and its tiles (shared with the thread that made them).
    std::shared_ptr<const std::vector<TreemapTile>> m_tiles;
    QImage m_image;
    const UsageNode *m_selected = nullptr;
    quint64 m_generation = 0, m_drawnGeneration = 0;
    double m_lastDrawMs = 0;
};

} // namespace strata

#include "ui/usage/treemap_widget.h"

#include "ui/common/entry_format.h"
#include "ui/usage/usage_tree.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

namespace strata {

TreemapWidget::TreemapWidget(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
}

TreemapWidget::~TreemapWidget() = default;

QRectF TreemapWidget::mapArea() const
{
    return QRectF(rect()).adjusted(1, 1, -1, -1);
}

void TreemapWidget::setNode(UsageNode *node, std::shared_ptr<const UsageTree> tree)
{
    m_node = node;
    m_tree = std::move(tree);
    m_selected = nullptr;
    relayout();
}

void TreemapWidget::setColoring(TileColoring coloring)
{
    m_coloring = std::move(coloring);
    relayout();
}

void TreemapWidget::select(const UsageNode *node)
{
    if (m_selected == node)
        return;
    m_selected = node;
    update();
    Q_EMIT selectionChanged(node);
}

void TreemapWidget::relayout()
{
    const quint64 generation = ++m_generation;
    m_rects.clear();
    if (!m_node || mapArea().isEmpty()) {
        m_tiles.reset();
        m_image = QImage();
        m_drawnGeneration = generation;
        update();
        Q_EMIT drawingFinished();
        return;
    }
    std::vector<double> weights;
    for (const auto &c : m_node->children)
        weights.push_back(double(c->bytes));
    m_rects = squarify(weights, mapArea());
    // Layout and shading of a large tree take tens of milliseconds: a worker does them and
    // the newest result replaces the picture (an older one that comes late is dropped).
    const UsageNode *node = m_node;
    const QRectF area = mapArea();
    const QSize size = this->size();
    QPointer<TreemapWidget> self(this);
    (void)QtConcurrent::run([self, node, tree = m_tree, coloring = m_coloring, area, size, generation] {
        // The tree lives and holds still (no delete) until the drawing is done.
        std::shared_lock<std::shared_mutex> lock;
        if (tree)
            lock = std::shared_lock(tree->mutex());
        QElapsedTimer timer;
        timer.start();
        auto tiles = std::make_shared<const std::vector<TreemapTile>>(layoutTreemap(*node, area));
        QImage image = renderTreemap(*tiles, size, coloring);
        lock = {};
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        // The application as the context: the widget may go while this thread posts (the
        // QPointer is checked on the GUI thread).
        QMetaObject::invokeMethod(
            qApp,
            [self, tiles = std::move(tiles), image = std::move(image), generation, ms]() mutable {
                if (!self || generation != self->m_generation)
                    return;
                self->m_tiles = std::move(tiles);
                self->m_image = std::move(image);
                self->m_drawnGeneration = generation;
                self->m_lastDrawMs = ms;
                self->update();
                Q_EMIT self->drawingFinished();
            },
            Qt::QueuedConnection);
    });
}

UsageNode *TreemapWidget::childAt(const QPointF &pos) const
{
    for (std::size_t i = 0; i < m_rects.size(); ++i)
        if (m_rects[i].contains(pos))
            return m_node->children[i].get();
    return nullptr;
}

const UsageNode *TreemapWidget::tileAt(const QPointF &pos) const
{
    if (!m_tiles || !drawn())
        return childAt(pos);
    // Tiles come parents first: the last one holding pos is the deepest.
    const UsageNode *found = nullptr;
    for (const TreemapTile &t : *m_tiles)
        if (t.rect.contains(pos))
            found = t.node;
    return found;
}

void TreemapWidget::resizeEvent(QResizeEvent *)
{
    relayout();
}

void TreemapWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_node || m_node->children.empty()) {
        p.drawText(rect(), Qt::AlignCenter,
                   m_node ? tr("This folder is empty")
                          : tr("Choose a location and press Scan to see where its space goes"));
        return;
    }
    if (!m_image.isNull())
        p.drawImage(rect(), m_image); // the last drawing, stretched until the new one is ready
    // The top level's names where they fit.
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        const QRectF r = m_rects[i];
        if (r.width() < 70 || r.height() < 2.4 * fontMetrics().height())
            continue;
        const UsageNode &child = *m_node->children[i];
        const QString label =
            child.name + (child.dir ? QStringLiteral("/") : QString()) + QLatin1Char('\n') + sizeString(child.bytes);
        const QRectF box = p.boundingRect(r.adjusted(4, 3, -4, -3), Qt::AlignLeft | Qt::AlignTop, label);
        p.fillRect(box.adjusted(-2, -1, 2, 1), QColor(255, 255, 255, 170));
        p.setPen(Qt::black);
        p.drawText(box, Qt::AlignLeft | Qt::AlignTop, label);
    }
    // The selection: its tile (or the top-level rectangle it is in) outlined.
    if (m_selected) {
        QRectF at;
        if (m_tiles)
            for (const TreemapTile &t : *m_tiles)
                if (t.node == m_selected)
                    at = t.rect;
        for (std::size_t i = 0; at.isNull() && i < m_rects.size(); ++i)
            if (m_node->children[i].get() == m_selected)
                at = m_rects[i];
        if (!at.isNull()) {
            p.setPen(QPen(Qt::white, 3));
            p.drawRect(at.adjusted(1, 1, -1, -1));
            p.setPen(QPen(Qt::black, 1));
            p.drawRect(at.adjusted(1, 1, -1, -1));
        }
    }
}

void TreemapWidget::mouseMoveEvent(QMouseEvent *event)
{
    const UsageNode *n = tileAt(event->position());
    if (!n || !m_node) {
        QToolTip::hideText();
        return;
    }
    const double share = 100.0 * double(n->bytes) / double(std::max<std::uint64_t>(1, m_node->bytes));
    QString text = tr("%1\n%2 (%L3 bytes), %4% of this folder")
                       .arg(n->path(), sizeString(n->bytes))
                       .arg(n->bytes)
                       .arg(share, 0, 'f', 1);
    if (n->dir)
        text += QLatin1Char('\n') + tr("%n file(s); double-click to zoom in", nullptr, int(n->files));
    else
        text += QLatin1Char('\n') + (n->kept != Kept::No ? keptName(n->kept) : categoryName(categoryOf(n->name)));
    if (m_note)
        if (const QString note = m_note(*n); !note.isEmpty())
            text += QLatin1Char('\n') + note;
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void TreemapWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        select(tileAt(event->position()));
}

void TreemapWidget::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (UsageNode *n = childAt(event->position()); n && n->dir && event->button() == Qt::LeftButton)
        Q_EMIT zoomRequested(n);
}

void TreemapWidget::wheelEvent(QWheelEvent *event)
{
    if (event->angleDelta().y() > 0) {
        if (UsageNode *n = childAt(event->position()); n && n->dir)
            Q_EMIT zoomRequested(n);
    } else if (event->angleDelta().y() < 0) {
        Q_EMIT zoomOutRequested();
    }
    event->accept();
}

void TreemapWidget::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Backspace || (event->key() == Qt::Key_Up && event->modifiers() & Qt::AltModifier)) {
        Q_EMIT zoomOutRequested();
        return;
    }
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        // Into the top-level folder that holds the selection.
        const UsageNode *n = m_selected;
        while (n && n->parent && n->parent != m_node)
            n = n->parent;
        if (n && n->parent == m_node && n->dir)
            Q_EMIT zoomRequested(const_cast<UsageNode *>(n));
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace strata

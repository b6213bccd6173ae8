#include "ui/browser/browser_view.h"

#include "ui/browser/drag_mime_data.h"

#include <QAbstractButton>
#include <QDrag>
#include <QDragMoveEvent>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPainter>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOptionFocusRect>
#include <QStyleOptionViewItem>

#include <algorithm>
#include <climits>

namespace strata {

namespace {

// The table's row header, with no rows: it never sees the model, so it keeps no item per
// row. Hidden; the view places the rows.
class RowlessHeader : public QHeaderView {
public:
    explicit RowlessHeader(QWidget *parent) : QHeaderView(Qt::Vertical, parent) { hide(); }
    void setModel(QAbstractItemModel *) override {}
    void setSelectionModel(QItemSelectionModel *) override {}
};

} // namespace

BrowserView::BrowserView(QWidget *parent) : QTableView(parent)
{
    setVerticalHeader(new RowlessHeader(this));
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setShowGrid(false);
    setWordWrap(false);
    setTabKeyNavigation(false); // Tab leaves the list, as it leaves a tree
    setCornerButtonEnabled(false);
    // The table's corner button sits where row and column headers meet; with no row header
    // it would cover the first column's title (updateGeometries here does not place it).
    for (auto *corner : findChildren<QAbstractButton *>(Qt::FindDirectChildrenOnly))
        corner->hide();
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setDragDropOverwriteMode(false); // a drop between rows goes into the folder shown, as in a tree
    horizontalHeader()->setHighlightSections(false);
    horizontalHeader()->setSectionsMovable(true); // columns reorder, the first stays first
    horizontalHeader()->setFirstSectionMovable(false);
    horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    fitRowHeight();
}

QHeaderView *BrowserView::header() const
{
    return horizontalHeader();
}

// Rows arriving or going change only the scroll range and what is painted: no header to
// tell (the table learns it from its row header's count, which here stays empty).
void BrowserView::setModel(QAbstractItemModel *model)
{
    if (model == this->model())
        return;
    if (QAbstractItemModel *old = this->model())
        disconnect(old, nullptr, this, nullptr);
    QTableView::setModel(model);
    if (!model)
        return;
    const auto changed = [this] {
        updateGeometries();
        viewport()->update();
    };
    // Rows added or removed below the last row shown change only the scroll bar (a folder
    // listed in order grows at its end: no repaint for each page).
    const auto changedFrom = [this](const QModelIndex &parent, int first) {
        updateGeometries();
        const int lastShown = rowAtY(viewport()->height() - 1);
        if (parent != rootIndex() || lastShown < 0 || first <= lastShown)
            viewport()->update();
    };
    connect(model, &QAbstractItemModel::rowsInserted, this,
            [changedFrom](const QModelIndex &parent, int first, int) { changedFrom(parent, first); });
    connect(model, &QAbstractItemModel::rowsRemoved, this,
            [changedFrom](const QModelIndex &parent, int first, int) { changedFrom(parent, first); });
    connect(model, &QAbstractItemModel::modelReset, this, changed);
    connect(model, &QAbstractItemModel::layoutChanged, this, changed);
}

int BrowserView::rows() const
{
    return model() ? model()->rowCount(rootIndex()) : 0;
}

int BrowserView::rowAtY(int y) const
{
    const qint64 at = qint64(y) + verticalOffset();
    if (at < 0 || m_rowHeight <= 0)
        return -1;
    const qint64 row = at / m_rowHeight;
    return row < rows() ? int(row) : -1;
}

QRect BrowserView::rowRect(int row) const
{
    const qint64 top = qint64(row) * m_rowHeight - verticalOffset();
    const QHeaderView *columns = horizontalHeader();
    return QRect(-columns->offset(), int(std::clamp<qint64>(top, INT_MIN / 2, INT_MAX / 2)),
                 std::max(columns->length(), viewport()->width()), m_rowHeight);
}

QRect BrowserView::visualRect(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != model() || index.parent() != rootIndex() || isIndexHidden(index))
        return {};
    const QHeaderView *columns = horizontalHeader();
    const QRect row = rowRect(index.row());
    return QRect(columns->sectionViewportPosition(index.column()), row.top(), columns->sectionSize(index.column()),
                 m_rowHeight);
}

QModelIndex BrowserView::indexAt(const QPoint &point) const
{
    const int row = rowAtY(point.y());
    const int column = horizontalHeader()->logicalIndexAt(point.x());
    if (row < 0 || column < 0)
        return {};
    return model()->index(row, column, rootIndex());
}

int BrowserView::verticalOffset() const
{
    return verticalScrollBar()->value();
}

bool BrowserView::isIndexHidden(const QModelIndex &index) const
{
    return isColumnHidden(index.column());
}

void BrowserView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    if (!index.isValid() || index.model() != model())
        return;
    const qint64 top = qint64(index.row()) * m_rowHeight;
    const qint64 height = viewport()->height(), now = verticalScrollBar()->value();
    qint64 wanted = now;
    switch (hint) {
    case EnsureVisible:
        if (top < now)
            wanted = top;
        else if (top + m_rowHeight > now + height)
            wanted = top + m_rowHeight - height;
        break;
    case PositionAtTop: wanted = top; break;
    case PositionAtBottom: wanted = top + m_rowHeight - height; break;
    case PositionAtCenter: wanted = top - (height - m_rowHeight) / 2; break;
    }
    verticalScrollBar()->setValue(int(std::clamp<qint64>(wanted, 0, INT_MAX)));
    // The column too, when it is out of sight (rows are selected whole: rarely).
    const QHeaderView *columns = horizontalHeader();
    const int left = columns->sectionPosition(index.column()), width = columns->sectionSize(index.column());
    QScrollBar *across = horizontalScrollBar();
    if (left < across->value())
        across->setValue(left);
    else if (left + width > across->value() + viewport()->width())
        across->setValue(std::min(left, left + width - viewport()->width()));
    viewport()->update();
}

// Up/Down and the page keys move by rows, Home / End to the first and last row; Left and
// Right scroll sideways, as in a tree.
QModelIndex BrowserView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers)
{
    const int count = rows();
    if (count == 0)
        return {};
    const QModelIndex current = currentIndex();
    int column = current.isValid() ? current.column() : horizontalHeader()->logicalIndex(0);
    if (column < 0)
        column = 0;
    if (!current.isValid()) // the first move lands on the first row, End on the last
        return model()->index(cursorAction == MoveEnd ? count - 1 : 0, column, rootIndex());
    const int page = std::max(1, viewport()->height() / std::max(1, m_rowHeight) - 1);
    int row = current.row();
    switch (cursorAction) {
    case MoveUp:
    case MovePrevious: --row; break;
    case MoveDown:
    case MoveNext: ++row; break;
    case MovePageUp: row -= page; break;
    case MovePageDown: row += page; break;
    case MoveHome: row = 0; break;
    case MoveEnd: row = count - 1; break;
    case MoveLeft:
    case MoveRight: {
        QScrollBar *across = horizontalScrollBar();
        across->setValue(across->value() + (cursorAction == MoveLeft ? -1 : 1) * across->singleStep());
        return current;
    }
    }
    return model()->index(std::clamp(row, 0, count - 1), column, rootIndex());
}

void BrowserView::setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command)
{
    if (!selectionModel() || !model())
        return;
    const QRect r = rect.normalized();
    const int count = rows();
    const qint64 top = qint64(r.top()) + verticalOffset(), bottom = qint64(r.bottom()) + verticalOffset();
    if (count == 0 || bottom < 0 || top >= qint64(count) * m_rowHeight) {
        selectionModel()->select(QItemSelection(), command); // a click below the rows clears
        return;
    }
    const int first = int(std::max<qint64>(0, top / m_rowHeight));
    const int last = int(std::min<qint64>(count - 1, bottom / m_rowHeight));
    const int columns = model()->columnCount(rootIndex());
    const QItemSelection selection(model()->index(first, 0, rootIndex()),
                                   model()->index(last, std::max(0, columns - 1), rootIndex()));
    selectionModel()->select(selection, command | QItemSelectionModel::Rows);
}

QRegion BrowserView::visualRegionForSelection(const QItemSelection &selection) const
{
    QRegion region;
    const QRect shown = viewport()->rect();
    for (const QItemSelectionRange &range : selection) {
        if (!range.isValid() || range.parent() != rootIndex())
            continue;
        const QRect first = rowRect(range.top());
        const qint64 height = qint64(range.bottom() - range.top() + 1) * m_rowHeight;
        const QRect rows(shown.left(), first.top(), shown.width(), int(std::min<qint64>(height, INT_MAX / 2)));
        region += rows.intersected(shown);
    }
    return region;
}

void BrowserView::updateGeometries()
{
    if (m_placing)
        return; // setting the margins resized the viewport
    m_placing = true;
    QHeaderView *columns = horizontalHeader();
    const int top = columns->isHidden()
        ? 0
        : std::clamp(columns->sizeHint().height(), columns->minimumHeight(), columns->maximumHeight());
    setViewportMargins(0, top, 0, 0);
    const QRect shown = viewport()->geometry();
    columns->setGeometry(shown.left(), shown.top() - top, shown.width(), top);
    if (columns->isHidden())
        QMetaObject::invokeMethod(columns, "updateGeometries");
    const qint64 height = qint64(rows()) * m_rowHeight; // beyond INT_MAX (90 million rows): not reached
    QScrollBar *down = verticalScrollBar();
    down->setSingleStep(m_rowHeight);
    down->setPageStep(shown.height());
    down->setRange(0, int(std::clamp<qint64>(height - shown.height(), 0, INT_MAX)));
    QScrollBar *across = horizontalScrollBar();
    across->setSingleStep(std::max(1, m_rowHeight));
    across->setPageStep(shown.width());
    across->setRange(0, std::max(0, columns->length() - shown.width()));
    m_placing = false;
    QAbstractItemView::updateGeometries();
}

// A column as wide as its widest row among those shown (a double click on its edge): the
// table's own version reads rows through its row header, here empty.
int BrowserView::sizeHintForColumn(int column) const
{
    if (!model())
        return -1;
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    const int first = std::max(0, rowAtY(0));
    int last = rowAtY(viewport()->height() - 1);
    if (last < 0)
        last = rows() - 1;
    int widest = -1;
    for (int row = first; row <= last; ++row) {
        const QModelIndex index = model()->index(row, column, rootIndex());
        if (index.isValid())
            widest = std::max(widest, itemDelegateForIndex(index)->sizeHint(option, index).width());
    }
    return widest;
}

QSize BrowserView::viewportSizeHint() const
{
    return QSize(horizontalHeader()->length(), int(std::min<qint64>(qint64(rows()) * m_rowHeight, 4096)));
}

void BrowserView::paintEvent(QPaintEvent *event)
{
    if (!model())
        return;
    QPainter painter(viewport());
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    const QStyle::State base = option.state;
    const QPalette::ColorGroup group = !isEnabled() ? QPalette::Disabled
        : isActiveWindow()                          ? QPalette::Active
                                                    : QPalette::Inactive;
    option.palette.setCurrentColorGroup(group);
    const QRect area = event->rect();
    const int first = rowAtY(std::max(0, area.top()));
    if (first < 0)
        return;
    const int last = std::max(first, rowAtY(area.bottom()) < 0 ? rows() - 1 : rowAtY(area.bottom()));
    const QHeaderView *columns = horizontalHeader();
    int firstColumn = columns->visualIndexAt(area.left()), lastColumn = columns->visualIndexAt(area.right());
    if (firstColumn < 0)
        firstColumn = 0;
    if (lastColumn < 0)
        lastColumn = columns->count() - 1;
    const QItemSelectionModel *selection = selectionModel();
    const QModelIndex current = currentIndex();
    for (int row = first; row <= last; ++row) {
        const QRect whole = rowRect(row);
        const bool selected = selection && selection->isRowSelected(row, rootIndex());
        QStyleOptionViewItem rowOption = option;
        rowOption.rect = QRect(0, whole.top(), viewport()->width(), m_rowHeight);
        rowOption.state = base | (selected ? QStyle::State_Selected : QStyle::State_None);
        if (alternatingRowColors() && row % 2)
            rowOption.features |= QStyleOptionViewItem::Alternate;
        else
            rowOption.features &= ~QStyleOptionViewItem::Alternate;
        style()->drawPrimitive(QStyle::PE_PanelItemViewRow, &rowOption, &painter, this);
        for (int visual = firstColumn; visual <= lastColumn; ++visual) {
            const int column = columns->logicalIndex(visual);
            if (column < 0 || columns->isSectionHidden(column))
                continue;
            const QModelIndex index = model()->index(row, column, rootIndex());
            QStyleOptionViewItem cell = rowOption;
            cell.rect =
                QRect(columns->sectionViewportPosition(column), whole.top(), columns->sectionSize(column), m_rowHeight);
            if (!(model()->flags(index) & Qt::ItemIsEnabled))
                cell.state &= ~QStyle::State_Enabled;
            itemDelegateForIndex(index)->paint(&painter, cell, index);
        }
        if (current.isValid() && current.row() == row && hasFocus()) { // the whole row has the focus
            QStyleOptionFocusRect focus;
            focus.QStyleOption::operator=(rowOption);
            focus.rect = QRect(whole.left(), whole.top(), columns->length(), m_rowHeight);
            focus.backgroundColor = option.palette.color(group, selected ? QPalette::Highlight : QPalette::Base);
            style()->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, &painter, this);
        }
    }
    if (m_dropRow.isValid() && m_dropRow.model() == model()) {
        QStyleOption drop;
        drop.initFrom(this);
        drop.rect = rowRect(m_dropRow.row()).intersected(viewport()->rect());
        style()->drawPrimitive(QStyle::PE_IndicatorItemViewItemDrop, &drop, &painter, this);
    }
}

// A folder row a drag would drop into is framed.
void BrowserView::dragMoveEvent(QDragMoveEvent *event)
{
    QTableView::dragMoveEvent(event);
    QModelIndex target;
    if (event->isAccepted() && dropIndicatorPosition() == OnItem)
        if (const QModelIndex at = indexAt(event->position().toPoint()); at.isValid())
            target = at.siblingAtColumn(0);
    if (target != QModelIndex(m_dropRow)) {
        m_dropRow = target;
        viewport()->update();
    }
}

void BrowserView::dragLeaveEvent(QDragLeaveEvent *event)
{
    m_dropRow = QPersistentModelIndex();
    viewport()->update();
    QTableView::dragLeaveEvent(event);
}

void BrowserView::dropEvent(QDropEvent *event)
{
    m_dropRow = QPersistentModelIndex();
    viewport()->update();
    QTableView::dropEvent(event);
}

void BrowserView::fitRowHeight()
{
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    option.features |= QStyleOptionViewItem::HasDisplay | QStyleOptionViewItem::HasDecoration;
    option.text = QStringLiteral("Xg");
    const int icon = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    option.decorationSize = QSize(icon, icon);
    const int height = style()->sizeFromContents(QStyle::CT_ItemViewItem, &option, QSize(), this).height();
    m_rowHeight = std::max({height, fontMetrics().height() + 2, 1});
    updateGeometries();
    viewport()->update();
}

void BrowserView::changeEvent(QEvent *event)
{
    QTableView::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        fitRowHeight();
}

void BrowserView::startDrag(Qt::DropActions supportedActions)
{
    QModelIndexList indexes;
    for (const QModelIndex &index : selectionModel()->selectedRows())
        if (model()->flags(index) & Qt::ItemIsDragEnabled)
            indexes << index;
    if (indexes.isEmpty())
        return;
    QMimeData *payload = model()->mimeData(indexes);
    if (!payload)
        return;
    auto *drag = new QDrag(this);
    drag->setMimeData(payload);
    const QIcon icon = indexes.front().data(Qt::DecorationRole).value<QIcon>();
    if (!icon.isNull())
        drag->setPixmap(icon.pixmap(32, 32));
    if (auto *mime = qobject_cast<DragMimeData *>(payload))
        connect(drag, &QDrag::targetChanged, mime, [mime](QObject *target) {
            if (!target) // over another application: the desktop will want files
                mime->exportNow();
        });
    drag->exec(supportedActions, defaultDropAction());
}

} // namespace strata

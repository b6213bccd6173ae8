#pragma once

#include <QTableView>

class QHeaderView;

namespace strata {

// The detail view of a pane: a list of rows, one entry each, in columns; rows selected
// whole, all one height, no grid, Home / End to the first and last row. A table whose rows
// the view places itself, by arithmetic: QTreeView lays every row out again (an item each)
// whenever rows arrive, are sorted or a folder is shown, and a table's row header keeps an
// item per row and rebuilds them; either is 10-20 ms a million rows, on the GUI thread,
// for every change. Here a change costs the same for ten rows or ten million. Still a
// QTableView to everything else (accessibility: a table of rows and columns).
// Its drags tell the dragged data when they leave the application, so remote files are
// fetched for the desktop only then (DragMimeData).
class BrowserView : public QTableView {
    Q_OBJECT
public:
    explicit BrowserView(QWidget *parent = nullptr);
    // The column header (a table's horizontal one).
    QHeaderView *header() const;
    void setModel(QAbstractItemModel *model) override;

    QRect visualRect(const QModelIndex &index) const override;
    QModelIndex indexAt(const QPoint &point) const override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void startDrag(Qt::DropActions supportedActions) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    void setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command) override;
    QRegion visualRegionForSelection(const QItemSelection &selection) const override;
    int verticalOffset() const override;
    bool isIndexHidden(const QModelIndex &index) const override;
    void updateGeometries() override;
    int sizeHintForColumn(int column) const override;
    QSize viewportSizeHint() const override;
    void changeEvent(QEvent *event) override;

private:
    int rows() const;
    int rowAtY(int y) const; // the row at a viewport y, or -1
    QRect rowRect(int row) const;
    // Rows as high as the style makes an item with an icon and a line of text.
    void fitRowHeight();

    int m_rowHeight = 20;
    bool m_placing = false;          // in updateGeometries
    QPersistentModelIndex m_dropRow; // the folder row a drag hovers, drawn framed
};

} // namespace strata

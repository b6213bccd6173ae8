#pragma once

#include <QTreeView>

namespace strata {

// The detail view of a pane. Its drags tell the dragged data when they leave the
// application, so remote files are fetched for the desktop only then (DragMimeData).
class BrowserView : public QTreeView {
    Q_OBJECT
public:
    using QTreeView::QTreeView;

protected:
    void startDrag(Qt::DropActions supportedActions) override;
};

} // namespace strata

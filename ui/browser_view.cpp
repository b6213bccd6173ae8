#include "ui/browser_view.h"

#include "ui/drag_mime_data.h"

#include <QDrag>
#include <QItemSelectionModel>

namespace strata {

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

#pragma once

#include <QMimeData>
#include <QUrl>

#include <functional>

namespace strata {

// What a drag out of a pane carries. Strata's own panes read the exact URIs; the desktop
// reads text/uri-list, which for remote entries names local copies that are fetched only
// once the drag leaves the window (or the desktop asks for the list): a drag between the
// panes never downloads anything.
class DragMimeData : public QMimeData {
    Q_OBJECT
public:
    using Export = std::function<QList<QUrl>()>;
    // exportRemote: starts fetching the remote entries and returns their local URLs.
    DragMimeData(QList<QUrl> localUrls, Export exportRemote);

    void exportNow();
    bool exported() const { return m_exported; }
    QStringList formats() const override;
    bool hasFormat(const QString &mimeType) const override;

protected:
    QVariant retrieveData(const QString &mimeType, QMetaType type) const override;

private:
    QList<QUrl> m_urls;
    Export m_export;
    bool m_exported = false;
};

} // namespace strata

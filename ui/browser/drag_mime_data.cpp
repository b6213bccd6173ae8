#include "ui/browser/drag_mime_data.h"

namespace strata {

namespace {
const QString kUriList = QStringLiteral("text/uri-list");
}

DragMimeData::DragMimeData(QList<QUrl> localUrls, Export exportRemote)
    : m_urls(std::move(localUrls)), m_export(std::move(exportRemote))
{
    m_exported = !m_export;
}

void DragMimeData::exportNow()
{
    if (m_exported)
        return;
    m_exported = true;
    m_urls << m_export();
}

QStringList DragMimeData::formats() const
{
    QStringList out = QMimeData::formats();
    if ((!m_urls.isEmpty() || !m_exported) && !out.contains(kUriList))
        out << kUriList;
    return out;
}

bool DragMimeData::hasFormat(const QString &mimeType) const
{
    return formats().contains(mimeType);
}

QVariant DragMimeData::retrieveData(const QString &mimeType, QMetaType type) const
{
    if (mimeType != kUriList)
        return QMimeData::retrieveData(mimeType, type);
    const_cast<DragMimeData *>(this)->exportNow(); // the desktop asked: fetch now
    QList<QVariant> urls;
    for (const auto &url : m_urls)
        urls << url;
    return urls;
}

} // namespace strata

#pragma once

#include "core/storage/registry.h"

#include <QMap>
#include <QObject>
#include <QStringList>
#include <QUrl>

#include <vector>

class QWidget;

namespace strata {

class TransferQueueModel;

// Turns a drop (or "copy to the other pane") into transfer jobs. It first looks, off the
// GUI thread, for names already taken at the destination; if any are, it asks once for
// the whole batch: overwrite, skip, keep both (the new ones get "name (2)") or cancel.
// It also opens files with the desktop's application, fetching remote ones to a
// temporary folder first.
class TransferStarter : public QObject {
    Q_OBJECT
public:
    TransferStarter(Registry &registry, TransferQueueModel *queue, QWidget *window);

    void start(const QStringList &sources, const QString &destinationDir, bool move);
    void openWithDesktop(const QString &uri, const Location &location, const std::string &path);
    // Remote files dragged towards the desktop: fetched (as queued jobs) into a temporary
    // folder, whose file URLs the drag carries. A file appears there only once complete
    // (the engine commits by renaming), so a drop too early finds nothing rather than
    // half a file. Only small selections of files: a drag is no way to move gigabytes.
    QList<QUrl> exportForDesktop(const Location &location, const std::vector<Entry> &entries);
    static constexpr std::uint64_t DesktopExportLimit = 64u << 20;

    enum class Conflict { Ask, Overwrite, Skip, KeepBoth };
    // Tests answer the question in advance.
    void setConflictAnswer(Conflict answer) { m_answer = answer; }

Q_SIGNALS:
    void notify(const QString &message, bool error);
    void enqueued(const QString &jobId);

private:
    void enqueue(const QStringList &sources, const QString &destinationDir, bool move, Conflict policy,
                 const QStringList &conflicts, const QStringList &freeNames);

    Registry &m_registry;
    TransferQueueModel *m_queue;
    QWidget *m_window;
    Conflict m_answer = Conflict::Ask;
    QMap<QString, QString> m_openWhenDone; // job id -> local file to open
};

} // namespace strata

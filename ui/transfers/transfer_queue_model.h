#pragma once

#include "core/transfer/transfer_queue.h"

#include <QAbstractTableModel>
#include <QSet>
#include <QTimer>

#include <memory>

namespace strata {

// The transfer queue as a table: one row per job with its progress, rate, ETA and state.
// The engine reports from its worker threads (at most ten times a second per job); the
// reports are queued to the GUI thread and rows repaint on one timer, so a 20 000-file
// job never floods the event loop.
class TransferQueueModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Transfer, Progress, Bytes, Rate, Eta, State, ColumnCount };
    enum Role { JobIdRole = Qt::UserRole + 1, FractionRole, JobStateRole };

    TransferQueueModel(Registry &registry, QueueOptions options, QObject *parent = nullptr);
    ~TransferQueueModel() override;

    // Starts a transfer; an error is one sentence for the user.
    Result<std::string> enqueue(TransferSpec spec);
    Status pause(const QModelIndex &index);
    Status resume(const QModelIndex &index);
    Status cancel(const QModelIndex &index);
    void clearFinished();
    // Why files of this job failed ("source: reason" per line), empty when none did.
    QStringList failures(const QModelIndex &index) const;
    std::optional<TransferSpec> specOf(const std::string &id) const { return m_queue->spec(id); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

Q_SIGNALS:
    void jobFinished(const QString &jobId, bool ok);

private:
    class Observer;
    struct Row {
        std::string id;
        QString title;
        TransferProgress progress;
        JobState state = JobState::Queued;
        qsizetype failures = 0;
    };
    void onProgress(const std::string &id, const TransferProgress &progress);
    void onState(const std::string &id, JobState state);
    void onFinished(const std::string &id, const TransferReport &report);
    int rowOf(const std::string &id) const;
    void markDirty(int row);
    void flush();

    std::unique_ptr<Observer> m_observer;
    std::vector<Row> m_rows;
    QSet<int> m_dirty;
    QTimer m_flush;
    std::unique_ptr<TransferQueue> m_queue; // last: stopped first, while the rest exists
};

} // namespace strata

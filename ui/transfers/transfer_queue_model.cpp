#include "ui/transfers/transfer_queue_model.h"

#include "core/storage/path.h"
#include "ui/common/entry_format.h"

namespace strata {

namespace {

QString redacted(const std::string &uri)
{
    return redactedUri(QString::fromStdString(uri));
}

QString titleOf(const TransferSpec &spec)
{
    const QString verb = spec.options.mode == TransferMode::Move ? QObject::tr("Move") : QObject::tr("Copy");
    QString what;
    if (spec.sources.size() == 1) {
        auto uri = Uri::parse(spec.sources.front());
        what = uri ? QString::fromStdString(std::string(baseName(uri->path()))) : redacted(spec.sources.front());
        if (what.isEmpty())
            what = redacted(spec.sources.front());
    } else {
        what = QObject::tr("%n item(s)", nullptr, int(spec.sources.size()));
    }
    return QObject::tr("%1 %2 to %3").arg(verb, what, redacted(spec.destination));
}

QString stateText(JobState state)
{
    switch (state) {
    case JobState::Queued: return QObject::tr("Queued");
    case JobState::Planning: return QObject::tr("Preparing");
    case JobState::Running: return QObject::tr("Running");
    case JobState::Paused: return QObject::tr("Paused");
    case JobState::Completed: return QObject::tr("Done");
    case JobState::Failed: return QObject::tr("Failed");
    case JobState::Cancelled: return QObject::tr("Cancelled");
    }
    return {};
}

} // namespace

// Hears the engine on its worker threads and queues each report to the GUI thread.
class TransferQueueModel::Observer final : public TransferObserver {
public:
    explicit Observer(TransferQueueModel *model) : m_model(model) {}
    void progress(const std::string &id, const TransferProgress &p) override
    {
        QMetaObject::invokeMethod(
            m_model, [m = m_model, id, p] { m->onProgress(id, p); }, Qt::QueuedConnection);
    }
    void stateChanged(const std::string &id, JobState state) override
    {
        QMetaObject::invokeMethod(
            m_model, [m = m_model, id, state] { m->onState(id, state); }, Qt::QueuedConnection);
    }
    void finished(const std::string &id, const TransferReport &report) override
    {
        QMetaObject::invokeMethod(
            m_model, [m = m_model, id, report] { m->onFinished(id, report); }, Qt::QueuedConnection);
    }

private:
    TransferQueueModel *m_model;
};

TransferQueueModel::TransferQueueModel(Registry &registry, QueueOptions options, QObject *parent)
    : QAbstractTableModel(parent), m_observer(std::make_unique<Observer>(this)),
      m_queue(std::make_unique<TransferQueue>(registry, std::move(options), m_observer.get()))
{
    m_flush.setInterval(200);
    connect(&m_flush, &QTimer::timeout, this, &TransferQueueModel::flush);
    // Jobs interrupted by the last exit come back paused, ready to resume.
    for (const auto &id : m_queue->restore()) {
        auto spec = m_queue->spec(id);
        if (!spec)
            continue;
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
        m_rows.push_back({id, titleOf(*spec), m_queue->progress(id).value_or(TransferProgress{}),
                          m_queue->state(id).value_or(JobState::Paused), 0});
        endInsertRows();
    }
}

TransferQueueModel::~TransferQueueModel() = default;

Result<std::string> TransferQueueModel::enqueue(TransferSpec spec)
{
    const QString title = titleOf(spec);
    auto id = m_queue->enqueue(std::move(spec));
    if (!id)
        return id;
    if (rowOf(*id) < 0) { // a report may have been first
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
        m_rows.push_back({*id, title, {}, m_queue->state(*id).value_or(JobState::Queued), 0});
        endInsertRows();
    }
    return id;
}

Status TransferQueueModel::pause(const QModelIndex &index)
{
    return index.isValid() ? m_queue->pause(m_rows[std::size_t(index.row())].id) : Status{};
}

Status TransferQueueModel::resume(const QModelIndex &index)
{
    return index.isValid() ? m_queue->resume(m_rows[std::size_t(index.row())].id) : Status{};
}

Status TransferQueueModel::cancel(const QModelIndex &index)
{
    return index.isValid() ? m_queue->cancel(m_rows[std::size_t(index.row())].id) : Status{};
}

void TransferQueueModel::clearFinished()
{
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        if (!isFinal(m_rows[std::size_t(row)].state))
            continue;
        beginRemoveRows({}, row, row);
        m_rows.erase(m_rows.begin() + row);
        endRemoveRows();
    }
    m_dirty.clear();
}

QStringList TransferQueueModel::failures(const QModelIndex &index) const
{
    QStringList out;
    if (!index.isValid())
        return out;
    auto report = m_queue->report(m_rows[std::size_t(index.row())].id);
    if (!report)
        return out;
    if (!report->error.empty())
        out << QString::fromStdString(report->error);
    for (const auto &f : report->failures)
        out << QString::fromStdString(f.message);
    for (const auto &w : report->warnings)
        out << tr("Note: %1").arg(QString::fromStdString(w));
    return out;
}

int TransferQueueModel::rowOf(const std::string &id) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return int(i);
    return -1;
}

void TransferQueueModel::markDirty(int row)
{
    m_dirty.insert(row);
    if (!m_flush.isActive())
        m_flush.start();
}

void TransferQueueModel::flush()
{
    for (int row : std::as_const(m_dirty))
        if (row < int(m_rows.size()))
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    m_dirty.clear();
    m_flush.stop();
}

void TransferQueueModel::onProgress(const std::string &id, const TransferProgress &progress)
{
    if (const int row = rowOf(id); row >= 0) {
        m_rows[std::size_t(row)].progress = progress;
        markDirty(row);
    }
}

void TransferQueueModel::onState(const std::string &id, JobState state)
{
    if (const int row = rowOf(id); row >= 0) {
        m_rows[std::size_t(row)].state = state;
        markDirty(row);
    }
}

void TransferQueueModel::onFinished(const std::string &id, const TransferReport &report)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    Row &r = m_rows[std::size_t(row)];
    r.state = report.state;
    r.failures = qsizetype(report.failures.size());
    if (auto p = m_queue->progress(id))
        r.progress = *p;
    markDirty(row);
    if (isFinal(report.state))
        Q_EMIT jobFinished(QString::fromStdString(id), report.state == JobState::Completed && report.failures.empty());
}

int TransferQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TransferQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TransferQueueModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    const auto &p = r.progress;
    const double fraction = r.state == JobState::Completed ? 1.0
        : p.bytesTotal > 0                                 ? double(p.bytesDone) / double(p.bytesTotal)
                                                           : 0.0;
    switch (role) {
    case JobIdRole: return QString::fromStdString(r.id);
    case FractionRole: return fraction;
    case JobStateRole: return int(r.state);
    case Qt::ToolTipRole:
        if (r.failures > 0)
            return tr("%n file(s) failed: select the job to see why", nullptr, int(r.failures));
        return r.title;
    case Qt::TextAlignmentRole:
        if (index.column() == Bytes || index.column() == Rate || index.column() == Eta)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case Transfer: return r.title;
    case Progress: return QStringLiteral("%1%").arg(int(fraction * 100));
    case Bytes:
        if (p.planning)
            return tr("%1 so far").arg(sizeString(p.bytesDone));
        if (p.bytesTotal == 0)
            return r.state == JobState::Completed ? tr("nothing to copy") : QString();
        return tr("%1 of %2").arg(sizeString(p.bytesDone), sizeString(p.bytesTotal));
    case Rate: return r.state == JobState::Running ? formatRate(p.bytesPerSecond) : QString();
    case Eta: return r.state == JobState::Running && p.etaSeconds ? formatDuration(*p.etaSeconds) : QString();
    case State:
        return r.failures > 0 ? tr("%1, %n failed", nullptr, int(r.failures)).arg(stateText(r.state))
                              : stateText(r.state);
    }
    return {};
}

QVariant TransferQueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Transfer: return tr("Transfer");
    case Progress: return tr("Progress");
    case Bytes: return tr("Transferred");
    case Rate: return tr("Rate");
    case Eta: return tr("Time left");
    case State: return tr("State");
    }
    return {};
}

} // namespace strata

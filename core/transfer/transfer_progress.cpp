#include "core/transfer/transfer_progress.h"

#include <QJsonArray>

namespace strata {

std::string_view toString(JobState state)
{
    switch (state) {
    case JobState::Queued: return "queued";
    case JobState::Planning: return "planning";
    case JobState::Running: return "running";
    case JobState::Paused: return "paused";
    case JobState::Completed: return "completed";
    case JobState::Failed: return "failed";
    case JobState::Cancelled: return "cancelled";
    }
    return "queued";
}

bool isFinal(JobState state)
{
    return state == JobState::Completed || state == JobState::Failed || state == JobState::Cancelled;
}

QJsonObject TransferReport::toJson() const
{
    auto qs = [](const std::string &s) { return QString::fromStdString(s); };
    QJsonArray failed;
    for (const auto &f : failures)
        failed.append(QJsonObject{{QStringLiteral("source"), qs(f.source)},
                                  {QStringLiteral("destination"), qs(f.destination)},
                                  {QStringLiteral("kind"), qs(std::string(identifier(f.kind)))},
                                  {QStringLiteral("message"), qs(f.message)}});
    QJsonArray skipped;
    for (const auto &s : notCopied)
        skipped.append(QJsonObject{{QStringLiteral("source"), qs(s.source)}, {QStringLiteral("reason"), qs(s.reason)}});
    QJsonArray planned;
    for (const auto &a : actions)
        planned.append(qs(a));
    QJsonObject o{
        {QStringLiteral("state"), qs(std::string(toString(state)))},
        {QStringLiteral("files_copied"), qint64(filesCopied)},
        {QStringLiteral("files_skipped"), qint64(filesSkipped)},
        {QStringLiteral("files_failed"), qint64(filesFailed)},
        {QStringLiteral("files_verified"), qint64(filesVerified)},
        {QStringLiteral("files_deleted"), qint64(filesDeleted)},
        {QStringLiteral("dirs_created"), qint64(dirsCreated)},
        {QStringLiteral("bytes_total"), qint64(bytesTotal)},
        {QStringLiteral("bytes_copied"), qint64(bytesCopied)},
        {QStringLiteral("bytes_resumed"), qint64(bytesResumed)},
        {QStringLiteral("bytes_through_buffers"), qint64(bytesThroughBuffers)},
        {QStringLiteral("seconds"), seconds},
        {QStringLiteral("failures"), failed},
        {QStringLiteral("not_copied"), skipped},
    };
    if (!actions.empty())
        o[QStringLiteral("actions")] = planned;
    if (!error.empty())
        o[QStringLiteral("error")] = qs(error);
    if (!warnings.empty()) {
        QJsonArray w;
        for (const auto &s : warnings)
            w.append(qs(s));
        o[QStringLiteral("warnings")] = w;
    }
    return o;
}

} // namespace strata

#include "core/transfer/transfer_progress.h"

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

json::Object TransferReport::toJson() const
{
    json::Array failed;
    for (const auto &f : failures)
        failed.push_back(json::Object{{"source", f.source},
                                      {"destination", f.destination},
                                      {"kind", identifier(f.kind)},
                                      {"message", f.message}});
    json::Array skipped;
    for (const auto &s : notCopied)
        skipped.push_back(json::Object{{"source", s.source}, {"reason", s.reason}});
    json::Object o{
        {"state", toString(state)},
        {"files_copied", filesCopied},
        {"files_skipped", filesSkipped},
        {"files_failed", filesFailed},
        {"files_verified", filesVerified},
        {"files_deleted", filesDeleted},
        {"dirs_created", dirsCreated},
        {"bytes_total", bytesTotal},
        {"bytes_copied", bytesCopied},
        {"bytes_resumed", bytesResumed},
        {"bytes_through_buffers", bytesThroughBuffers},
        {"seconds", seconds},
        {"failures", std::move(failed)},
        {"not_copied", std::move(skipped)},
    };
    if (!actions.empty())
        o.emplace("actions", json::Array(actions.begin(), actions.end()));
    if (!error.empty())
        o.emplace("error", error);
    if (!warnings.empty())
        o.emplace("warnings", json::Array(warnings.begin(), warnings.end()));
    return o;
}

} // namespace strata

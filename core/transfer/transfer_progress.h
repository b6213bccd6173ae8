#pragma once

#include "core/io/json.h"
#include "core/storage/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

enum class JobState : std::uint8_t { Queued, Planning, Running, Paused, Completed, Failed, Cancelled };

std::string_view toString(JobState state);
bool isFinal(JobState state); // Completed, Failed or Cancelled

// A snapshot of one job's progress.
struct TransferProgress {
    std::uint64_t bytesDone = 0;
    std::uint64_t bytesTotal = 0;
    std::uint64_t filesDone = 0; // copied, skipped or failed
    std::uint64_t filesTotal = 0;
    std::uint64_t filesFailed = 0;
    std::uint64_t filesSkipped = 0;
    double bytesPerSecond = 0; // recent rate
    std::optional<double> etaSeconds;
    bool planning = false; // still finding what to copy; totals still grow
};

struct FileFailure {
    std::string source; // redacted URIs
    std::string destination;
    ErrorKind kind = ErrorKind::Unexpected;
    std::string message; // one sentence
};

struct SkippedItem {
    std::string source;
    std::string reason;
};

// What a job did, for the CLI's summary and --json, and the GUI's queue.
struct TransferReport {
    JobState state = JobState::Queued;
    std::uint64_t filesCopied = 0;
    std::uint64_t filesSkipped = 0; // already there (skip-existing) or unchanged (sync)
    std::uint64_t filesFailed = 0;
    std::uint64_t filesVerified = 0;
    std::uint64_t filesDeleted = 0; // sync --delete, or sources removed by a move
    std::uint64_t dirsCreated = 0;
    std::uint64_t bytesTotal = 0;          // size of everything planned
    std::uint64_t bytesCopied = 0;         // written this run
    std::uint64_t bytesResumed = 0;        // found already written by an earlier, interrupted run
    std::uint64_t bytesThroughBuffers = 0; // moved by us rather than inside the storage
    double seconds = 0;
    std::vector<FileFailure> failures;
    std::vector<SkippedItem> notCopied; // symlinks, special files: named, not silently dropped
    std::vector<std::string> actions;   // dry run: what would be done
    std::string error;                  // why the whole job failed (planning), if it did
    std::vector<std::string> warnings;  // things the user should know that failed nothing

    json::Object toJson() const;
};

// One listener interface for every frontend (CLI progress bar, GUI queue, tests). Calls
// come from worker threads; progress is throttled to at most ten calls a second per job.
class TransferObserver {
public:
    virtual ~TransferObserver() = default;
    virtual void progress(const std::string &jobId, const TransferProgress &progress)
    {
        (void)jobId;
        (void)progress;
    }
    virtual void stateChanged(const std::string &jobId, JobState state)
    {
        (void)jobId;
        (void)state;
    }
    virtual void fileFailed(const std::string &jobId, const FileFailure &failure)
    {
        (void)jobId;
        (void)failure;
    }
    virtual void finished(const std::string &jobId, const TransferReport &report)
    {
        (void)jobId;
        (void)report;
    }
};

} // namespace strata

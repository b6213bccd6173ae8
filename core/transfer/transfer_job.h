#pragma once

#include "core/storage/registry.h"
#include "core/transfer/transfer_journal.h"
#include "core/transfer/transfer_progress.h"
#include "core/transfer/transfer_spec.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stop_token>
#include <utility>
#include <vector>

namespace strata {

struct TransferPlan;
struct FileTask;
struct FileOutcome;
struct CopyContext;
class TaskGroup;
class WorkerPool;

// One transfer: plans, then copies its files with bounded parallelism and memory,
// journaling as it goes. run() returns when the job is done, failed, paused or cancelled
// (a stop request means pause unless cancel() was asked first).
class TransferJob {
public:
    TransferJob(std::string id, TransferSpec spec, std::unique_ptr<TransferJournal> journal);
    ~TransferJob();

    const std::string &id() const { return m_id; }
    const TransferSpec &spec() const { return m_spec; }
    JobState state() const;
    TransferProgress progress() const;
    TransferReport report() const;

    // Blocking; call on a worker thread.
    void run(Registry &registry, TransferObserver *observer, const std::stop_token &stop);
    // Marks the next stop as a cancel: partial files and the journal are removed.
    void markCancelled() { m_cancel = true; }
    bool cancelMarked() const { return m_cancel; }
    // Removes what a cancelled job leaves: partial files and the journal.
    void cleanUp(Registry &registry);
    void setState(JobState state, TransferObserver *observer);
    void addWarning(std::string warning);
    // Only between runs. The part layout stays: parts already done are counted by it.
    void updateOptions(const TransferOptions &options);

private:
    void copyFiles(TransferPlan &plan, TransferObserver *observer, const std::stop_token &stop);
    // Markers an object store needs, made beside the files, in group; room for `later`
    // tasks more.
    std::unique_ptr<WorkerPool> besideFiles(const TransferPlan &plan, TaskGroup &group, TransferObserver *observer,
                                            const std::stop_token &stop, std::size_t later);
    void setDirMode(const TransferPlan &plan, const std::pair<std::string, std::uint32_t> &dirMode);
    bool makeDirs(const TransferPlan &plan, bool realDirs, std::vector<std::pair<std::string, ErrorKind>> &failedDirs,
                  TransferObserver *observer, const std::stop_token &stop);
    Result<FileOutcome> copyWithRetries(const FileTask &task, Operator &dst, CopyContext &context,
                                        TransferObserver *observer);
    // The whole copy an earlier try (or run) published with only its answer lost, counted
    // as done; nullopt when none is there (replaceOwn set when a partial one of ours is).
    std::optional<FileOutcome> publishedEarlier(const FileTask &task, Operator &dst, CopyContext &context,
                                                TransferObserver *observer, bool &replaceOwn);
    void finishPlan(TransferPlan &plan, TransferObserver *observer, const std::stop_token &stop);
    void addBytes(std::uint64_t n, TransferObserver *observer);
    void emitProgress(TransferObserver *observer, bool force);
    void addFailure(FileFailure failure, TransferObserver *observer);
    bool worthResuming() const;
    std::size_t jobCount() const;

    std::string m_id;
    TransferSpec m_spec;
    std::unique_ptr<TransferJournal> m_journal;
    std::atomic<bool> m_cancel{false};

    mutable std::mutex m_mutex; // state, report
    JobState m_state = JobState::Queued;
    TransferReport m_report;
    std::vector<std::string> m_warnings; // kept across runs

    std::atomic<std::uint64_t> m_bytesDone{0}, m_bytesTotal{0}, m_filesDone{0}, m_filesTotal{0}, m_filesFailed{0},
        m_filesSkipped{0};
    std::atomic<bool> m_planning{false};
    // A file failed temporarily even after its retries: the storage stopped answering, so
    // the files not started yet are not tried (the next run resumes them).
    std::atomic<bool> m_unreachable{false};
    std::atomic<std::int64_t> m_lastEmitNs{0};
    mutable std::mutex m_rateMutex;
    double m_rate = 0;
    std::uint64_t m_rateBytes = 0;
    std::chrono::steady_clock::time_point m_rateTime;
};

// The resume key of a destination in a job (FileCopier uses it, cancel cleans it up).
std::string resumeKeyFor(const std::string &jobId, const std::string &dstPath);

} // namespace strata

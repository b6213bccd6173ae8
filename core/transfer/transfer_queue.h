#pragma once

#include "core/transfer/transfer_job.h"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace strata {

struct QueueOptions {
    std::string journalDir; // empty: jobs are not journaled (not resumable)
    std::size_t maxRunningJobs = 2;
};

// The transfer queue: thread-safe, owns the threads jobs run on, keeps every job's
// journal so interrupted jobs come back after a restart (restore()). Each job can be
// paused, resumed, retried and cancelled on its own. Observers hear from worker threads.
class TransferQueue {
public:
    TransferQueue(Registry &registry, QueueOptions options, TransferObserver *observer = nullptr);
    // Pauses what runs (journals stay, so nothing is lost) and waits for it to stop.
    ~TransferQueue();

    Result<std::string> enqueue(TransferSpec spec);
    // Loads the journals of interrupted jobs as paused jobs; returns their ids.
    std::vector<std::string> restore();
    std::optional<std::string> findByIdentity(const std::string &identity) const;

    Status pause(const std::string &id);
    // Paused or failed jobs run again, skipping what is done; new options (a rerun of the
    // same command with other flags) replace the old ones, except the part layout.
    Status resume(const std::string &id, const std::optional<TransferOptions> &options = std::nullopt);
    Status retry(const std::string &id) { return resume(id); }
    Status cancel(const std::string &id); // stops it and removes partial files and journal

    std::vector<std::string> jobIds() const;
    std::optional<JobState> state(const std::string &id) const;
    std::optional<TransferProgress> progress(const std::string &id) const;
    std::optional<TransferReport> report(const std::string &id) const;
    // A copy: a resumed job's options may change meanwhile.
    std::optional<TransferSpec> spec(const std::string &id) const;
    // Waits until the job is neither queued nor running; returns its state.
    JobState wait(const std::string &id);
    // The same for at most timeout: nothing when the job still runs then.
    std::optional<JobState> waitFor(const std::string &id, std::chrono::milliseconds timeout);

private:
    struct Slot {
        std::shared_ptr<TransferJob> job;
        std::stop_source stop;
        std::jthread thread;
        bool active = false; // a thread is running the job (or its clean-up)
    };
    void schedule();                          // caller holds m_mutex
    void start(Slot &slot, bool cleanUpOnly); // caller holds m_mutex
    Slot *find(const std::string &id);
    const Slot *find(const std::string &id) const;

    Registry &m_registry;
    QueueOptions m_options;
    TransferObserver *m_observer;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<std::unique_ptr<Slot>> m_slots; // in order of arrival
    bool m_closing = false;
};

std::string newJobId();

} // namespace strata

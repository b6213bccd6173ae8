#include "core/transfer/transfer_job.h"

#include "core/io/buffer_pool.h"
#include "core/io/file_mode.h"
#include "core/io/hash.h"
#include "core/io/zstd_stream.h"
#include "core/storage/path.h"
#include "core/storage/retry_note.h"
#include "core/transfer/file_copier.h"
#include "core/transfer/transfer_plan.h"

#include <algorithm>
#include <bit>
#include <condition_variable>
#include <map>
#include <unordered_set>

namespace strata {

namespace {

const std::string &pathOf(const std::string &path)
{
    return path;
}
const std::string &pathOf(const std::pair<std::string, std::uint32_t> &dirMode)
{
    return dirMode.first;
}

// Runs fn on each path a level at a time, the paths of one level side by side (at most
// `jobs` at once), parents before children, or children first with deepestFirst; before
// each level, on the calling thread, beforeLevel(). On storage without real folders every
// path is one level. Stops between levels when asked.
template <typename Path, typename Fn, typename Before>
void byLevel(const std::vector<Path> &paths, bool realDirs, bool deepestFirst, std::size_t jobs,
             const std::stop_token &stop, Fn fn, Before beforeLevel)
{
    std::map<std::size_t, std::vector<const Path *>> levels;
    std::size_t widest = 0;
    for (const auto &path : paths) {
        auto &level = levels[realDirs ? std::size_t(std::ranges::count(pathOf(path), '/')) : 0];
        level.push_back(&path);
        widest = std::max(widest, level.size());
    }
    WorkerPool workers(std::min(jobs, widest) - std::min<std::size_t>(1, widest)); // the caller helps
    const auto run = [&](const std::vector<const Path *> &level) {
        beforeLevel();
        TaskGroup group;
        for (const Path *path : level)
            workers.submit(group, [&fn, path] { fn(*path); });
        workers.runUntilDone(group);
    };
    if (deepestFirst) {
        for (auto it = levels.rbegin(); it != levels.rend() && !stop.stop_requested(); ++it)
            run(it->second);
    } else {
        for (auto it = levels.begin(); it != levels.end() && !stop.stop_requested(); ++it)
            run(it->second);
    }
}

// Whether copies replace what is at the destination: otherwise a complete copy found where
// an interrupted publish went can only be ours.
bool replaces(const TransferOptions &options)
{
    return options.existing == ExistingPolicy::Overwrite || options.mode == TransferMode::Sync;
}

// Whether what is at the destination has the size the copy has.
bool complete(const Entry &copy, const FileTask &task)
{
    // A compressed or decompressed copy has a size of its own.
    return isZstdName(task.srcPath) != isZstdName(task.dstPath) || copy.size == task.source.size;
}

// A copy an earlier run finished counts while it is still there and whole; one removed
// or cut short since is copied again, never reported as done.
bool stillThere(Operator &dst, const FileTask &task)
{
    auto copy = dst.stat(task.dstPath);
    return copy && copy->isFile() && complete(*copy, task);
}

} // namespace

std::string resumeKeyFor(const std::string &jobId, const std::string &dstPath)
{
    Sha256 hash;
    hash.add(jobId);
    hash.add("\n");
    hash.add(dstPath);
    return toHex(hash.finish()).substr(0, 32);
}

TransferJob::TransferJob(std::string id, TransferSpec spec, std::unique_ptr<TransferJournal> journal)
    : m_id(std::move(id)), m_spec(std::move(spec)), m_journal(std::move(journal))
{
}

TransferJob::~TransferJob() = default;

JobState TransferJob::state() const
{
    std::lock_guard lock(m_mutex);
    return m_state;
}

void TransferJob::setState(JobState state, TransferObserver *observer)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_state == state)
            return;
        m_state = state;
        m_report.state = state;
    }
    if (observer)
        observer->stateChanged(m_id, state);
}

TransferProgress TransferJob::progress() const
{
    TransferProgress p;
    p.bytesDone = m_bytesDone;
    p.bytesTotal = m_bytesTotal;
    p.filesDone = m_filesDone;
    p.filesTotal = m_filesTotal;
    p.filesFailed = m_filesFailed;
    p.filesSkipped = m_filesSkipped;
    p.planning = m_planning;
    std::lock_guard lock(m_rateMutex);
    p.bytesPerSecond = m_rate;
    if (m_rate > 1 && p.bytesTotal >= p.bytesDone)
        p.etaSeconds = double(p.bytesTotal - p.bytesDone) / m_rate;
    return p;
}

void TransferJob::updateOptions(const TransferOptions &options)
{
    const auto partSize = m_spec.options.partSize;
    const auto chunkSize = m_spec.options.chunkSize;
    m_spec.options = options;
    m_spec.options.partSize = partSize;
    m_spec.options.chunkSize = chunkSize;
}

void TransferJob::addWarning(std::string warning)
{
    std::lock_guard lock(m_mutex);
    m_warnings.push_back(warning);
    m_report.warnings.push_back(std::move(warning));
}

TransferReport TransferJob::report() const
{
    std::lock_guard lock(m_mutex);
    return m_report;
}

void TransferJob::emitProgress(TransferObserver *observer, bool force)
{
    const auto now = std::chrono::steady_clock::now();
    const std::int64_t nowNs = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
    auto last = m_lastEmitNs.load();
    // At most ten updates a second, from whichever thread gets there first.
    if (!force && (nowNs - last < 100'000'000 || !m_lastEmitNs.compare_exchange_strong(last, nowNs)))
        return;
    m_lastEmitNs = nowNs;
    {
        std::lock_guard lock(m_rateMutex);
        const double dt = std::chrono::duration<double>(now - m_rateTime).count();
        if (dt >= 0.05) {
            const std::uint64_t bytes = m_bytesDone;
            const double instant = double(bytes - std::min(bytes, m_rateBytes)) / dt;
            m_rate = m_rate == 0 ? instant : 0.7 * m_rate + 0.3 * instant;
            m_rateBytes = bytes;
            m_rateTime = now;
        }
    }
    if (observer)
        observer->progress(m_id, progress());
}

void TransferJob::addBytes(std::uint64_t n, TransferObserver *observer)
{
    m_bytesDone.fetch_add(n, std::memory_order_relaxed);
    emitProgress(observer, false);
}

void TransferJob::addFailure(FileFailure failure, TransferObserver *observer)
{
    m_filesFailed.fetch_add(1);
    if (observer)
        observer->fileFailed(m_id, failure);
    std::lock_guard lock(m_mutex);
    ++m_report.filesFailed;
    m_report.failures.push_back(std::move(failure));
}

void TransferJob::run(Registry &registry, TransferObserver *observer, const std::stop_token &stop)
{
    const auto started = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(m_mutex);
        m_report = TransferReport{};
        m_report.warnings = m_warnings;
    }
    m_bytesDone = m_bytesTotal = m_filesDone = m_filesTotal = m_filesFailed = m_filesSkipped = 0;
    m_unreachable = false;
    {
        // progress() reads these from other threads (a resumed job is watched while it runs).
        std::lock_guard lock(m_rateMutex);
        m_rate = 0;
        m_rateBytes = 0;
        m_rateTime = started;
    }
    m_planning = true;
    setState(JobState::Planning, observer);
    // A resumed job reads the destination as its first run did (m_spec itself is not
    // changed: other threads read it while the job runs).
    TransferSpec planned = m_spec;
    if (m_journal)
        planned.destinationIsDir = m_journal->destinationIsDir();
    auto plan = planTransfer(registry, planned, stop, [&](std::uint64_t files, std::uint64_t bytes) {
        m_filesTotal = files;
        m_bytesTotal = bytes;
        emitProgress(observer, false);
    });
    m_planning = false;
    if (!plan) {
        const bool stopped = plan.error().kind() == ErrorKind::Cancelled;
        {
            std::lock_guard lock(m_mutex);
            m_report.error = plan.error().message();
        }
        if (stopped && m_cancel)
            cleanUp(registry);
        else if (!stopped && m_journal)
            m_journal->remove(); // nothing was done: nothing to resume
        setState(stopped ? (m_cancel ? JobState::Cancelled : JobState::Paused) : JobState::Failed, observer);
    } else {
        if (m_journal && !planned.destinationIsDir && !m_spec.options.dryRun)
            m_journal->recordDestinationIsDir(plan->dstIsDir);
        m_filesTotal = plan->files.size();
        m_bytesTotal = plan->bytesTotal;
        {
            std::lock_guard lock(m_mutex);
            m_report.bytesTotal = plan->bytesTotal;
            m_report.filesSkipped = plan->unchanged;
            m_report.notCopied = plan->notCopied;
        }
        for (auto &refused : plan->refused)
            addFailure(std::move(refused), observer);
        for (auto &warning : plan->warnings)
            addWarning(std::move(warning));
        setState(JobState::Running, observer);
        if (m_spec.options.dryRun) {
            std::lock_guard lock(m_mutex);
            for (const auto &dir : plan->dirs)
                m_report.actions.push_back("create " + plan->dstOp->display(dir));
            for (const auto &f : plan->files)
                m_report.actions.push_back("copy " + f.srcOp->display(f.srcPath) + " -> "
                                           + plan->dstOp->display(f.dstPath) + " (" + std::to_string(f.source.size)
                                           + " bytes)");
            for (const auto &extra : plan->extras)
                m_report.actions.push_back("delete " + plan->dstOp->display(extra));
        } else {
            copyFiles(*plan, observer, stop);
            finishPlan(*plan, observer, stop);
        }
        JobState final = JobState::Completed;
        if (stop.stop_requested())
            final = m_cancel ? JobState::Cancelled : JobState::Paused;
        else if (m_filesFailed > 0)
            final = JobState::Failed;
        if (final == JobState::Cancelled)
            cleanUp(registry);
        else if (m_journal && (final == JobState::Completed || (final == JobState::Failed && !worthResuming())))
            m_journal->remove(); // a failed job with nothing done and nothing partial has nothing to resume
        setState(final, observer);
    }
    {
        std::lock_guard lock(m_mutex);
        m_report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    emitProgress(observer, true);
    if (observer)
        observer->finished(m_id, report());
}

// Folders are made a level at a time, the folders of one level side by side (as many as
// files in flight): a tree of 200 folders on a server 80 ms away took 16 s one after
// another. Markers on an object store need no parents: one level. False when stopped.
bool TransferJob::makeDirs(const TransferPlan &plan, bool realDirs,
                           std::vector<std::pair<std::string, ErrorKind>> &failedDirs, TransferObserver *observer,
                           const std::stop_token &stop)
{
    Operator &dst = *plan.dstOp;
    std::mutex failedMutex;
    std::vector<std::pair<std::string, ErrorKind>> failedBefore; // in the levels above
    const auto make = [&](const std::string &dir) {
        if (stop.stop_requested())
            return;
        for (const auto &failed : failedBefore)
            if (isStrictlyBelow(dir, failed.first))
                return; // said once, for the folder above
        auto st = dst.createDir(dir, realDirs);
        if (!st && !realDirs && st.error().kind() == ErrorKind::AlreadyExists)
            return;
        if (!st) {
            {
                std::lock_guard lock(failedMutex);
                failedDirs.emplace_back(dir, st.error().kind());
            }
            addFailure({{}, dst.display(dir), st.error().kind(), st.error().message()}, observer);
        } else {
            std::lock_guard lock(m_mutex);
            ++m_report.dirsCreated;
        }
    };
    byLevel(plan.dirs, realDirs, false, jobCount(), stop, make, [&] { failedBefore = failedDirs; });
    return !stop.stop_requested();
}

// Folders made or given their modes at once: as many as files in flight by default.
std::size_t TransferJob::jobCount() const
{
    return m_spec.options.jobs > 0 ? std::size_t(m_spec.options.jobs) : 8;
}

bool TransferJob::worthResuming() const
{
    std::lock_guard lock(m_mutex);
    return m_report.filesCopied > 0 || m_report.bytesCopied > 0 || (m_journal && !m_journal->filesBegun().empty());
}

void TransferJob::copyFiles(TransferPlan &plan, TransferObserver *observer, const std::stop_token &stop)
{
    const auto &options = m_spec.options;
    Operator &dst = *plan.dstOp;
    const bool realDirs = dst.capabilities().has(Capability::RealDirectories);
    // Folders that could not be made (something else has the name: a file, a symlink
    // planted on the server): nothing below them is created or written, through whatever
    // has the name now.
    std::vector<std::pair<std::string, ErrorKind>> failedDirs;
    const auto failedAbove = [&failedDirs](std::string_view path) -> const std::pair<std::string, ErrorKind> * {
        for (const auto &failed : failedDirs)
            if (isStrictlyBelow(path, failed.first))
                return &failed;
        return nullptr;
    };
    if (dst.capabilities().has(Capability::CreateDir) && realDirs
        && !makeDirs(plan, realDirs, failedDirs, observer, stop))
        return;
    // On a distant storage (one that wants more connections busy), a folder whose mode
    // keeps its owner's rwx, which stops no write below it, has its mode set beside the
    // files once their first bytes moved: at the end it cost a round trip or two. Not
    // sooner: on FTP the mode's look took the one logged-in connection just as the first
    // file wanted it, and the file waited four round trips for a login of its own. (Nearby,
    // a connection more costs more than the round trip it saves.) The others stay in
    // plan.dirModes, set after the files.
    const bool distant = dst.preferredStreams(Backend::Flow::Writing) > 0;
    // (std::stable_partition, not std::ranges::partition, whose subrange clang 14 cannot
    // compile with libstdc++ 12; it also keeps the late ones in their order.)
    const auto early =
        std::stable_partition(plan.dirModes.begin(), plan.dirModes.end(), [this, distant](const auto &dirMode) {
            return !distant || (copyMode(dirMode.second, m_spec.options.preserveMode) & 0700) != 0700; // late
        });
    const std::vector<std::pair<std::string, std::uint32_t>> earlyModes(early, plan.dirModes.end());
    plan.dirModes.erase(early, plan.dirModes.end());
    TaskGroup besideGroup;
    const auto besideWorkers = besideFiles(plan, besideGroup, observer, stop, earlyModes.size());
    std::atomic<bool> modesBegun = false;
    const auto beginModes = [&] {
        if (modesBegun.load(std::memory_order_relaxed) || modesBegun.exchange(true))
            return;
        for (const auto &dirMode : earlyModes)
            besideWorkers->submit(besideGroup, [this, &plan, &dirMode, &stop, &failedDirs] {
                // Not a folder that could not be made (whatever has its name is not ours).
                for (const auto &failed : failedDirs)
                    if (dirMode.first == failed.first || isStrictlyBelow(dirMode.first, failed.first))
                        return;
                if (!stop.stop_requested())
                    setDirMode(plan, dirMode);
            });
    };
    // Network sources read in the larger pieces they prefer (fewer requests); the bytes in
    // flight stay bounded by maxBytesInFlight either way.
    std::size_t preferred = 0;
    std::uint64_t appetite = 0;
    std::size_t streams = dst.preferredStreams(Backend::Flow::Writing);
    // A distant destination written side by side takes its larger pieces too: SFTP sends
    // a 1 MiB buffer in 5 writes of at most 255 KiB, one round trip each, a 4 MiB one in 17.
    if (streams > 0 && options.partsInFlight == 0)
        preferred = dst.preferredIoSize();
    for (const auto &task : plan.files) {
        preferred = std::max(preferred, task.srcOp->preferredIoSize());
        appetite = std::max(appetite, task.srcOp->preferredBytesInFlight());
        streams = std::max(streams, task.srcOp->preferredStreams(Backend::Flow::Reading));
    }
    // Files in flight: 8, or as many connections as a distant storage wants busy (each file
    // costs an FTP connection some eight round trips, an SFTP one five), unless the job says.
    const std::size_t jobs = options.jobs > 0 ? std::size_t(options.jobs) : std::max<std::size_t>(8, streams);
    const std::size_t filesAtOnce = std::min(jobs, std::max<std::size_t>(1, plan.files.size()));
    // This thread copies files too: one thread fewer to start, none for a single file.
    WorkerPool fileWorkers(filesAtOnce - 1);
    // Each file in flight can have a buffer: the larger pieces shrink to fit, to a power of
    // two (16 FTP files at once would otherwise wait for 8 buffers of 8 MiB).
    const std::size_t chunk = std::max<std::size_t>(
        options.chunkSize, std::bit_floor(std::min<std::uint64_t>(preferred, options.maxBytesInFlight / filesAtOnce)));
    const std::size_t bufferCount = std::size_t(std::max<std::uint64_t>(1, options.maxBytesInFlight / chunk));
    BufferPool buffers(chunk, bufferCount);
    // A source that wants many requests in flight (a disk image server: connections x
    // requests x request size) is read by twice as many parts at once as fill that: each
    // part waits for the last of its requests, and the other half's requests, queued at
    // the connection, take the slots the finished ones free. With too few, slots stood
    // empty, the server found no request waiting and its threads slept and woke for every
    // one (nbdkit spent ~15 % more CPU serving a 2 GiB copy).
    std::size_t parts = options.partsInFlight > 0 ? std::size_t(options.partsInFlight) : 4;
    if (appetite > 0)
        parts = std::max(parts, std::min<std::size_t>(bufferCount, std::size_t((2 * appetite + chunk - 1) / chunk)));
    // A storage far away that wants more ranges of a file at once (FileCopier splits the
    // file into that many parts), unless the job says how many.
    if (options.partsInFlight == 0)
        parts = std::max(parts, std::min(bufferCount, streams));
    WorkerPool partWorkers(parts);
    Throttle throttle(options.bandwidthLimit);
    CopyContext context{options,
                        buffers,
                        partWorkers,
                        throttle,
                        m_journal.get(),
                        stop,
                        [this, observer, &beginModes](std::uint64_t n) {
                            addBytes(n, observer);
                            beginModes();
                        },
                        plan.dstRoot};

    TaskGroup group;
    for (const auto &task : plan.files) {
        fileWorkers.submit(group, [this, &task, &dst, &context, observer, &stop, &options, &failedAbove] {
            if (stop.stop_requested())
                return;
            if (const auto *failed = failedAbove(task.dstPath)) {
                m_filesDone.fetch_add(1);
                addFailure({task.srcOp->display(task.srcPath), dst.display(task.dstPath), failed->second,
                            "not copied: its folder " + dst.display(failed->first) + " could not be created"},
                           observer);
                return;
            }
            if (m_journal
                && (m_journal->fileDone(task.dstPath) || (m_journal->committing(task.dstPath) && !replaces(options)))
                && stillThere(dst, task)) {
                // Copied by an earlier run of this job.
                m_filesDone.fetch_add(1);
                addBytes(task.source.size, observer);
                std::lock_guard lock(m_mutex);
                ++m_report.filesCopied;
                m_report.bytesResumed += task.source.size;
                return;
            }
            if (m_unreachable.load()) {
                m_filesDone.fetch_add(1);
                addFailure({task.srcOp->display(task.srcPath), dst.display(task.dstPath), ErrorKind::Network,
                            "not copied " + task.srcOp->display(task.srcPath)
                                + ": the storage stopped answering (an earlier file failed even after retries); "
                                  "run the same command again to resume"},
                           observer);
                return;
            }
            auto outcome = copyWithRetries(task, dst, context, observer);
            m_filesDone.fetch_add(1);
            if (!outcome) {
                if (outcome.error().kind() != ErrorKind::Cancelled || !stop.stop_requested())
                    addFailure({task.srcOp->display(task.srcPath), dst.display(task.dstPath), outcome.error().kind(),
                                outcome.error().message()},
                               observer);
                return;
            }
            for (auto &warning : outcome->warnings)
                addWarning(std::move(warning));
            bool removedSource = false;
            if (options.mode == TransferMode::Move && !outcome->skipped) {
                if (auto st = task.srcOp->remove(task.srcPath); !st)
                    addFailure({task.srcOp->display(task.srcPath), dst.display(task.dstPath), st.error().kind(),
                                "copied, but the source could not be removed: " + st.error().message()},
                               observer);
                else
                    removedSource = true;
            }
            if (outcome->skipped)
                m_filesSkipped.fetch_add(1);
            std::lock_guard lock(m_mutex);
            if (outcome->skipped) {
                ++m_report.filesSkipped;
            } else {
                ++m_report.filesCopied;
                m_report.filesVerified += outcome->verified ? 1 : 0;
                m_report.filesDeleted += removedSource ? 1 : 0;
                m_report.bytesCopied += outcome->bytesCopied;
                m_report.bytesResumed += outcome->bytesResumed;
                m_report.bytesThroughBuffers += outcome->bytesThroughBuffers;
            }
        });
    }
    fileWorkers.runUntilDone(group);
    beginModes(); // no byte moved (empty files, none at all, all copied before)
    besideWorkers->runUntilDone(besideGroup);
}

// On an object store a folder is its keys: the files copied into it make it. A folder
// with no file of its own gets a marker (an empty one would not show; s3rver lists a
// folder only where something is right in it), made beside the files (as many at once as
// folders are made): a copy into s3://bucket/new/ waited two round trips for markers
// before its first byte. The pool has room for `later` tasks more (folder modes).
std::unique_ptr<WorkerPool> TransferJob::besideFiles(const TransferPlan &plan, TaskGroup &group,
                                                     TransferObserver *observer, const std::stop_token &stop,
                                                     std::size_t later)
{
    std::vector<std::function<void()>> tasks;
    Operator &dst = *plan.dstOp;
    if (dst.capabilities().has(Capability::CreateDir) && !dst.capabilities().has(Capability::RealDirectories)) {
        std::unordered_set<std::string_view> filled;
        for (const auto &task : plan.files)
            filled.insert(parentPath(task.dstPath));
        for (const auto &dir : plan.dirs)
            if (!filled.contains(dir))
                tasks.emplace_back([this, &dst, &dir, observer] {
                    if (auto st = dst.markDir(dir); !st) {
                        addFailure({{}, dst.display(dir), st.error().kind(), st.error().message()}, observer);
                        return;
                    }
                    std::lock_guard lock(m_mutex);
                    ++m_report.dirsCreated;
                });
    }
    auto workers = std::make_unique<WorkerPool>(std::min(tasks.size() + later, jobCount()));
    for (auto &task : tasks)
        workers->submit(group, [&stop, task = std::move(task)] {
            if (!stop.stop_requested())
                task();
        });
    return workers;
}

void TransferJob::setDirMode(const TransferPlan &plan, const std::pair<std::string, std::uint32_t> &dirMode)
{
    auto st =
        plan.dstOp->setPermissions(dirMode.first, copyMode(dirMode.second, m_spec.options.preserveMode), plan.dstRoot);
    if (!st && st.error().kind() != ErrorKind::Unsupported)
        addWarning("the permissions of " + plan.dstOp->display(dirMode.first)
                   + " were not set: " + st.error().message());
}

namespace {

// The server-side leftovers of one file's tries (temporary uploads a server kept while its
// answer was lost): each try discards its own, but not while the server is down, so they
// are discarded again before the next try and once more when the file is done with.
class Leftovers {
public:
    Leftovers(Operator &dst, const FileTask &task, const std::stop_token &stop) : m_dst(dst), m_task(task), m_stop(stop)
    {
    }
    Leftovers(const Leftovers &) = delete;
    Leftovers &operator=(const Leftovers &) = delete;
    ~Leftovers()
    {
        if (!m_stop.stop_requested())
            sweep();
    }
    void add(const std::vector<std::string> &tokens) { m_tokens.insert(m_tokens.end(), tokens.begin(), tokens.end()); }
    void sweep()
    {
        for (const auto &token : m_tokens)
            m_dst.discardPending(m_task.dstPath, token);
    }

private:
    Operator &m_dst;
    const FileTask &m_task;
    const std::stop_token &m_stop;
    std::vector<std::string> m_tokens;
};

// Waits `pause` unless the job is stopped first; false when it was.
bool pauseUnlessStopped(std::chrono::milliseconds pause, const std::stop_token &stop)
{
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait_for(lock, stop, pause, [] { return false; });
    return !stop.stop_requested();
}

} // namespace

std::optional<FileOutcome> TransferJob::publishedEarlier(const FileTask &task, Operator &dst, CopyContext &context,
                                                         TransferObserver *observer, bool &replaceOwn)
{
    auto there = dst.stat(task.dstPath);
    if (!there || !there->isFile())
        return std::nullopt; // not there, or not known yet: the next try finds out
    if (!complete(*there, task)) {
        // Something there but not the whole copy: our own publish, broken off on a server
        // that does not publish atomically (s3rver killed mid-PUT). Ours to replace.
        replaceOwn = true;
        return std::nullopt;
    }
    FileOutcome done;
    done.bytesCopied = task.source.size;
    addBytes(task.source.size, observer);
    if (context.journal)
        context.journal->markFileDone(task.dstPath);
    return done;
}

Result<FileOutcome> TransferJob::copyWithRetries(const FileTask &task, Operator &dst, CopyContext &context,
                                                 TransferObserver *observer)
{
    // A temporary failure (a server restarting, a connection cut, a 503) costs the file one
    // more try after a pause, not the whole job: the storage layer retries single requests,
    // but a stream already half sent can only be sent again from here. Parts written
    // before are kept where the destination can keep them (resumed, not sent again).
    constexpr int kAttempts = 4;
    std::chrono::milliseconds pause{500};
    // A try that got as far as publishing may have published, with only the answer lost
    // (the server killed before it replied): then a complete copy is there, and it is ours.
    // A resumed job's journal may say so for an earlier run too.
    bool maybePublished = context.journal && context.journal->committing(task.dstPath);
    bool replaceOwn = false;
    const auto findPublished = [&]() -> std::optional<FileOutcome> {
        if (!maybePublished || replaces(context.options))
            return std::nullopt;
        return publishedEarlier(task, dst, context, observer, replaceOwn);
    };
    // Server-side leftovers of an earlier, killed run's tries at this file (an S3 multipart
    // upload) go before it is tried again: nothing is left behind once it is done.
    if (context.journal)
        for (const auto &token : context.journal->pending(task.dstPath))
            dst.discardPending(task.dstPath, token);
    Leftovers leftovers(dst, task, context.stop);
    for (int attempt = 1;; ++attempt) {
        leftovers.sweep();
        std::atomic<std::uint64_t> counted{0}; // parts report from several threads
        const auto forget = [&] {              // a try's bytes are counted again by the next one
            m_bytesDone.fetch_sub(std::min<std::uint64_t>(counted.load(), m_bytesDone.load()),
                                  std::memory_order_relaxed);
        };
        CopyContext mine = context;
        mine.onBytes = [&counted, &context](std::uint64_t n) {
            counted.fetch_add(n, std::memory_order_relaxed);
            context.onBytes(n);
        };
        // A try after the first may find what the one before left to resume.
        FileTask thisTry = task;
        thisTry.newFolder = task.newFolder && attempt == 1;
        FileCopier copier(thisTry, dst, mine);
        if (replaceOwn)
            copier.replaceOwnLeftover();
        auto outcome = copier.run();
        if (!outcome)
            leftovers.add(copier.announced());
        // Refused because the name is taken: perhaps by our own earlier publish.
        if (!outcome && outcome.error().kind() == ErrorKind::AlreadyExists && !replaceOwn) {
            if (auto done = findPublished())
                return *done;
            if (replaceOwn) {
                forget();
                --attempt; // not a failure of the storage: the same try, allowed to replace
                continue;
            }
        }
        if (outcome || !outcome.error().temporary() || outcome.error().kind() == ErrorKind::Cancelled
            || context.stop.stop_requested())
            return outcome;
        if (attempt >= kAttempts) {
            m_unreachable = true;
            return outcome;
        }
        forget();
        maybePublished = maybePublished || copier.reachedCommit();
        if (auto done = findPublished())
            return *done;
        noteRetry(outcome.error());
        if (!pauseUnlessStopped(pause, context.stop))
            return outcome;
        pause *= 2;
    }
}

void TransferJob::finishPlan(TransferPlan &plan, TransferObserver *observer, const std::stop_token &stop)
{
    if (stop.stop_requested() || m_filesFailed > 0)
        return;
    for (const auto &extra : plan.extras) {
        // Whatever the listings said, nothing outside the destination named is removed.
        if (!isStrictlyBelow(extra, plan.dstRoot)) {
            addFailure({{},
                        plan.dstOp->display(extra),
                        ErrorKind::InvalidInput,
                        "not removed: it is not inside " + plan.dstOp->display(plan.dstRoot)},
                       observer);
            continue;
        }
        RemoveAllOptions confined;
        confined.within = plan.dstRoot;
        if (auto st = plan.dstOp->removeAll(extra, confined); !st)
            addFailure({{}, plan.dstOp->display(extra), st.error().kind(), st.error().message()}, observer);
        else {
            std::lock_guard lock(m_mutex);
            ++m_report.filesDeleted;
        }
    }
    for (const auto &[op, dir] : plan.sourceDirs)
        (void)op->remove(dir); // only emptied directories go; others say DirectoryNotEmpty
    // Deepest first, so a read-only folder is closed only after its children are done; the
    // folders of a level side by side. (Those that stay writable by their owner were set
    // beside the files.)
    byLevel(
        plan.dirModes, true, true, jobCount(), std::stop_token(),
        [&](const std::pair<std::string, std::uint32_t> &dirMode) { setDirMode(plan, dirMode); }, [] {});
}

void TransferJob::cleanUp(Registry &registry)
{
    // Partial files of large copies live under names derived from the job: reopen each
    // one the journal knows of and abort it.
    if (m_journal) {
        if (auto dst = registry.open(m_spec.destination); dst) {
            for (const auto &path : m_journal->filesBegun()) {
                WriteOptions options;
                options.resumeKey = resumeKeyFor(m_id, path);
                if (auto writer = dst->op->write(path, options); writer)
                    (*writer)->abort();
            }
            for (const auto &[path, token] : m_journal->pendingUnfinished())
                dst->op->discardPending(path, token);
        }
        m_journal->remove();
    }
}

} // namespace strata

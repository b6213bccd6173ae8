#include "core/transfer/transfer_queue.h"

#include "core/storage/random.h"
#include "core/storage/state_folder.h"

namespace strata {

std::string newJobId()
{
    static constexpr char digits[] = "0123456789abcdef";
    std::uint64_t bits = randomU64();
    std::string id;
    for (int i = 0; i < 12; ++i, bits >>= 4)
        id += digits[bits & 15];
    return id;
}

TransferQueue::TransferQueue(Registry &registry, QueueOptions options, TransferObserver *observer)
    : m_registry(registry), m_options(std::move(options)), m_observer(observer)
{
}

TransferQueue::~TransferQueue()
{
    std::vector<std::jthread> threads;
    {
        std::lock_guard lock(m_mutex);
        m_closing = true;
        for (auto &slot : m_slots) {
            slot->stop.request_stop();
            threads.push_back(std::move(slot->thread));
        }
    }
    threads.clear(); // joins
}

TransferQueue::Slot *TransferQueue::find(const std::string &id)
{
    for (auto &slot : m_slots)
        if (slot->job->id() == id)
            return slot.get();
    return nullptr;
}

const TransferQueue::Slot *TransferQueue::find(const std::string &id) const
{
    for (const auto &slot : m_slots)
        if (slot->job->id() == id)
            return slot.get();
    return nullptr;
}

Result<std::string> TransferQueue::enqueue(TransferSpec spec)
{
    if (spec.sources.empty() || spec.destination.empty())
        return Error(ErrorKind::InvalidInput, "a transfer needs at least one source and a destination");
    std::string id = newJobId();
    std::unique_ptr<TransferJournal> journal;
    std::string warning;
    if (!m_options.journalDir.empty() && !spec.options.dryRun) {
        // Without a journal the copy still works; it just cannot resume after a crash.
        auto created = TransferJournal::create(m_options.journalDir, id, spec);
        if (created)
            journal = std::move(*created);
        else
            warning = "this transfer cannot be resumed if interrupted: " + created.error().message();
    }
    std::lock_guard lock(m_mutex);
    auto slot = std::make_unique<Slot>();
    slot->job = std::make_shared<TransferJob>(id, std::move(spec), std::move(journal));
    if (!warning.empty())
        slot->job->addWarning(std::move(warning));
    m_slots.push_back(std::move(slot));
    schedule();
    return id;
}

std::vector<std::string> TransferQueue::restore()
{
    std::vector<std::string> ids;
    // Journals in a folder others can write to may be theirs: none is resumed from it.
    if (m_options.journalDir.empty() || !checkStateFolder(m_options.journalDir))
        return ids;
    for (const auto &path : TransferJournal::list(m_options.journalDir)) {
        auto journal = TransferJournal::load(path);
        if (!journal)
            continue; // damaged: left for the user to look at, never half-applied
        const std::string id = (*journal)->jobId();
        std::lock_guard lock(m_mutex);
        if (id.empty() || find(id))
            continue;
        auto slot = std::make_unique<Slot>();
        TransferSpec spec = (*journal)->spec();
        slot->job = std::make_shared<TransferJob>(id, std::move(spec), std::move(*journal));
        slot->job->setState(JobState::Paused, nullptr);
        m_slots.push_back(std::move(slot));
        ids.push_back(id);
    }
    return ids;
}

std::optional<std::string> TransferQueue::findByIdentity(const std::string &identity) const
{
    std::lock_guard lock(m_mutex);
    for (const auto &slot : m_slots)
        if (slot->job->spec().identity() == identity && !isFinal(slot->job->state()))
            return slot->job->id();
    return std::nullopt;
}

void TransferQueue::start(Slot &slot, bool cleanUpOnly)
{
    if (slot.thread.joinable())
        slot.thread.join(); // an earlier run's thread, already finished
    slot.stop = std::stop_source();
    slot.active = true;
    auto job = slot.job;
    slot.thread = std::jthread([this, job, stop = slot.stop.get_token(), cleanUpOnly, &slot] {
        if (cleanUpOnly) {
            job->cleanUp(m_registry);
            job->setState(JobState::Cancelled, m_observer);
        } else {
            job->run(m_registry, m_observer, stop);
        }
        std::lock_guard lock(m_mutex);
        slot.active = false;
        if (!m_closing)
            schedule();
        m_changed.notify_all();
    });
}

void TransferQueue::schedule()
{
    std::size_t running = 0;
    for (const auto &slot : m_slots)
        running += slot->active ? 1 : 0;
    for (auto &slot : m_slots) {
        if (running >= m_options.maxRunningJobs)
            break;
        if (!slot->active && slot->job->state() == JobState::Queued) {
            start(*slot, false);
            ++running;
        }
    }
}

Status TransferQueue::pause(const std::string &id)
{
    std::lock_guard lock(m_mutex);
    Slot *slot = find(id);
    if (!slot)
        return Error(ErrorKind::NotFound, "no transfer " + id);
    if (slot->active)
        slot->stop.request_stop();
    else if (slot->job->state() == JobState::Queued)
        slot->job->setState(JobState::Paused, m_observer);
    m_changed.notify_all();
    return {};
}

Status TransferQueue::resume(const std::string &id, const std::optional<TransferOptions> &options)
{
    std::lock_guard lock(m_mutex);
    Slot *slot = find(id);
    if (!slot)
        return Error(ErrorKind::NotFound, "no transfer " + id);
    const auto state = slot->job->state();
    if (slot->active)
        return Error(ErrorKind::Busy, "the transfer is still stopping; try again in a moment");
    if (state != JobState::Paused && state != JobState::Failed)
        return Error(ErrorKind::InvalidInput, "only a paused or failed transfer can be resumed");
    if (options)
        slot->job->updateOptions(*options);
    slot->job->setState(JobState::Queued, m_observer);
    schedule();
    return {};
}

Status TransferQueue::cancel(const std::string &id)
{
    std::lock_guard lock(m_mutex);
    Slot *slot = find(id);
    if (!slot)
        return Error(ErrorKind::NotFound, "no transfer " + id);
    if (isFinal(slot->job->state()) && slot->job->state() != JobState::Failed)
        return {};
    slot->job->markCancelled();
    if (slot->active)
        slot->stop.request_stop();
    else
        start(*slot, true); // clean-up does I/O: never on the caller's (maybe GUI) thread
    return {};
}

std::vector<std::string> TransferQueue::jobIds() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::string> ids;
    for (const auto &slot : m_slots)
        ids.push_back(slot->job->id());
    return ids;
}

std::optional<JobState> TransferQueue::state(const std::string &id) const
{
    std::lock_guard lock(m_mutex);
    const Slot *slot = find(id);
    return slot ? std::optional(slot->job->state()) : std::nullopt;
}

std::optional<TransferProgress> TransferQueue::progress(const std::string &id) const
{
    std::lock_guard lock(m_mutex);
    const Slot *slot = find(id);
    return slot ? std::optional(slot->job->progress()) : std::nullopt;
}

std::optional<TransferReport> TransferQueue::report(const std::string &id) const
{
    std::lock_guard lock(m_mutex);
    const Slot *slot = find(id);
    return slot ? std::optional(slot->job->report()) : std::nullopt;
}

std::optional<TransferSpec> TransferQueue::spec(const std::string &id) const
{
    std::lock_guard lock(m_mutex);
    const Slot *slot = find(id);
    return slot ? std::optional(slot->job->spec()) : std::nullopt;
}

JobState TransferQueue::wait(const std::string &id)
{
    std::optional<JobState> state;
    while (!(state = waitFor(id, std::chrono::hours(1)))) {}
    return *state;
}

std::optional<JobState> TransferQueue::waitFor(const std::string &id, std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    const bool over = m_changed.wait_for(lock, timeout, [&] {
        const Slot *slot = find(id);
        return !slot || (!slot->active && slot->job->state() != JobState::Queued);
    });
    if (!over)
        return std::nullopt;
    const Slot *slot = find(id);
    return slot ? slot->job->state() : JobState::Cancelled;
}

} // namespace strata

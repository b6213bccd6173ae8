#pragma once

#include "core/io/extent.h"
#include "core/storage/error.h"
#include "core/storage/result.h"

#include <libnbd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace strata::nbd {

// An errno a command completed with, as our error; I/O errors and dropped connections are
// worth retrying (a server's transient fault), the rest are not.
Error commandError(int err, std::string_view what);
// libnbd's own message for the call that just failed on this thread.
Error libraryError(std::string_view what);

// A group of commands one caller waits for; the first error wins. A batch that wakes on
// each completion (a queue's: Connection::runQueue) also lists the commands that completed
// without error, for its caller to reap one by one.
class Batch {
public:
    Batch() = default;
    explicit Batch(bool wakeEach) : m_wakeEach(wakeEach) {}

    void add()
    {
        std::lock_guard lock(m_mutex);
        ++m_pending;
    }
    void done(int err, const void *command)
    {
        std::lock_guard lock(m_mutex);
        if (err && !m_error)
            m_error = err;
        if (m_wakeEach && !err)
            m_succeeded.push_back(command);
        if (--m_pending == 0 || m_wakeEach)
            m_idle.notify_all();
    }
    void failSubmit(Error error)
    {
        std::lock_guard lock(m_mutex);
        if (!m_submitError)
            m_submitError = std::move(error);
        if (--m_pending == 0 || m_wakeEach)
            m_idle.notify_all();
    }
    // A waking batch: moves the commands that succeeded since the last call into `into`;
    // with `wait`, first sleeps until there is one, a command failed, or none is pending.
    void takeSucceeded(std::vector<const void *> &into, bool wait)
    {
        std::unique_lock lock(m_mutex);
        if (wait)
            m_idle.wait(lock, [&] { return !m_succeeded.empty() || m_error || m_submitError || m_pending == 0; });
        into.swap(m_succeeded);
        m_succeeded.clear();
    }
    bool failed()
    {
        std::lock_guard lock(m_mutex);
        return m_error || m_submitError;
    }
    bool idle()
    {
        std::lock_guard lock(m_mutex);
        return m_pending == 0;
    }
    // Waits for every command; the error of the first that failed, if any.
    Status wait(std::string_view what)
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [this] { return m_pending == 0; });
        if (m_submitError)
            return *m_submitError;
        if (m_error)
            return commandError(m_error, what);
        return {};
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_idle;
    std::size_t m_pending = 0;
    bool m_wakeEach = false;
    std::vector<const void *> m_succeeded; // a waking batch's, not yet taken
    int m_error = 0;
    std::optional<Error> m_submitError;
};

// One NBD connection and the thread that drives it: it polls the socket and an eventfd
// (rung after each submission so a pending send is noticed) and runs libnbd's state
// machine; completions run there. Commands may be submitted from any thread; at most
// `slots` are in flight. Submitters never wait for a slot: a command beyond them waits in
// a queue that the I/O thread sends from as replies free slots (the server always finds
// the next request waiting, and no submitter sleeps and wakes once per request).
// The thread starts with the first command that needs it. Until then a caller may drive
// the connection itself (driveHere): a look at an image — its size, its block status, an
// empty image's whole copy — costs no thread and no hand-over between threads.
class Connection {
public:
    using Connect = std::function<Result<nbd_handle *>()>;

    Connection(nbd_handle *handle, std::size_t slots, Connect connect)
        : m_handle(handle), m_event(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), m_slots(slots),
          m_connect(std::move(connect))
    {
    }

    ~Connection()
    {
        stopThread();
        // Every command has completed (callers wait for theirs): tell the server we are
        // leaving without waiting for its answer, then close. Connections part at once
        // rather than one round trip after another.
        if (!nbd_aio_is_dead(m_handle) && !nbd_aio_is_closed(m_handle))
            nbd_aio_disconnect(m_handle, 0);
        nbd_close(m_handle);
        if (m_event >= 0)
            ::close(m_event);
    }

    nbd_handle *handle() const { return m_handle; }

    // One command, as data: it may be sent later, from the I/O thread. It stays where it is
    // (the caller's vector) until its batch has completed.
    struct Command {
        enum class Op : std::uint8_t { Read, Write, Zero, Flush, BlockStatus };
        Batch *batch = nullptr;
        Op op = Op::Read;
        void *data = nullptr;                   // read: where to; write: where from
        std::uint64_t length = 0;               // bytes (flush: none)
        std::uint64_t offset = 0;               // the first byte (block status: the first asked about)
        std::vector<Extent> *extents = nullptr; // block status: where the answer goes
        Connection *connection = nullptr;       // set when submitted
    };

    // Submits a command and accounts for it in its batch; the I/O thread completes it.
    void submit(Command &command)
    {
        startThread();
        command.connection = this;
        command.batch->add();
        {
            std::lock_guard lock(m_mutex);
            if (!m_ioDone && (m_inFlight >= m_slots || !m_waiting.empty())) {
                m_waiting.push_back(&command);
                return;
            }
            ++m_inFlight;
        }
        issue(command, false);
    }

    // When no I/O thread drives this connection yet and no other caller is driving it:
    // runs `submitAll(Submit)` — which submits at most `slots` commands of `batch` through the
    // Submit it is given, (Command &) — then libnbd's state machine on this thread until the
    // batch has completed, and returns true. Otherwise returns false and does nothing: the
    // caller uses submit() and Batch::wait().
    template <typename SubmitAll>
    bool driveHere(Batch &batch, SubmitAll &&submitAll)
    {
        const std::unique_lock drive = claim();
        if (!drive.owns_lock())
            return false;
        submitAll([this](Command &command) { submitHere(command); });
        while (!batch.idle())
            if (!turn(false))
                break; // dead: libnbd has completed the batch's commands with an error
        return true;
    }

    // Keeps up to `depth` (at most `slots`) commands of one caller in flight, as a disk's
    // queue: `fill(slot, Command &)` sets up the next one's op, data, length and offset
    // (false: no more), `reap(slot, const Command &)` hears of each that completed; both on
    // this thread. A slot (0..depth-1) names a command from its filling to its reaping.
    // The connection is driven here when no I/O thread drives it, as fio's nbd engine does
    // (no hand-over between threads per command); otherwise commands go through the I/O
    // thread and this one sleeps until one completes. The first error, once nothing of the
    // queue is in flight.
    template <typename Fill, typename Reap>
    Status runQueue(std::size_t depth, Fill &&fill, Reap &&reap, std::string_view what)
    {
        std::unique_lock drive = claim();
        bool here = drive.owns_lock();
        depth = std::clamp<std::size_t>(depth, 1, m_slots);
        Batch batch(true);
        std::vector<Command> commands(depth);
        std::vector<std::size_t> free(depth);
        for (std::size_t i = 0; i < depth; ++i)
            free[i] = depth - 1 - i;
        std::vector<const void *> succeeded;
        succeeded.reserve(depth);
        bool more = true;
        while (true) {
            while (more && !free.empty() && !batch.failed()) {
                Command &command = commands[free.back()];
                command = {.batch = &batch};
                if (!fill(free.back(), command)) {
                    more = false;
                    break;
                }
                free.pop_back();
                if (here)
                    submitHere(command);
                else
                    submit(command);
            }
            if (free.size() == depth || batch.failed())
                break;
            // Another caller needs the connection too: its I/O thread takes over what is in
            // flight, and this queue goes on through it.
            if (here && m_threadWanted.load(std::memory_order_acquire)) {
                drive.unlock();
                here = false;
            }
            if (here) {
                batch.takeSucceeded(succeeded, false);
                while (succeeded.empty() && !batch.failed() && !batch.idle()) {
                    if (!turn(false))
                        break; // dead: libnbd has completed what was in flight, with an error
                    batch.takeSucceeded(succeeded, false);
                }
            } else {
                batch.takeSucceeded(succeeded, true);
            }
            for (const void *done : succeeded) {
                const auto *command = static_cast<const Command *>(done);
                const auto slot = std::size_t(command - commands.data());
                free.push_back(slot);
                reap(slot, *command);
            }
        }
        if (here)
            while (!batch.idle())
                if (!turn(false))
                    break;
        return batch.wait(what);
    }

    std::size_t slots() const { return m_slots; }

    static Error closedError()
    {
        Error error(ErrorKind::Network, "the NBD server closed the connection");
        error.setTemporary(true);
        return error;
    }

private:
    // The right to drive the connection on this thread: held when no I/O thread runs and no
    // other caller drives it (until released, a command from elsewhere starts the thread
    // only once this is let go).
    std::unique_lock<std::mutex> claim()
    {
        if (m_threadRunning.load(std::memory_order_acquire))
            return {};
        std::unique_lock drive(m_driveMutex, std::try_to_lock);
        if (!drive.owns_lock() || m_threadRunning.load(std::memory_order_relaxed))
            return {};
        return drive;
    }
    // Sends a command from the thread that drives the connection (it has a free slot).
    void submitHere(Command &command)
    {
        command.connection = this;
        command.batch->add();
        acquire();
        issue(command, false);
    }

    // Sends a command that holds a slot. A caller's thread connects again when the server
    // dropped us. The I/O thread neither can (reconnect() waits for it to end) nor needs to
    // lock the handle: it is replaced only once that thread has ended.
    void issue(Command &command, bool ioThread)
    {
        std::shared_lock lock(m_handleMutex, std::defer_lock);
        if (!ioThread)
            lock.lock();
        if (gone(m_handle)) {
            if (lock.owns_lock())
                lock.unlock();
            if (ioThread) {
                release();
                command.batch->failSubmit(closedError());
                return;
            }
            // The server dropped us (it restarted, or went away): connect again once,
            // so a retry of this request can succeed when the server is back.
            if (auto st = reconnect(); !st) {
                release();
                command.batch->failSubmit(std::move(st).error());
                return;
            }
            lock.lock();
        }
        if (send(command) == -1) {
            auto error = gone(m_handle) ? closedError() : libraryError(name(command.op));
            if (lock.owns_lock())
                lock.unlock();
            ring(); // the I/O thread may be polling a connection that just died
            release();
            command.batch->failSubmit(std::move(error));
            return;
        }
        // libnbd sends at once what the socket takes; the I/O thread (which polls for
        // replies anyway) needs waking only when a send is left pending.
        if (!ioThread && (nbd_aio_get_direction(m_handle) & LIBNBD_AIO_DIRECTION_WRITE))
            ring();
    }

    std::int64_t send(Command &command)
    {
        const nbd_completion_callback done{.callback = &Connection::completed, .user_data = &command, .free = nullptr};
        switch (command.op) {
        case Command::Op::Read: return nbd_aio_pread(m_handle, command.data, command.length, command.offset, done, 0);
        case Command::Op::Write: return nbd_aio_pwrite(m_handle, command.data, command.length, command.offset, done, 0);
        case Command::Op::Zero: return nbd_aio_zero(m_handle, command.length, command.offset, done, 0);
        case Command::Op::Flush: return nbd_aio_flush(m_handle, done, 0);
        case Command::Op::BlockStatus: {
            const nbd_extent_callback extents{
                .callback = &Connection::extentsFound, .user_data = &command, .free = nullptr};
            return nbd_aio_block_status(m_handle, command.length, command.offset, extents, done, 0);
        }
        }
        return -1;
    }

    static const char *name(Command::Op op)
    {
        switch (op) {
        case Command::Op::Read: return "read";
        case Command::Op::Write: return "write";
        case Command::Op::Zero: return "write zeroes";
        case Command::Op::Flush: return "flush";
        case Command::Op::BlockStatus: return "block status";
        }
        return "command";
    }

    static int completed(void *user, int *error)
    {
        auto *command = static_cast<Command *>(user);
        Connection *self = command->connection;
        command->batch->done(*error, command);
        self->release();
        return 1; // retire the command
    }
    // Block status answers (base:allocation) appended to the command's extents.
    static int extentsFound(void *user, const char *context, std::uint64_t offset, std::uint32_t *entries,
                            std::size_t count, int *error);

    // On the I/O thread, between turns: sends what waits while slots are free.
    void issueWaiting()
    {
        std::unique_lock lock(m_mutex);
        while (m_inFlight < m_slots && !m_waiting.empty()) {
            Command *command = m_waiting.front();
            m_waiting.pop_front();
            ++m_inFlight;
            lock.unlock();
            issue(*command, true);
            lock.lock();
        }
    }
    // The I/O thread is leaving (the connection died, or we stop): what waits fails, and
    // later submitters send their commands themselves (and connect again).
    void failWaiting()
    {
        std::deque<Command *> orphans;
        {
            std::lock_guard lock(m_mutex);
            m_ioDone = true;
            orphans.swap(m_waiting);
        }
        for (Command *command : orphans)
            command->batch->failSubmit(closedError());
    }

    static bool gone(nbd_handle *h) { return nbd_aio_is_dead(h) || nbd_aio_is_closed(h); }

    void startThread()
    {
        if (m_threadRunning.load(std::memory_order_acquire))
            return;
        // A queue driving the connection hands it over at its next turn (runQueue); a batch
        // driven here (driveHere) is waited for.
        m_threadWanted.store(true, std::memory_order_release);
        std::lock_guard drive(m_driveMutex);
        if (!m_threadRunning.load(std::memory_order_relaxed)) {
            std::unique_lock lock(m_handleMutex);
            launch();
            m_threadRunning.store(true, std::memory_order_release);
        }
        m_threadWanted.store(false, std::memory_order_relaxed);
    }

    void stopThread()
    {
        m_stopping = true;
        ring();
        if (m_thread.joinable())
            m_thread.join();
    }

    Status reconnect()
    {
        std::unique_lock lock(m_handleMutex);
        if (!gone(m_handle))
            return {}; // another thread reconnected it meanwhile
        const bool threaded = m_threadRunning.load(std::memory_order_relaxed);
        stopThread();
        auto fresh = m_connect();
        if (!fresh) {
            Error error(ErrorKind::Network,
                        "the NBD server closed the connection, and connecting again failed: " + fresh.error().cause());
            error.setTemporary(true);
            m_stopping = false;
            if (threaded)
                launch(); // exits at once on the dead handle
            return error;
        }
        nbd_close(m_handle);
        m_handle = *fresh;
        m_stopping = false;
        if (threaded)
            launch();
        return {};
    }

    void acquire()
    {
        std::unique_lock lock(m_mutex);
        m_free.wait(lock, [this] { return m_inFlight < m_slots; });
        ++m_inFlight;
    }
    void release()
    {
        std::lock_guard lock(m_mutex);
        --m_inFlight;
        m_free.notify_one();
    }
    void ring()
    {
        const std::uint64_t one = 1;
        [[maybe_unused]] auto n = ::write(m_event, &one, sizeof one);
    }

    void run()
    {
        while (!m_stopping && turn(true))
            issueWaiting();
        failWaiting();
    }
    // A new I/O thread: commands may wait for it again.
    void launch()
    {
        {
            std::lock_guard lock(m_mutex);
            m_ioDone = false;
        }
        m_thread = std::jthread([this] { run(); });
    }

    // Waits for the socket (and, for the I/O thread, the eventfd) and moves libnbd's state
    // machine on; false once the connection is closed or dead (libnbd has then completed
    // every command in flight with an error).
    bool turn(bool withEvent)
    {
        const int fd = nbd_aio_get_fd(m_handle);
        if (fd < 0)
            return false;
        const unsigned dir = nbd_aio_get_direction(m_handle);
        pollfd fds[2] = {{fd,
                          short(((dir & LIBNBD_AIO_DIRECTION_READ) ? POLLIN : 0)
                                | ((dir & LIBNBD_AIO_DIRECTION_WRITE) ? POLLOUT : 0)),
                          0},
                         {m_event, POLLIN, 0}};
        if (::poll(fds, withEvent ? 2 : 1, -1) < 0)
            return errno == EINTR;
        if (withEvent && (fds[1].revents & POLLIN)) {
            std::uint64_t drained;
            [[maybe_unused]] auto n = ::read(m_event, &drained, sizeof drained);
        }
        int rc = 0;
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
            rc = nbd_aio_notify_read(m_handle);
        else if (fds[0].revents & POLLOUT)
            rc = nbd_aio_notify_write(m_handle);
        return !(rc == -1 && gone(m_handle));
    }

    nbd_handle *m_handle;
    int m_event;
    std::size_t m_slots;
    std::mutex m_mutex;
    std::condition_variable m_free;
    std::size_t m_inFlight = 0;
    std::deque<Command *> m_waiting; // submitted beyond the slots, sent by the I/O thread
    bool m_ioDone = false;           // the I/O thread has left: nothing may wait for it
    std::atomic<bool> m_stopping{false};
    Connect m_connect;
    std::shared_mutex m_handleMutex; // exclusive while the handle is replaced
    std::mutex m_driveMutex;         // held by a caller driving the connection, and to start the thread
    std::atomic<bool> m_threadRunning{false};
    std::atomic<bool> m_threadWanted{false}; // a submitter waits for the I/O thread to start
    std::jthread m_thread;
};

} // namespace strata::nbd

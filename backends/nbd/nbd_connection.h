#pragma once

#include "core/io/extent.h"
#include "core/storage/error.h"
#include "core/storage/result.h"

#include <libnbd.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string_view>
#include <thread>
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

// A group of commands one caller waits for; the first error wins.
class Batch {
public:
    void add() { std::lock_guard lock(m_mutex); ++m_pending; }
    void done(int err)
    {
        std::lock_guard lock(m_mutex);
        if (err && !m_error)
            m_error = err;
        if (--m_pending == 0)
            m_idle.notify_all();
    }
    void failSubmit(Error error)
    {
        std::lock_guard lock(m_mutex);
        if (!m_submitError)
            m_submitError = std::move(error);
        if (--m_pending == 0)
            m_idle.notify_all();
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
    int m_error = 0;
    std::optional<Error> m_submitError;
};

// One NBD connection and the thread that drives it: it polls the socket and an eventfd
// (rung after each submission so a pending send is noticed) and runs libnbd's state
// machine; completions run there. Commands may be submitted from any thread; at most
// `slots` are in flight, further submitters wait.
// The thread starts with the first command that needs it. Until then a caller may drive
// the connection itself (driveHere): a look at an image — its size, its block status, an
// empty image's whole copy — costs no thread and no hand-over between threads.
class Connection {
public:
    using Connect = std::function<Result<nbd_handle *>()>;

    Connection(nbd_handle *handle, std::size_t slots, Connect connect)
        : m_handle(handle)
        , m_event(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
        , m_slots(slots)
        , m_connect(std::move(connect))
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

    struct Command {
        Connection *connection;
        Batch *batch;
        std::vector<Extent> *extents = nullptr; // block status: where the answer goes
        std::uint64_t offset = 0;               // block status: the first byte asked about
    };

    // Submits one command (issue: a libnbd aio call taking the completion callback) and
    // accounts for it in `batch`; the I/O thread completes it.
    template <typename Issue>
    void submit(Command &command, Issue &&issue, std::string_view what)
    {
        startThread();
        issueCommand(command, std::forward<Issue>(issue), what);
    }

    // When no I/O thread drives this connection yet and no other caller is driving it:
    // runs `submitAll(Submit)` — which submits at most `slots` commands of `batch` through the
    // Submit it is given, (Command &, Issue, what) — then libnbd's state machine on this
    // thread until the batch has completed, and returns true. Otherwise returns false and
    // does nothing: the caller uses submit() and Batch::wait().
    template <typename SubmitAll>
    bool driveHere(Batch &batch, SubmitAll &&submitAll)
    {
        if (m_threadRunning.load(std::memory_order_acquire))
            return false;
        std::unique_lock drive(m_driveMutex, std::try_to_lock);
        if (!drive.owns_lock() || m_threadRunning.load(std::memory_order_relaxed))
            return false;
        submitAll([this](Command &command, auto &&issue, std::string_view what) {
            issueCommand(command, std::forward<decltype(issue)>(issue), what);
        });
        while (!batch.idle())
            if (!turn(false))
                break; // dead: libnbd has completed the batch's commands with an error
        return true;
    }

    std::size_t slots() const { return m_slots; }

private:
    template <typename Issue>
    void issueCommand(Command &command, Issue &&issue, std::string_view what)
    {
        acquire();
        command.connection = this;
        command.batch->add();
        const nbd_completion_callback done{.callback = &Connection::completed, .user_data = &command, .free = nullptr};
        std::shared_lock lock(m_handleMutex);
        if (gone(m_handle)) {
            // The server dropped us (it restarted, or went away): connect again once,
            // so a retry of this request can succeed when the server is back.
            lock.unlock();
            if (auto st = reconnect(); !st) {
                release();
                command.batch->failSubmit(std::move(st).error());
                return;
            }
            lock.lock();
        }
        if (issue(m_handle, done) == -1) {
            auto error = gone(m_handle) ? closedError() : libraryError(what);
            lock.unlock();
            ring(); // the I/O thread may be polling a connection that just died
            release();
            command.batch->failSubmit(std::move(error));
            return;
        }
        // libnbd sends at once what the socket takes; the I/O thread (which polls for
        // replies anyway) needs waking only when a send is left pending.
        if (nbd_aio_get_direction(m_handle) & LIBNBD_AIO_DIRECTION_WRITE)
            ring();
    }

public:
    static Error closedError()
    {
        Error error(ErrorKind::Network, "the NBD server closed the connection");
        error.setTemporary(true);
        return error;
    }

private:
    static int completed(void *user, int *error)
    {
        auto *command = static_cast<Command *>(user);
        Connection *self = command->connection;
        command->batch->done(*error);
        self->release();
        return 1; // retire the command
    }

    static bool gone(nbd_handle *h) { return nbd_aio_is_dead(h) || nbd_aio_is_closed(h); }

    void startThread()
    {
        if (m_threadRunning.load(std::memory_order_acquire))
            return;
        std::lock_guard drive(m_driveMutex); // waits for a caller driving it (driveHere)
        if (m_threadRunning.load(std::memory_order_relaxed))
            return;
        std::unique_lock lock(m_handleMutex);
        m_thread = std::jthread([this] { run(); });
        m_threadRunning.store(true, std::memory_order_release);
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
            Error error(ErrorKind::Network, "the NBD server closed the connection, and connecting again failed: "
                                                + fresh.error().cause());
            error.setTemporary(true);
            m_stopping = false;
            if (threaded)
                m_thread = std::jthread([this] { run(); }); // exits at once on the dead handle
            return error;
        }
        nbd_close(m_handle);
        m_handle = *fresh;
        m_stopping = false;
        if (threaded)
            m_thread = std::jthread([this] { run(); });
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
        while (!m_stopping && turn(true)) {
        }
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
        pollfd fds[2] = {{fd, short(((dir & LIBNBD_AIO_DIRECTION_READ) ? POLLIN : 0)
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
    std::atomic<bool> m_stopping{false};
    Connect m_connect;
    std::shared_mutex m_handleMutex; // exclusive while the handle is replaced
    std::mutex m_driveMutex;         // held by a caller driving the connection, and to start the thread
    std::atomic<bool> m_threadRunning{false};
    std::jthread m_thread;
};

} // namespace strata::nbd

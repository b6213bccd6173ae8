#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>

namespace strata {

// The TCP sockets of one backend's connections. While a request waits on a socket
// (begin() to end()), a thread of the watch reads the kernel's count of bytes received and
// acknowledged on it (TCP_INFO); when none moved for the timeout, it shuts the socket down,
// so that whatever library call waits on it returns at once (libssh 0.10 waits for an SFTP
// answer as long as the socket lives). hangUp() shuts every socket down, and every one
// added later: the process is ending and waits for no server. Thread-safe.
class SocketWatch {
public:
    // No timeout: sockets are only hung up, never watched (libcurl times its own requests).
    SocketWatch() = default;
    explicit SocketWatch(std::chrono::milliseconds timeout) : m_timeout(timeout) {}
    ~SocketWatch(); // every socket was removed
    SocketWatch(const SocketWatch &) = delete;
    SocketWatch &operator=(const SocketWatch &) = delete;

    std::chrono::milliseconds timeout() const { return m_timeout; }

    // From when the socket is made until just before it is closed (a number the kernel
    // hands out again is never shut down by mistake).
    void add(int fd);
    void remove(int fd);
    // A request waits on `fd` from begin() to end(); nested calls count once. The clock
    // starts at the first begin() and restarts with every byte that moves.
    void begin(int fd);
    void end(int fd);

    enum class Cut : std::uint8_t { No, Stalled, HungUp };
    // Whether `fd` was shut down, and why.
    Cut cut(int fd) const;
    void hangUp();
    bool hungUp() const;

private:
    struct Socket {
        int waiting = 0;
        std::uint64_t moved = 0; // bytes received and acknowledged when last looked at
        std::chrono::steady_clock::time_point since;
        Cut cut = Cut::No;
    };
    void run(const std::stop_token &stop);
    void shut(int fd, Socket &socket, Cut why);

    std::chrono::milliseconds m_timeout{0};
    mutable std::mutex m_mutex;
    std::condition_variable_any m_changed;
    std::map<int, Socket> m_sockets;
    int m_waiting = 0;                 // sockets with a request waiting
    std::atomic<bool> m_hungUp{false}; // read without the lock by libcurl users, per request
    std::jthread m_thread;             // started by the first begin()
};

} // namespace strata

#pragma once

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <thread>

#include <pthread.h>

namespace strata::cli {

// Ctrl-C and SIGTERM call a handler (a transfer pauses, a benchmark stops and cleans up)
// instead of killing the process mid-write. Either a thread waits for them (watch()), or
// the caller asks now and then (arrived(): no thread, for a caller that waits anyway).
// A transfer ends within 2 s of the signal, whatever a library waits for: still running
// kCutAfter later, it has its connections cut (Registry::hangUp()), and at kEndAfter it
// ends where it stands (endNow()). A benchmark removes what it wrote first, as long as
// that takes (each request at most the location's timeout).
class InterruptWatch {
public:
    static constexpr std::chrono::milliseconds kCutAfter{500}, kEndAfter{1800};
    // Ends the process at once with status 130 after `line` (threads still in a library
    // call: no destructor may wait for them).
    [[noreturn]] static void endNow(std::FILE *err, const std::string &line)
    {
        std::fputs(line.c_str(), err);
        std::fflush(nullptr);
        std::_Exit(130);
    }

    InterruptWatch()
    {
        sigemptyset(&m_set);
        sigaddset(&m_set, SIGINT);
        sigaddset(&m_set, SIGTERM);
        // Blocked before any worker starts, so only this watcher ever receives them.
        pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
    }
    ~InterruptWatch()
    {
        m_done = true;
        if (m_thread.joinable()) {
            // Wake the watcher now rather than at its next tick; it sees m_done and leaves.
            pthread_kill(m_thread.native_handle(), SIGINT);
            m_thread.join();
        }
        pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
    }
    void watch(std::function<void()> onInterrupt)
    {
        m_thread = std::thread([this, onInterrupt = std::move(onInterrupt)] {
            const timespec tick{0, 100'000'000};
            while (!m_done) {
                if (sigtimedwait(&m_set, nullptr, &tick) > 0 && !m_done) {
                    m_interrupted = true;
                    onInterrupt();
                    return;
                }
            }
        });
    }
    // Whether Ctrl-C or SIGTERM came since the last call (without watch()).
    bool arrived()
    {
        const timespec now{0, 0};
        if (sigtimedwait(&m_set, nullptr, &now) <= 0)
            return false;
        m_interrupted = true;
        return true;
    }
    bool interrupted() const { return m_interrupted; }

private:
    sigset_t m_set{}, m_old{};
    std::atomic<bool> m_done{false}, m_interrupted{false};
    std::thread m_thread;
};

} // namespace strata::cli

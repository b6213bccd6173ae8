#include "core/io/socket_watch.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>

#include <csignal>

#include <linux/tcp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

namespace strata {

namespace {

// Bytes the peer sent us and bytes it acknowledged: either moving is an answer coming.
// nullopt where the kernel says nothing (not a TCP socket): such a socket is never cut.
std::optional<std::uint64_t> moved(int fd)
{
    tcp_info info{};
    socklen_t size = sizeof info;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0
        || size < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
        return std::nullopt;
    return info.tcpi_bytes_received + info.tcpi_bytes_acked;
}

} // namespace

SocketWatch::~SocketWatch() = default;

void SocketWatch::add(int fd)
{
    std::lock_guard lock(m_mutex);
    Socket &socket = m_sockets[fd];
    socket = {};
    if (m_hungUp)
        shut(fd, socket, Cut::HungUp);
}

void SocketWatch::remove(int fd)
{
    std::lock_guard lock(m_mutex);
    auto it = m_sockets.find(fd);
    if (it == m_sockets.end())
        return;
    if (it->second.waiting > 0)
        --m_waiting;
    m_sockets.erase(it);
}

void SocketWatch::begin(int fd)
{
    if (m_timeout.count() <= 0)
        return;
    std::lock_guard lock(m_mutex);
    auto it = m_sockets.find(fd);
    if (it == m_sockets.end() || it->second.waiting++ > 0)
        return;
    it->second.since = std::chrono::steady_clock::now();
    it->second.moved = moved(fd).value_or(0);
    ++m_waiting;
    if (!m_thread.joinable()) {
        // The thread takes no signal (a command line's SIGTERM goes to the thread that
        // waits for it), whichever thread happens to start it.
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        m_thread = std::jthread([this](const std::stop_token &stop) { run(stop); });
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    m_changed.notify_all();
}

void SocketWatch::end(int fd)
{
    if (m_timeout.count() <= 0)
        return;
    std::lock_guard lock(m_mutex);
    auto it = m_sockets.find(fd);
    if (it != m_sockets.end() && it->second.waiting > 0 && --it->second.waiting == 0)
        --m_waiting;
}

SocketWatch::Cut SocketWatch::cut(int fd) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_sockets.find(fd);
    return it == m_sockets.end() ? Cut::No : it->second.cut;
}

void SocketWatch::hangUp()
{
    std::lock_guard lock(m_mutex);
    m_hungUp = true;
    for (auto &[fd, socket] : m_sockets)
        shut(fd, socket, Cut::HungUp);
}

bool SocketWatch::hungUp() const
{
    return m_hungUp.load();
}

void SocketWatch::shut(int fd, Socket &socket, Cut why)
{
    if (socket.cut != Cut::No)
        return;
    socket.cut = why;
    // The descriptor stays open (its owner closes it): every read and write on it now
    // fails or ends at once, in whichever thread waits on it.
    ::shutdown(fd, SHUT_RDWR);
}

void SocketWatch::run(const std::stop_token &stop)
{
    // Looked at four times per timeout (at most every 250 ms): a stall is cut within a
    // quarter of the timeout after it is due.
    const auto tick = std::clamp(m_timeout / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(250));
    std::unique_lock lock(m_mutex);
    while (!stop.stop_requested()) {
        if (m_waiting == 0)
            m_changed.wait(lock, stop, [this] { return m_waiting > 0; });
        else
            m_changed.wait_for(lock, stop, tick, [] { return false; });
        const auto now = std::chrono::steady_clock::now();
        for (auto &[fd, socket] : m_sockets) {
            if (socket.waiting == 0 || socket.cut != Cut::No)
                continue;
            const auto bytes = moved(fd);
            if (!bytes)
                continue;
            if (*bytes != socket.moved) {
                socket.moved = *bytes;
                socket.since = now;
            } else if (now - socket.since >= m_timeout) {
                shut(fd, socket, Cut::Stalled);
            }
        }
    }
}

} // namespace strata

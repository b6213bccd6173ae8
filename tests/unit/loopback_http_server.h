#pragma once

// Scripted HTTP servers on 127.0.0.1 for the HTTP client's tests (test_http_client.cpp):
// ScriptServer answers each request with the bytes a test scripts (or drips them, resets,
// stays silent, answers before reading a body); FixedServer answers every request of one
// connection with the same bytes and allocates nothing while it does.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace strata::testing {

using namespace std::chrono_literals;

// A listening socket on 127.0.0.1, on a port the kernel picks.
inline int listenOnLoopback(int &port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    ::listen(fd, 16);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    port = ntohs(a.sin_port);
    return fd;
}

// What the server received: the head (request line and headers) and the body.
struct Seen {
    std::string head;
    std::string body;
    int connection = 0; // which accepted connection (1, 2, ...)
};

// What to do with a request: send these bytes, then close the connection or keep it.
struct Reply {
    std::string bytes;
    bool close = false;
    bool silent = false; // answer nothing, keep the connection open (a stalled server)
    bool reset = false;  // close with a reset (SO_LINGER 0) instead of an orderly close
    int dripMs = 0;      // send the bytes one at a time, this far apart
    // Send the first `splitAt` bytes (the head) and the rest with two calls, Nagle's
    // algorithm on (as radosgw does): the rest waits until the head is acknowledged.
    std::size_t splitAt = 0;
};

// Whether the server reads request bodies before answering (a server that answers an
// upload it refuses after the head alone does not).
enum class Bodies { Read, Unread };

class ScriptServer {
public:
    explicit ScriptServer(std::function<Reply(const Seen &, int index)> script, Bodies bodies = Bodies::Read)
        : m_script(std::move(script)), m_readBodies(bodies == Bodies::Read)
    {
        m_listen = listenOnLoopback(m_port);
        m_accepter = std::thread([this] { acceptLoop(); });
    }
    ~ScriptServer()
    {
        m_stop = true;
        ::shutdown(m_listen, SHUT_RDWR);
        ::close(m_listen);
        m_accepter.join();
        for (auto &t : m_workers)
            t.join();
    }
    std::string url(std::string_view path = "/x") const
    {
        return "http://127.0.0.1:" + std::to_string(m_port) + std::string(path);
    }
    int connections() const { return m_connections.load(); }
    int closed() const { return m_closed.load(); } // connections the server has closed
    std::vector<Seen> seen()
    {
        std::lock_guard lock(m_mutex);
        return m_seen;
    }

private:
    void acceptLoop()
    {
        for (;;) {
            const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) {
                if (m_stop)
                    return;
                continue;
            }
            const int number = ++m_connections;
            std::lock_guard lock(m_mutex);
            m_workers.emplace_back([this, fd, number] { serve(fd, number); });
        }
    }
    // Reads one request; false when the client closed the connection (or the test ends).
    bool readRequest(int fd, std::string &pending, Seen &seen)
    {
        for (;;) {
            const auto end = pending.find("\r\n\r\n");
            if (end != std::string::npos) {
                seen.head = pending.substr(0, end + 2);
                std::size_t length = 0;
                std::string lowerHead = seen.head;
                for (char &c : lowerHead)
                    c = char(std::tolower((unsigned char)c));
                if (const auto at = lowerHead.find("\r\ncontent-length:"); at != std::string::npos && m_readBodies)
                    length = std::stoul(seen.head.substr(at + 17));
                while (pending.size() < end + 4 + length)
                    if (!receiveMore(fd, pending))
                        return false;
                seen.body = pending.substr(end + 4, length);
                pending.erase(0, end + 4 + length);
                return true;
            }
            if (!receiveMore(fd, pending))
                return false;
        }
    }
    bool receiveMore(int fd, std::string &pending)
    {
        pollfd p{fd, POLLIN, 0};
        while (::poll(&p, 1, 100) == 0)
            if (m_stop)
                return false;
        char buffer[65536];
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            return false;
        pending.append(buffer, std::size_t(n));
        return true;
    }
    void serve(int fd, int number)
    {
        std::string pending;
        for (;;) {
            Seen seen;
            seen.connection = number;
            if (!readRequest(fd, pending, seen))
                break;
            int index = 0;
            {
                std::lock_guard lock(m_mutex);
                m_seen.push_back(seen);
                index = int(m_seen.size()) - 1;
            }
            const Reply reply = m_script(seen, index);
            if (reply.silent) {
                while (!m_stop)
                    std::this_thread::sleep_for(20ms);
                break;
            }
            std::size_t sent = 0;
            while (sent < reply.bytes.size() && !m_stop) {
                const std::size_t piece = reply.dripMs ? 1
                    : sent < reply.splitAt             ? reply.splitAt - sent
                                                       : reply.bytes.size() - sent;
                const ssize_t n = ::send(fd, reply.bytes.data() + sent, piece, MSG_NOSIGNAL);
                if (n <= 0)
                    break;
                sent += std::size_t(n);
                if (reply.dripMs)
                    std::this_thread::sleep_for(std::chrono::milliseconds(reply.dripMs));
            }
            if (reply.reset) {
                const linger hard{1, 0};
                ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
                break;
            }
            if (reply.close || !m_readBodies)
                break;
        }
        if (!m_readBodies) {
            // Unread bytes make close() send a reset: wait until the client has read the
            // answer and gone (as a server lingering after its answer would).
            ::shutdown(fd, SHUT_WR);
            pollfd p{fd, POLLIN, 0};
            char sink[65536];
            while (!m_stop && ::poll(&p, 1, 100) >= 0)
                if ((p.revents & POLLIN) && ::recv(fd, sink, sizeof sink, 0) <= 0)
                    break;
        }
        ::close(fd);
        ++m_closed;
    }

    std::function<Reply(const Seen &, int)> m_script;
    bool m_readBodies = true;
    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_connections{0};
    std::atomic<int> m_closed{0};
    std::thread m_accepter;
    std::mutex m_mutex;
    std::vector<std::thread> m_workers;
    std::vector<Seen> m_seen;
};

// Answers every request of one connection with the same bytes, allocating nothing (the
// allocation counter counts the whole process, this thread included).
class FixedServer {
public:
    explicit FixedServer(std::string reply) : m_reply(std::move(reply))
    {
        m_listen = listenOnLoopback(m_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~FixedServer()
    {
        ::shutdown(m_listen, SHUT_RDWR);
        if (m_fd >= 0)
            ::shutdown(m_fd, SHUT_RDWR);
        m_thread.join();
        ::close(m_listen);
    }
    std::string url(std::string_view path) const
    {
        return "http://127.0.0.1:" + std::to_string(m_port) + std::string(path);
    }
    int requests() const { return m_requests.load(); }

private:
    void serve()
    {
        m_fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
        if (m_fd < 0)
            return;
        char buffer[16384];
        std::size_t used = 0;
        for (;;) {
            const ssize_t n = ::recv(m_fd, buffer + used, sizeof buffer - used, 0);
            if (n <= 0)
                break;
            used += std::size_t(n);
            for (;;) {
                const std::string_view pending(buffer, used);
                const auto end = pending.find("\r\n\r\n");
                if (end == std::string_view::npos)
                    break;
                ::send(m_fd, m_reply.data(), m_reply.size(), MSG_NOSIGNAL);
                ++m_requests;
                std::memmove(buffer, buffer + end + 4, used - end - 4);
                used -= end + 4;
            }
        }
        ::close(m_fd);
    }
    std::string m_reply;
    int m_listen = -1;
    int m_port = 0;
    std::atomic<int> m_fd{-1};
    std::atomic<int> m_requests{0};
    std::thread m_thread;
};

// A 200 answer with this body (and extra header lines, each ending in CRLF).
inline std::string ok(std::string_view body, std::string_view extra = {})
{
    return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + std::string(extra) + "\r\n"
        + std::string(body);
}

} // namespace strata::testing

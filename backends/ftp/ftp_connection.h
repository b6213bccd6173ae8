#pragma once

#include "backends/ftp/ftp_config.h"
#include "backends/http/stall_clock.h"
#include "core/io/socket_watch.h"
#include "core/storage/result.h"

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::ftp {

// One FTP control connection (a libcurl easy handle, which keeps it open between requests)
// and one request at a time on it. Every request names absolute server paths and asks for
// no CWD (CURLFTPMETHOD_NOCWD): a connection's current folder never matters.
class Connection {
public:
    // Its sockets (control and data) are in `sockets`, the pool's: hangUp() cuts them.
    Connection(const Config &config, SocketWatch &sockets);
    ~Connection();
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    // Commands on the control connection, in order ("MKD /a"; a leading '*' lets one fail),
    // after logging in if needed; the first refused one is the error (the rest were still
    // sent: follow a command only with ones that fail harmlessly after it). The server's
    // replies land in replies().
    Status commands(const std::vector<std::string> &lines, std::string_view what);
    // A listing of a folder (MLSD, or LIST when `mlsd` is false): whole lines handed to
    // `onLines` as they arrive (false stops it), or all of it into `out`.
    using OnLines = std::function<bool(std::string_view lines)>;
    Status listing(const std::string &serverDir, bool mlsd, const OnLines &onLines, std::string_view what);
    Status listing(const std::string &serverDir, bool mlsd, std::string &out, std::string_view what);
    // Up to buffer.size() bytes at offset; fewer only at the end; 0 at or past it.
    Result<std::size_t> read(const std::string &serverPath, std::uint64_t offset, std::span<std::byte> buffer,
                             std::string_view what);
    // A download streamed over many calls: RETR from `offset` on (REST), its bytes handed
    // out as retrieve() asks for them, the transfer paused in between. One login and one
    // data connection for a whole file, where read() costs a request per buffer.
    void beginRetrieve(const std::string &serverPath, std::uint64_t offset);
    // Up to into.size() bytes of it; fewer only at its end (0 after).
    Result<std::size_t> retrieve(std::span<std::byte> into, std::string_view what);
    // Ends it. At the file's expected end, lets the server's final reply arrive so that the
    // connection can serve again (more bytes there: stopped); midway, stops it and the
    // connection goes (libcurl's ABOR leaves a reply unread).
    void endRetrieve(bool atExpectedEnd);
    bool retrieving() const { return m_retrieve.active; }
    // Stores the bytes `source` produces (0 at the end; nullopt aborts) at serverPath, from
    // its start or appended; then the `after` commands (a rename into place) on the same
    // connection, only if every byte arrived. `landed` is called as the server's reply to
    // the bytes (226) arrives, before the `after` commands: the file is whole on the server.
    Status store(const std::string &serverPath, bool append,
                 const std::function<std::optional<std::size_t>(std::span<std::byte>)> &source,
                 const std::vector<std::string> &after, std::string_view what,
                 const std::function<void()> &landed = {});
    // The same from memory.
    Status store(const std::string &serverPath, bool append, std::span<const std::byte> bytes,
                 const std::vector<std::string> &after, std::string_view what);

    // The control replies of the last request, line by line as the server sent them.
    const std::string &replies() const { return m_replies; }
    // The last `count` final reply lines ("NNN text") of the last request, one per command
    // in order; empty when fewer came.
    std::vector<std::string_view> finalReplies(std::size_t count) const;
    static int replyCode(std::string_view reply); // 0 when it is none
    // The error a refusing reply (4xx, 5xx) stands for.
    Status refusal(std::string_view reply, std::string_view what);
    // The shortest time from one final reply to the next in the last request: a command
    // sent on a reply and answered at once (a login's USER, PASS, PWD, FEAT), so one round
    // trip. None before two replies. (A transfer's "150" and "226" may come together.)
    std::optional<std::chrono::microseconds> shortestExchange() const;
    // The folder the server put us in at login (PWD), once a request logged in.
    std::string entryPath();
    // False once a request may have left the control connection out of step (a reply
    // unread): the pool closes it instead of keeping it.
    bool reusable() const { return m_reusable; }
    // Closed when its lease ends instead of kept (a command left half done on it: an RNFR
    // not followed by its RNTO).
    void retire() { m_reusable = false; }
    // The server refused this connection before its login (421: too many from us).
    bool refusedAtLogin() const { return m_refusedAtLogin; }

private:
    void begin(const std::string &url);
    Status perform(std::string_view what);
    CURLcode run();
    // The error of a finished request's result (none for CURLE_OK).
    Status outcome(CURLcode rc, std::string_view what);
    // One round of the transfer loop: true once the request finished (its result in rc).
    bool step(CURLcode &rc);
    static std::size_t onRetrieved(char *data, std::size_t size, std::size_t count, void *self);
    // The error of a refusing reply (550: NotFound, 552: NoSpace…), with m_failedReply.
    Status replyError(long code, std::string_view what) const;
    static std::size_t onReply(char *data, std::size_t size, std::size_t count, void *self);

    const Config &m_config;
    SocketWatch &m_sockets;
    CURL *m_curl;
    CURLM *m_multi; // its connection cache keeps the control connection between requests
    std::string m_url;
    std::string m_replies;
    char m_error[CURL_ERROR_SIZE] = {};
    CURLcode m_last = CURLE_OK;               // of the last perform
    http::StallClock m_clock;                 // the request's: nothing moved for the timeout ends it
    bool m_passiveReply = false;              // a 229 or 227 came: step() asks libcurl again at once
    long m_idleWait = 1;                      // ms: step()'s next wait for activity
    static constexpr long kLongestWait = 250; // ms, step()'s longest
    bool m_reusable = true;
    bool m_loggedIn = false;                             // a request succeeded on it
    bool m_refusedAtLogin = false;                       // 421 before that
    std::string m_failedReply;                           // its reply line, printable
    std::chrono::steady_clock::time_point m_lastReply{}; // of the last final reply line
    std::chrono::microseconds m_shortest = std::chrono::microseconds::max();
    const std::function<void()> *m_landed = nullptr; // store()'s, until its 226
    bool m_preliminary = false;                      // a 1xx (150) came in this store()
    struct Retrieve {
        bool active = false;   // the handle is in the multi handle
        bool finished = false; // and its request ended, with `result`
        bool paused = false;
        bool atEnd = false; // any further byte is more than the file was expected to hold
        bool extra = false; // and one came
        CURLcode result = CURLE_OK;
        std::uint64_t total = 0;
        std::span<std::byte> into; // where the bytes go now
        std::size_t got = 0;
        std::vector<std::byte> spill; // arrived past `into`, handed out first next time
        std::size_t spillAt = 0;
    } m_retrieve;
};

// Connections kept open for the next request. At most Config::connections serve requests
// at once (a request waits its turn for one); an upload streaming while its writer is fed
// holds one of its own outside that count, so that a copy within one server, whose reads
// wait behind its uploads, can never wait for itself. Take one lease at a time: a request
// never waits for a second connection while it holds one.
class ConnectionPool {
public:
    explicit ConnectionPool(Config config) : m_config(std::move(config)) {}
    // Each connection says QUIT and waits for its answer: side by side, one round trip in all.
    ~ConnectionPool();
    ConnectionPool(const ConnectionPool &) = delete;
    ConnectionPool &operator=(const ConnectionPool &) = delete;

    class Lease {
    public:
        Lease(ConnectionPool &pool, std::unique_ptr<Connection> c, bool longLived)
            : m_pool(&pool), m_c(std::move(c)), m_longLived(longLived)
        {
        }
        Lease(Lease &&) = default;
        Lease &operator=(Lease &&) = default;
        ~Lease()
        {
            if (m_c)
                m_pool->give(std::move(m_c), m_longLived);
        }
        Connection &operator*() { return *m_c; }
        Connection *operator->() { return m_c.get(); }

    private:
        ConnectionPool *m_pool;
        std::unique_ptr<Connection> m_c;
        bool m_longLived;
    };

    // longLived: for a streamed upload (outside the count, never waits).
    Lease lease(bool longLived = false);
    const Config &config() const { return m_config; }
    // A login's TCP handshake took `rtt`: a server 5 ms or more away gets twice the
    // connections (16) unless ?connections= says how many. Each file costs a connection
    // about eight round trips (EPSV, the data connection, STOR and its 226, the check that
    // nothing took the name, MFMT, RNFR, RNTO), so far away files go side by side.
    void learnRoundTrip(std::chrono::microseconds rtt);
    // Connections it may use at once (the engine keeps as many files in flight).
    unsigned limit() const { return m_limit.load(); }
    // The server is 5 ms or more away (a round trip saved is worth a connection more).
    bool distant() const { return m_distant.load(); }
    // Cuts every connection; every request from now on fails at once (Backend::hangUp()).
    void hangUp() { m_sockets.hangUp(); }

private:
    void give(std::unique_ptr<Connection> c, bool longLived);

    Config m_config;
    std::atomic<unsigned> m_limit{m_config.connections};
    std::atomic<bool> m_distant = false;
    SocketWatch m_sockets; // outlives the connections (they close their sockets into it)
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::vector<std::unique_ptr<Connection>> m_free;
    unsigned m_inUse = 0;
    unsigned m_longLived = 0;
    std::uint64_t m_nextTicket = 0; // the next request's place in line
    std::uint64_t m_serving = 0;    // the place in line served next
};

// A path with a line break (or a NUL) cannot be sent on a control connection: a line
// break would end the command and start another. InvalidInput for those.
Status sendable(std::string_view serverPath);

} // namespace strata::ftp

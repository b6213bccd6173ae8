#pragma once

#include "backends/sftp/sftp_config.h"
#include "core/io/socket_watch.h"
#include "core/storage/registry.h"

#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
#include <vector>

namespace strata::sftp {

class ReadStream;

// One SSH connection with its SFTP channel, used by one thread at a time.
class Session {
public:
    ~Session();
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    // Connects, checks the server's host key (known_hosts; an unknown key goes to `prompt`,
    // a changed key is always refused) and logs in. Its socket is in `watch` (the pool's)
    // from the start: a silent server fails it after the timeout, hangUp() at once.
    // A key's passphrase asked of a person is kept in `learned` for the pool's next logins.
    static Result<std::unique_ptr<Session>> open(const Config &config, const ConnectionPrompts &prompts,
                                                 std::string &learned, SocketWatch &watch);

    // While it lives, a request waits on this connection: the pool's watch cuts it when no
    // byte moves for the timeout (nested ones count once). A lease is one until idle().
    class Busy {
    public:
        explicit Busy(Session &s) : m_s(s) { m_s.watch(true); }
        ~Busy() { m_s.watch(false); }
        Busy(const Busy &) = delete;
        Busy &operator=(const Busy &) = delete;

    private:
        Session &m_s;
    };

    ssh_session ssh() const { return m_ssh; }
    sftp_session sftp() const { return m_sftp; }
    // The error of the call that just failed as an Error: the server's status for the
    // request, or a broken connection (marked, so the session is not reused).
    // A connection the watch cut fails every request with why: no answer for the timeout
    // (Timeout, temporary), or the process ending (Cancelled).
    Error error(std::string_view what);
    bool broken() const { return m_broken || cut() != SocketWatch::Cut::No; }
    // The login folder (realpath of "."), asked once.
    Result<std::string> home();
    // The most one write request carries: what the server says it takes (OpenSSH announces
    // limits@openssh.com: 255 KiB), else the 32 KiB every server must.
    std::size_t writeChunk() const { return m_writeChunk; }
    // A read request's size and how many a stream keeps in flight.
    std::size_t readChunk() const { return m_readChunk; }
    std::size_t readDepth() const { return m_readDepth; }
    // How long the SFTP handshake's one round trip (INIT, VERSION) took at login.
    std::chrono::microseconds roundTrip() const { return m_roundTrip; }
    // Lets the server send `bytes` on this connection without waiting for a window
    // adjustment of ours. libssh 0.10 keeps a channel's window at 1.25 MB unless one read
    // asks for more, so a stream with 4 MiB of requests in flight got only 1.25 MB of
    // answers per round trip (a third of OpenSSH's sftp at 80 ms).
    void openWindow(std::size_t bytes);

    // The file this connection last read, kept open for the next read where the last one
    // ended, with the requests it sent ahead (reading a file in 4 MiB calls, each opening
    // it and waiting for its first bytes, is several times slower).
    struct OpenRead {
        std::string path;             // server path
        std::uint64_t generation = 0; // SessionPool::changed() when opened
        std::chrono::steady_clock::time_point used;
        std::unique_ptr<ReadStream> stream;
    };
    OpenRead &openRead() { return m_read; }
    void closeRead();
    // Before a request other than the open read's next one (ReadStream::settle()).
    void settleReads();

private:
    friend class SessionPool; // its leases are watched
    Session() = default;
    void watch(bool waiting);
    // Asks a person (a host key, a passphrase): no request waits meanwhile, however long.
    template <typename F>
    auto unwatched(F ask)
    {
        watch(false);
        auto answer = ask();
        watch(true);
        return answer;
    }
    SocketWatch::Cut cut() const { return m_fd >= 0 ? m_watch->cut(m_fd) : SocketWatch::Cut::No; }
    // The error of a connection the watch cut (marked broken).
    Error lost(std::string_view what);
    Status connect(const Config &config);
    Status checkHostKey(const Config &config, const HostKeyPrompt &prompt);
    Status login(const Config &config, const PassphrasePrompt &prompt, std::string &learned);
    Status loginWithKey(const Config &config, const std::string &file, const PassphrasePrompt &prompt,
                        std::string &learned, std::vector<std::string> &tried, bool &in);

    ssh_session m_ssh = nullptr;
    sftp_session m_sftp = nullptr;
    SocketWatch *m_watch = nullptr;
    int m_fd = -1;        // the socket (libssh has a copy of its own), in m_watch until ~Session
    std::string m_server; // as the URI names it, for messages
    bool m_broken = false;
    std::string m_home;
    std::size_t m_writeChunk = 32 * 1024;
    std::size_t m_readChunk = 32 * 1024;
    std::size_t m_readDepth = 64;
    std::chrono::microseconds m_roundTrip{0};
    // Drops what the server writes to the channel's stderr as it arrives, so that
    // openWindow() reads that stream with a one-byte buffer whatever size it asks.
    ssh_channel_callbacks_struct m_channelCallbacks{};
    std::byte m_windowByte{};
    OpenRead m_read;
};

// Connections to one server, reused: a lease takes an idle one or opens a new one, and
// gives it back when done (dropped when broken; at most Config::connections kept idle).
class SessionPool {
public:
    SessionPool(Config config, ConnectionPrompts prompts) : m_config(std::move(config)), m_prompts(std::move(prompts))
    {
    }

    // A connection taken for a request: watched (Session::Busy) from the start.
    class Lease {
    public:
        Lease(SessionPool *pool, std::unique_ptr<Session> session) : m_pool(pool), m_session(std::move(session))
        {
            m_session->watch(true);
        }
        Lease(Lease &&) = default;
        ~Lease()
        {
            if (!m_session)
                return;
            idle();
            m_pool->giveBack(std::move(m_session));
        }
        Session *operator->() const { return m_session.get(); }
        Session &operator*() const { return *m_session; }
        // Kept between requests (a writer's, a reader's): watched only within a Session::Busy.
        void idle()
        {
            if (m_busy)
                m_session->watch(false);
            m_busy = false;
        }

    private:
        SessionPool *m_pool;
        std::unique_ptr<Session> m_session;
        bool m_busy = true;
    };

    // An idle connection (the one still holding `readPath` open at `offset`, when there is
    // one), or a new one.
    Result<Lease> lease(std::string_view readPath = {}, std::uint64_t offset = 0);
    const Config &config() const { return m_config; } // its fields other than password never change
    // Something was written, renamed or removed through this pool: files kept open for
    // reading may be stale, so none is read from again.
    void changed() { ++m_generation; }
    std::uint64_t generation() const { return m_generation.load(); }
    // The shortest round trip any login measured (Session::roundTrip()), none before the
    // first; and the write size of that server.
    std::optional<std::chrono::microseconds> roundTrip() const;
    std::size_t writeChunk() const { return m_writeChunk.load(); }
    // Connections a large file is written over at once: as many as keep ~100 MB/s of write
    // requests in flight over roundTrip() (one write per connection per round trip), at
    // most 16; 0 below four (a server nearby: the engine's 4 parts in flight). As many are
    // kept idle for the next file. Also the files a copy keeps in flight, either way.
    std::size_t distantStreams() const;
    // Cuts every connection and refuses new ones (Backend::hangUp()).
    void hangUp() { m_watch.hangUp(); }

private:
    void giveBack(std::unique_ptr<Session> session);

    Config m_config;
    ConnectionPrompts m_prompts;
    SocketWatch m_watch{std::chrono::milliseconds(m_config.timeoutMs)}; // outlives every session
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Session>> m_idle;
    std::atomic<std::uint64_t> m_generation{0};
    // Logins under way at once, at most kLogins: OpenSSH refuses some connections past 10
    // unauthenticated ones (MaxStartups 10:30:100), and a distant upload asks for 16.
    static constexpr int kLogins = 8;
    std::counting_semaphore<kLogins> m_logins{kLogins};
    std::atomic<std::int64_t> m_roundTripUs{-1};
    std::atomic<std::size_t> m_writeChunk{32 * 1024};
};

// OpenSSH's SHA256 fingerprint of a key blob: "SHA256:" and unpadded base64.
std::string fingerprint(std::string_view keyBlob);

} // namespace strata::sftp

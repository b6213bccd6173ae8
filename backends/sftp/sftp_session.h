#pragma once

#include "core/storage/registry.h"

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::sftp {

// How a server is reached and who logs in: the URI, then ~/.ssh/config, then defaults.
struct Config {
    Uri uri;           // as given, for display (redacted)
    std::string alias; // the host as the URI names it (a ~/.ssh/config Host alias, maybe)
    std::string host;  // what is connected to (HostName)
    std::uint16_t port = 22;
    std::string user;
    bool home = false; // the backend's root is the login folder (sftp://host/~/…), not "/"
    std::vector<std::string> identityFiles;
    bool identitiesOnly = false;              // only identityFiles: no agent, no default keys
    std::vector<std::string> knownHostsFiles; // the first one receives accepted keys
    std::size_t connections = 8;              // kept open for reuse when idle
    int timeoutMs = 30000;                    // connect and every request
    std::string password;                     // a password or a key's passphrase; never printed
    std::string passphrase;                   // a key's, as a person answered it; never sent as a password
};

// Checks an sftp:// URI and reads what ~/.ssh/config says about its host. Query keys:
// identity=PATH, known-hosts=PATH, ssh-config=PATH (instead of ~/.ssh/config),
// connections=N (1..64), timeout=SECONDS.
Result<Config> parseConfig(const Uri &uri);

class ReadStream;

// One SSH connection with its SFTP channel, used by one thread at a time.
class Session {
public:
    ~Session();
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    // Connects, checks the server's host key (known_hosts; an unknown key goes to `prompt`,
    // a changed key is always refused) and logs in.
    // A key's passphrase asked of a person is kept in `learned` for the pool's next logins.
    static Result<std::unique_ptr<Session>> open(const Config &config, const ConnectionPrompts &prompts,
                                                 std::string &learned);

    ssh_session ssh() const { return m_ssh; }
    sftp_session sftp() const { return m_sftp; }
    // The error of the call that just failed as an Error: the server's status for the
    // request, or a broken connection (marked, so the session is not reused).
    Error error(std::string_view what);
    bool broken() const { return m_broken; }
    // The login folder (realpath of "."), asked once.
    Result<std::string> home();
    // The most one write request carries: what the server says it takes (OpenSSH announces
    // limits@openssh.com: 255 KiB), else the 32 KiB every server must.
    std::size_t writeChunk() const { return m_writeChunk; }
    // A read request's size and how many a stream keeps in flight.
    std::size_t readChunk() const { return m_readChunk; }
    std::size_t readDepth() const { return m_readDepth; }

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
    Session() = default;
    Status connect(const Config &config);
    Status checkHostKey(const Config &config, const HostKeyPrompt &prompt);
    Status login(const Config &config, const PassphrasePrompt &prompt, std::string &learned);
    Status loginWithKey(const Config &config, const std::string &file, const PassphrasePrompt &prompt,
                        std::string &learned, std::vector<std::string> &tried, bool &in);

    ssh_session m_ssh = nullptr;
    sftp_session m_sftp = nullptr;
    bool m_broken = false;
    std::string m_home;
    std::size_t m_writeChunk = 32 * 1024;
    std::size_t m_readChunk = 32 * 1024;
    std::size_t m_readDepth = 64;
    OpenRead m_read;
};

// One open file read in order with requests sent ahead (libssh's asynchronous reads: up to
// Session::readDepth() requests of readChunk() in flight). A read where the last one ended
// takes the answers already on their way; a read elsewhere first takes in (and drops) what
// is in flight. Used by one thread at a time, on the connection that opened the file.
class ReadStream {
public:
    // `file`: open for reading on `session`; reads start at `offset`. With the file's size
    // known, requests fill the window from the first read; else one, then twice as many
    // after each whole answer (a small file costs one request).
    ReadStream(Session &session, sftp_file file, std::uint64_t offset, std::optional<std::uint64_t> size);
    ~ReadStream(); // takes in what is in flight, then closes the file
    ReadStream(const ReadStream &) = delete;
    ReadStream &operator=(const ReadStream &) = delete;

    // Fills `buffer` from `offset` (fewer bytes only at the end of the file).
    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer);
    // Takes in every answer still on its way (the next read asks again from next()). Due
    // before any other request on the connection: libssh 0.10's sftp_async_read reads a
    // packet off the wire before it looks in its queue, so answers a blocking call (a stat,
    // an open) queued meanwhile would leave the last reads waiting for packets that never
    // come.
    void settle();
    std::uint64_t next() const { return m_next; }
    sftp_file file() const { return m_file; }

private:
    struct Request {
        std::uint32_t id;
        std::uint64_t offset;
        std::uint32_t length;
    };
    void send(std::uint64_t limit);
    void drain();

    Session &m_session;
    sftp_file m_file;
    std::optional<std::uint64_t> m_size;
    std::uint64_t m_next;   // the offset the next read is expected at
    std::uint64_t m_sentTo; // where the next request starts
    std::size_t m_window;   // requests kept in flight
    std::uint32_t m_chunk;  // bytes a request asks for
    std::uint64_t m_reads = 0;
    bool m_ahead = false;  // a read went on where the last ended: send past the buffer
    bool m_ended = false;  // the server said end of file at m_sentTo's last request
    bool m_failed = false; // a request failed: nothing more is sent or taken
    std::optional<Error> m_error;
    std::deque<Request> m_inFlight;
    std::vector<std::byte> m_spare; // an answer that ran past the caller's buffer
    std::uint64_t m_spareAt = 0;
    std::size_t m_spareFrom = 0, m_spareTo = 0;
};

// Connections to one server, reused: a lease takes an idle one or opens a new one, and
// gives it back when done (dropped when broken; at most Config::connections kept idle).
class SessionPool {
public:
    SessionPool(Config config, ConnectionPrompts prompts) : m_config(std::move(config)), m_prompts(std::move(prompts))
    {
    }

    class Lease {
    public:
        Lease(SessionPool *pool, std::unique_ptr<Session> session) : m_pool(pool), m_session(std::move(session)) {}
        Lease(Lease &&) = default;
        ~Lease()
        {
            if (m_session)
                m_pool->giveBack(std::move(m_session));
        }
        Session *operator->() const { return m_session.get(); }
        Session &operator*() const { return *m_session; }

    private:
        SessionPool *m_pool;
        std::unique_ptr<Session> m_session;
    };

    // An idle connection (the one still holding `readPath` open at `offset`, when there is
    // one), or a new one.
    Result<Lease> lease(std::string_view readPath = {}, std::uint64_t offset = 0);
    const Config &config() const { return m_config; } // its fields other than password never change
    // Something was written, renamed or removed through this pool: files kept open for
    // reading may be stale, so none is read from again.
    void changed() { ++m_generation; }
    std::uint64_t generation() const { return m_generation.load(); }

private:
    void giveBack(std::unique_ptr<Session> session);

    Config m_config;
    ConnectionPrompts m_prompts;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Session>> m_idle;
    std::atomic<std::uint64_t> m_generation{0};
};

// OpenSSH's SHA256 fingerprint of a key blob: "SHA256:" and unpadded base64.
std::string fingerprint(std::string_view keyBlob);

} // namespace strata::sftp

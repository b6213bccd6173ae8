#include "backends/sftp/sftp_session.h"

#include "backends/sftp/read_stream.h"

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>
#include <optional>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::sftp {

void Session::openWindow(std::size_t bytes)
{
    // libssh grows the window to what a read asks when it is smaller (ssh_channel_read_timeout
    // sends the window adjustment before it looks for data). A read of the stderr stream,
    // with no wait: it takes nothing the SFTP replies need, and finds nothing to copy (the
    // channel's callback drops stderr as it arrives: see open()).
    if (!m_sftp || m_broken || bytes > UINT32_MAX)
        return;
    if (ssh_channel_read_timeout(m_sftp->channel, &m_windowByte, std::uint32_t(bytes), 1, 0) < 0)
        m_broken = true;
}

void Session::settleReads()
{
    if (m_read.stream && !m_broken)
        m_read.stream->settle();
}

void Session::closeRead()
{
    m_read.stream.reset(); // takes in what it sent ahead, closes the file
    m_read = {};
}

Session::~Session()
{
    {
        // On a broken connection the stream neither drains nor closes its file (a request
        // could wait on a server that went silent): libssh's small handle struct is left,
        // not a wait. On a working one, the wait is watched.
        Busy busy(*this);
        closeRead();
        if (m_sftp)
            sftp_free(m_sftp); // closes the channel: a message to the server
        m_sftp = nullptr;
        if (m_ssh && !broken())
            ssh_disconnect(m_ssh);
    }
    if (m_ssh)
        ssh_free(m_ssh); // closes its descriptor of the socket
    if (m_fd >= 0) {
        m_watch->remove(m_fd); // before the number may be handed out again
        ::close(m_fd);
    }
}

void Session::watch(bool waiting)
{
    if (m_fd < 0)
        return;
    if (waiting)
        m_watch->begin(m_fd);
    else
        m_watch->end(m_fd);
}

Error Session::lost(std::string_view what)
{
    m_broken = true;
    Error e = cut() == SocketWatch::Cut::HungUp ? interrupted()
                                                : noAnswer(m_server, std::chrono::milliseconds(m_watch->timeout()));
    return e.setCause(std::string(what) + ": " + e.cause());
}

Result<std::unique_ptr<Session>> Session::open(const Config &config, const ConnectionPrompts &prompts,
                                               std::string &learned, SocketWatch &watch)
{
    std::unique_ptr<Session> session(new Session);
    Session &s = *session;
    s.m_watch = &watch;
    // The server as the URI names it, port included: two servers of one host are told apart.
    s.m_server = config.alias + (config.uri.port() ? ":" + std::to_string(*config.uri.port()) : std::string());
    // A server that stops answering during the login fails it as it would fail a request.
    const auto fail = [&s](Status st) -> Error {
        return s.cut() != SocketWatch::Cut::No ? s.lost("cannot connect") : std::move(st).error();
    };
    // Watched from the moment the TCP connection stands (connect()) to the end of the login.
    struct Unwatch {
        Session &s;
        ~Unwatch() { s.watch(false); }
    } unwatch{s};
    if (auto st = s.connect(config); !st)
        return fail(std::move(st));
    if (auto st = s.checkHostKey(config, prompts.hostKey); !st)
        return fail(std::move(st));
    if (auto st = s.login(config, prompts.passphrase, learned); !st)
        return fail(std::move(st));
    // The round trip: the shorter of the last login steps, requests the server answers at
    // once (the channel's open and its subsystem request, two round trips; SFTP's INIT,
    // one): a busy machine delays one now and then.
    using Clock = std::chrono::steady_clock;
    const auto opening = Clock::now();
    s.m_sftp = sftp_new(s.m_ssh);
    const auto asked = Clock::now();
    if (!s.m_sftp || sftp_init(s.m_sftp) != SSH_OK) {
        Error failed = s.error("the server offers no SFTP");
        s.m_broken = true;
        return failed;
    }
    // OpenSSH says how large its requests may be (limits@openssh.com, 8.6 and later: 255
    // KiB a read or write); elsewhere the sizes every server must take.
    if (sftp_extension_supported(s.m_sftp, "limits@openssh.com", "1")) {
        s.m_writeChunk = 255 * 1024;
        s.m_readChunk = 128 * 1024;
        s.m_readDepth = 32;
    }
    s.m_roundTrip =
        std::chrono::duration_cast<std::chrono::microseconds>(std::min(Clock::now() - asked, (asked - opening) / 2));
    // The server's stderr is dropped as it arrives (what came before, once here), so it
    // never holds bytes for openWindow()'s read to copy.
    ssh_callbacks_init(&s.m_channelCallbacks);
    s.m_channelCallbacks.channel_data_function = +[](ssh_session, ssh_channel, void *, uint32_t len, int stderrData,
                                                     void *) -> int { return stderrData ? int(len) : 0; };
    ssh_set_channel_callbacks(s.m_sftp->channel, &s.m_channelCallbacks);
    for (char dropped[256]; ssh_channel_read_nonblocking(s.m_sftp->channel, dropped, sizeof dropped, 1) > 0;) {}
    return session;
}

Status Session::connect(const Config &config)
{
    const std::string where = config.host + ":" + std::to_string(config.port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (int rc = ::getaddrinfo(config.host.c_str(), std::to_string(config.port).c_str(), &hints, &found); rc != 0)
        return Error(ErrorKind::Network, "cannot find " + config.host + ": " + ::gai_strerror(rc)).setTemporary(true);
    int lastErrno = ECONNREFUSED;
    int socket = -1;
    for (addrinfo *a = found; a && socket < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0)
            continue;
        m_watch->add(fd); // hangUp() ends the connect too
        int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            rc = ::poll(&p, 1, config.connectTimeoutMs);
            int err = rc == 0 ? ETIMEDOUT : 0;
            socklen_t len = sizeof err;
            if (rc > 0)
                ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            rc = err ? -1 : 0;
            errno = err;
        }
        if (rc != 0) {
            lastErrno = errno;
            m_watch->remove(fd);
            ::close(fd);
            continue;
        }
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        // An idle connection to a server that vanished (no answer, no reset) fails: the
        // kernel's probes go unanswered. A request waiting is the watch's (SocketWatch),
        // which cuts it first: the TCP timeout is twice as long.
        ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
        const int idle = std::max(1, config.timeoutMs / 3000), count = 3;
        ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
        ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof idle);
        ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
        const unsigned userTimeout = unsigned(config.timeoutMs) * 2;
        ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &userTimeout, sizeof userTimeout);
        socket = fd;
    }
    ::freeaddrinfo(found);
    if (socket < 0)
        return errorFromErrno(lastErrno, "cannot connect to " + where).setTemporary(true);

    // libssh gets a descriptor of its own, which it closes when it sees the connection end
    // (before the session goes): the number the watch knows stays ours until ~Session, so
    // it never names a socket opened meanwhile. Both name one socket: a shutdown reaches both.
    m_fd = socket;
    watch(true);
    int forLibssh = ::fcntl(socket, F_DUPFD_CLOEXEC, 0);
    m_ssh = forLibssh >= 0 ? ssh_new() : nullptr;
    if (!m_ssh) {
        if (forLibssh >= 0)
            ::close(forLibssh);
        return Error(ErrorKind::Unexpected, "libssh could not make a session");
    }
    ssh_options_set(m_ssh, SSH_OPTIONS_FD, &forLibssh); // libssh closes it
    // Its own reading of ~/.ssh/config is off: parseConfig read it (and the URI's options).
    const bool no = false;
    ssh_options_set(m_ssh, SSH_OPTIONS_PROCESS_CONFIG, &no);
    ssh_options_set(m_ssh, SSH_OPTIONS_HOST, config.host.c_str());
    const unsigned port = config.port;
    ssh_options_set(m_ssh, SSH_OPTIONS_PORT, &port);
    ssh_options_set(m_ssh, SSH_OPTIONS_USER, config.user.c_str());
    // libssh's own limit on a wait, twice the watch's: a silent server is the watch's to
    // cut, with its message.
    const long seconds = 2 * std::max(1L, long(config.timeoutMs + 999) / 1000);
    ssh_options_set(m_ssh, SSH_OPTIONS_TIMEOUT, &seconds);
    // The host key types known for this server first (libssh reads the first known_hosts
    // file for them), as OpenSSH orders them: the key sent is the one `ssh` recorded.
    ssh_options_set(m_ssh, SSH_OPTIONS_KNOWNHOSTS, config.knownHostsFiles.front().c_str());
    ssh_options_set(m_ssh, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, config.knownHostsFiles.back().c_str());
    // AES-GCM first where the CPU has AES instructions (a whole packet per call: a third
    // less CPU than ChaCha20-Poly1305 here), then OpenSSH's own order.
    const char *ciphers = "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,"
                          "aes128-ctr,aes192-ctr,aes256-ctr";
    ssh_options_set(m_ssh, SSH_OPTIONS_CIPHERS_C_S, ciphers);
    ssh_options_set(m_ssh, SSH_OPTIONS_CIPHERS_S_C, ciphers);
    if (ssh_connect(m_ssh) != SSH_OK) {
        m_broken = true;
        return Error(ErrorKind::Network, "the SSH handshake with " + where + " failed: " + ssh_get_error(m_ssh))
            .setTemporary(true);
    }
    return {};
}

Result<std::string> Session::home()
{
    if (!m_home.empty())
        return m_home;
    char *path = sftp_canonicalize_path(m_sftp, ".");
    if (!path)
        return error("cannot find the login folder");
    m_home = path;
    ssh_string_free_char(path);
    return m_home;
}

Error Session::error(std::string_view what)
{
    if (cut() != SocketWatch::Cut::No)
        return lost(what);
    // A status the server answered the request with; anything else broke the connection.
    const int code = m_sftp ? sftp_get_error(m_sftp) : SSH_FX_OK;
    // A channel the server closed (TCP still up) fails every later request alike.
    const bool connected = m_ssh && ssh_is_connected(m_ssh) && ssh_get_error_code(m_ssh) != SSH_FATAL
        && (!m_sftp || (ssh_channel_is_open(m_sftp->channel) && !ssh_channel_is_eof(m_sftp->channel)));
    if (connected && code != SSH_FX_OK && code != SSH_FX_EOF && code != SSH_FX_NO_CONNECTION
        && code != SSH_FX_CONNECTION_LOST && code != SSH_FX_BAD_MESSAGE) {
        // Codes past SSH_FX_NO_MEDIA come from later drafts of the protocol.
        constexpr int noSpace = 14, quota = 15, notEmpty = 18, notFolder = 19, badName = 20;
        ErrorKind kind = ErrorKind::Unexpected;
        std::string text = "the server answered " + std::to_string(code);
        switch (code) {
        case SSH_FX_NO_SUCH_FILE:
        case SSH_FX_NO_SUCH_PATH: kind = ErrorKind::NotFound, text = "no such file"; break;
        case SSH_FX_PERMISSION_DENIED:
        case SSH_FX_WRITE_PROTECT: kind = ErrorKind::PermissionDenied, text = "permission denied"; break;
        case SSH_FX_FILE_ALREADY_EXISTS: kind = ErrorKind::AlreadyExists, text = "it exists"; break;
        case noSpace:
        case quota: kind = ErrorKind::NoSpace, text = "no space left"; break;
        case notEmpty: kind = ErrorKind::DirectoryNotEmpty, text = "the folder is not empty"; break;
        case notFolder: kind = ErrorKind::NotDirectory, text = "not a folder"; break;
        case SSH_FX_OP_UNSUPPORTED: kind = ErrorKind::Unsupported, text = "the server does not do that"; break;
        case badName: kind = ErrorKind::InvalidInput, text = "the server refuses the name"; break;
        case SSH_FX_FAILURE: text = "the server failed (SSH_FX_FAILURE)"; break;
        default: break;
        }
        return Error(kind, std::string(what) + ": " + text);
    }
    const char *message = m_ssh ? ssh_get_error(m_ssh) : nullptr;
    m_broken = true;
    return Error(ErrorKind::Network,
                 std::string(what) + ": " + (message && *message ? message : "the connection failed"))
        .setTemporary(true);
}

Result<SessionPool::Lease> SessionPool::lease(std::string_view readPath, std::uint64_t offset)
{
    std::unique_ptr<Session> idle;
    Config config;
    {
        std::lock_guard lock(m_mutex);
        if (m_watch.hungUp())
            return interrupted().setCause("cannot connect: interrupted");
        std::erase_if(m_idle, [](const auto &session) { return session->broken(); }); // cut while idle
        if (!m_idle.empty()) {
            auto pick = m_idle.end() - 1;
            if (!readPath.empty())
                for (auto it = m_idle.begin(); it != m_idle.end(); ++it)
                    if (const auto &open = (*it)->openRead();
                        open.stream && open.path == readPath && open.stream->next() == offset)
                        pick = it;
            idle = std::move(*pick);
            m_idle.erase(pick);
        } else {
            config = m_config;
        }
    }
    if (idle) {
        Lease lease(this, std::move(idle)); // watched from here: settling waits for answers
        const auto &open = lease->openRead();
        if (!(open.stream && open.path == readPath && open.stream->next() == offset))
            lease->settleReads(); // something else is asked of it first
        return lease;
    }
    std::string learned;
    m_logins.acquire();
    auto session = Session::open(config, m_prompts, learned, m_watch);
    m_logins.release();
    if (!session)
        return std::move(session).error();
    if (!learned.empty()) {
        std::lock_guard lock(m_mutex);
        m_config.passphrase = std::move(learned);
    }
    const std::int64_t us = (*session)->roundTrip().count();
    for (auto known = m_roundTripUs.load(); known < 0 || us < known;)
        if (m_roundTripUs.compare_exchange_weak(known, us))
            break;
    m_writeChunk = (*session)->writeChunk();
    return Lease(this, std::move(*session));
}

std::optional<std::chrono::microseconds> SessionPool::roundTrip() const
{
    const auto us = m_roundTripUs.load();
    if (us < 0)
        return std::nullopt;
    return std::chrono::microseconds(us);
}

std::size_t SessionPool::distantStreams() const
{
    const auto rtt = roundTrip();
    if (!rtt)
        return 0;
    constexpr double kRate = 100e6; // bytes per second worth keeping in flight
    constexpr std::size_t kMost = 16;
    const double wanted = kRate * std::chrono::duration<double>(*rtt).count() / double(writeChunk());
    return wanted < 4 ? 0 : std::min(kMost, std::size_t(wanted + 0.999)); // 4: the engine's own default
}

void SessionPool::giveBack(std::unique_ptr<Session> session)
{
    if (session->broken())
        return;
    const std::size_t keep = std::max(m_config.connections, distantStreams());
    std::lock_guard lock(m_mutex);
    if (m_idle.size() < keep)
        m_idle.push_back(std::move(session));
}

} // namespace strata::sftp

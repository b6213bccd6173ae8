#include "backends/ftp/ftp_connection.h"

#include "backends/http/http_client.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <thread>
#include <utility>

namespace strata::ftp {

namespace {

// A listing larger than this is refused rather than kept (about 4 million names).
constexpr std::size_t kMaxListing = 512u << 20;
// A line of a listing longer than this is no listing.
constexpr std::size_t kMaxListingLine = 64u << 10;
// Receive and send buffers: the default 16 KiB means a callback per 16 KiB of a
// gigabyte; 512 KiB moved a 1 GiB file on loopback in fewer system calls.
constexpr long kBuffer = 512 << 10;

struct Slist {
    curl_slist *head = nullptr;
    explicit Slist(const std::vector<std::string> &lines)
    {
        for (const auto &line : lines)
            head = curl_slist_append(head, line.c_str());
    }
    ~Slist() { curl_slist_free_all(head); }
    Slist(const Slist &) = delete;
    Slist &operator=(const Slist &) = delete;
};

// The server's last reply line ("550 Can't open x: No such file"), printable and short:
// what a server says is shown, never obeyed.
std::string lastReply(const std::string &replies)
{
    std::string_view text(replies);
    std::string_view last;
    while (!text.empty()) {
        auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.remove_suffix(1);
        if (line.size() >= 4 && std::isdigit(static_cast<unsigned char>(line[0])) && line[3] == ' ')
            last = line;
    }
    std::string out;
    for (char c : last.substr(0, 160))
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return out;
}

std::string urlPath(std::string_view serverPath)
{
    // "/%2F" + each name escaped: libcurl then sends the absolute path as one argument.
    std::string out = "/%2F";
    std::size_t at = 1;
    while (at <= serverPath.size()) {
        auto slash = serverPath.find('/', at);
        if (slash == std::string_view::npos)
            slash = serverPath.size();
        out += percentEncode(serverPath.substr(at, slash - at));
        if (slash < serverPath.size())
            out += '/';
        at = slash + 1;
    }
    return out;
}

} // namespace

Status sendable(std::string_view serverPath)
{
    if (serverPath.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
        return Error(ErrorKind::InvalidInput, "a name with a line break cannot be sent over FTP");
    return {};
}

Connection::Connection(const Config &config, SocketWatch &sockets)
    : m_config(config), m_sockets(sockets), m_curl((http::initialiseCurl(), curl_easy_init())),
      m_multi(curl_multi_init())
{
}

Connection::~Connection()
{
    if (m_multi)
        curl_multi_cleanup(m_multi); // closes the control connection its cache kept
    if (m_curl)
        curl_easy_cleanup(m_curl);
}

bool Connection::step(CURLcode &rc)
{
    curl_off_t received = 0, sent = 0;
    curl_easy_getinfo(m_curl, CURLINFO_SIZE_DOWNLOAD_T, &received);
    curl_easy_getinfo(m_curl, CURLINFO_SIZE_UPLOAD_T, &sent);
    m_clock.count(std::uint64_t(received) + std::uint64_t(sent));
    // The process is ending, or nothing moved for the timeout: no further turn of the loop.
    if (m_sockets.hungUp() || m_clock.expired()) {
        rc = CURLE_ABORTED_BY_CALLBACK;
        return true;
    }
    int running = 1;
    if (curl_multi_perform(m_multi, &running) != CURLM_OK) {
        rc = CURLE_FAILED_INIT;
        return true;
    }
    int left = 0;
    bool done = false;
    while (CURLMsg *msg = curl_multi_info_read(m_multi, &left))
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == m_curl) {
            rc = msg->data.result;
            done = true;
        }
    if (done || !running) {
        if (!done)
            rc = CURLE_FAILED_INIT;
        return true;
    }
    // The transfer loop of curl_easy_perform, with a shorter idle wait: libcurl 7.88 does
    // not always name the socket it waits for. Right after a passive reply (229, 227) it
    // names none and sets no timer, though it still has the data connection to make (its
    // easy loop sleeps a second there; one small upload in three stalled 8 side by side),
    // so it is asked again at once. While an FTPS data connection's handshake is under way
    // it names that socket only, though the control connection's reply may be what it
    // waits for. So the wait is 1 ms after any activity (a reply on loopback comes within
    // it, and the poll ends as it comes), doubling while nothing happens, to 250 ms at most
    // (the stall clock's turn). (A first wait of 0 ms cost 30 polls a small file.)
    long timeout = -1;
    curl_multi_timeout(m_multi, &timeout);
    timeout = std::exchange(m_passiveReply, false) ? 0 : timeout < 0 ? m_idleWait : std::min(timeout, m_idleWait);
    int active = 0;
    if (curl_multi_poll(m_multi, nullptr, 0, int(timeout), &active) != CURLM_OK) {
        rc = CURLE_FAILED_INIT;
        return true;
    }
    m_idleWait = active > 0 ? 1 : std::min(2 * m_idleWait, kLongestWait);
    return false;
}

CURLcode Connection::run()
{
    if (curl_multi_add_handle(m_multi, m_curl) != CURLM_OK)
        return CURLE_FAILED_INIT;
    CURLcode rc = CURLE_FAILED_INIT;
    while (!step(rc)) {}
    curl_multi_remove_handle(m_multi, m_curl);
    return rc;
}

std::size_t Connection::onReply(char *data, std::size_t size, std::size_t count, void *self)
{
    auto *c = static_cast<Connection *>(self);
    c->m_clock.moved();
    if (c->m_replies.size() < (1u << 20))
        c->m_replies.append(data, size * count);
    // A final reply ("230 ..."; "211-" opens a longer one). Within one request only: a
    // transfer's "150" and "226" may come together.
    const std::string_view line(data, size * count);
    if (line.size() >= 4 && line[3] == ' ' && std::isdigit(static_cast<unsigned char>(line[0]))) {
        const auto now = std::chrono::steady_clock::now();
        if (c->m_lastReply != std::chrono::steady_clock::time_point{})
            c->m_shortest =
                std::min(c->m_shortest, std::chrono::duration_cast<std::chrono::microseconds>(now - c->m_lastReply));
        c->m_lastReply = now;
        if (line.starts_with("229") || line.starts_with("227"))
            c->m_passiveReply = true;
        // The transfer's start (125, 150), then its end: not a 120 before a login's 220.
        if (c->m_landed && (line.starts_with("150") || line.starts_with("125"))) {
            c->m_preliminary = true;
        } else if (c->m_landed && c->m_preliminary && line[0] == '2') {
            const auto *landed = std::exchange(c->m_landed, nullptr);
            (*landed)();
        }
    }
    return size * count;
}

std::optional<std::chrono::microseconds> Connection::shortestExchange() const
{
    if (m_shortest == std::chrono::microseconds::max())
        return std::nullopt;
    return m_shortest;
}

void Connection::begin(const std::string &url)
{
    CURL *c = m_curl;
    // Keeps the open connection (and TLS session): only the options go back to defaults.
    curl_easy_reset(c);
    http::watchSockets(c, m_sockets);
    m_clock = http::StallClock(std::chrono::seconds(m_config.timeoutSeconds));
    m_replies.clear();
    m_lastReply = {};
    m_passiveReply = false;
    m_idleWait = 1;
    m_shortest = std::chrono::microseconds::max();
    m_error[0] = '\0';
    m_url = url;
    // libcurl 7.88 reads ~/.netrc only when no CURLOPT_USERNAME is set: the user then goes
    // in the URL, and netrc gives the password of that login.
    const bool netrcLogin = m_config.password.empty() && m_config.netrc && !m_config.user.empty();
    if (netrcLogin && m_url.starts_with("ftp://"))
        m_url.insert(6, percentEncode(m_config.user) + "@");
    curl_easy_setopt(c, CURLOPT_URL, m_url.c_str());
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, m_error);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "ftp");
    // An FTP URI names an FTP server: no environment proxy in between (an HTTP proxy cannot
    // pass RNFR, MKD and the like, and the traffic goes only where the URI says).
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    // A server that stops answering fails by m_clock (step()); libcurl's own timers, a
    // second later, catch one that drips.
    const long timeout = m_config.timeoutSeconds;
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, std::min(timeout, 10L));
    curl_easy_setopt(c, CURLOPT_SERVER_RESPONSE_TIMEOUT, timeout + 1);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, timeout + 1);
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_FTP_FILEMETHOD, long(CURLFTPMETHOD_NOCWD));
    curl_easy_setopt(c, CURLOPT_FTP_USE_EPSV, 1L);
    // A PASV reply's address is the server's word: data goes to the control connection's host.
    curl_easy_setopt(c, CURLOPT_FTP_SKIP_PASV_IP, 1L);
    curl_easy_setopt(c, CURLOPT_BUFFERSIZE, kBuffer);
    curl_easy_setopt(c, CURLOPT_UPLOAD_BUFFERSIZE, kBuffer);
    if (!m_config.user.empty() && !netrcLogin)
        curl_easy_setopt(c, CURLOPT_USERNAME, m_config.user.c_str());
    if (!m_config.password.empty())
        curl_easy_setopt(c, CURLOPT_PASSWORD, m_config.password.c_str());
    if (m_config.netrc)
        curl_easy_setopt(c, CURLOPT_NETRC, long(CURL_NETRC_OPTIONAL));
    if (m_config.tls) {
        curl_easy_setopt(c, CURLOPT_USE_SSL, long(CURLUSESSL_ALL));
        // AUTH TLS first (RFC 4217; AUTH SSL only if it is refused): libcurl's default
        // asks AUTH SSL first, a round trip more for each login to most servers.
        curl_easy_setopt(c, CURLOPT_FTPSSLAUTH, long(CURLFTPAUTH_TLS));
        if (!m_config.caFile.empty())
            curl_easy_setopt(c, CURLOPT_CAINFO, m_config.caFile.c_str());
        if (m_config.insecure) {
            curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
            curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        }
    }
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &Connection::onReply);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, this);
}

Status Connection::perform(std::string_view what)
{
    if (!m_curl || !m_multi)
        return Error(ErrorKind::Unexpected, std::string(what) + ": libcurl could not make a handle");
    return outcome(run(), what);
}

Status Connection::outcome(CURLcode rc, std::string_view what)
{
    m_last = rc;
    if (rc == CURLE_OK) {
        m_loggedIn = true;
        return {};
    }
    // A request that failed may leave a reply unread (libcurl 7.88 sends ABOR in places and
    // does not wait for Pure-FTPd's second reply to it): the next request on the connection
    // would take that reply for its own. Such a connection is not used again.
    m_reusable = false;
    long code = 0;
    curl_easy_getinfo(m_curl, CURLINFO_RESPONSE_CODE, &code);
    const std::string reply = lastReply(m_replies);
    const std::string said = reply.empty() ? std::string() : " (the server said: " + reply + ")";
    const std::string detail = m_error[0] ? std::string(m_error) : std::string(curl_easy_strerror(rc));
    const std::string where = m_config.hostPort;
    auto fail = [&](ErrorKind kind, std::string cause, bool temporary = false) {
        Error e(kind, std::string(what) + ": " + std::move(cause));
        e.setTemporary(temporary);
        return Status(std::move(e));
    };
    // Cut by hangUp(): whatever libcurl says of the dead sockets, the process is ending.
    if (m_sockets.hungUp()) {
        Error e = interrupted();
        return e.setCause(std::string(what) + ": " + e.cause());
    }
    // A server that allows so many connections (Pure-FTPd's MaxClientsPerIP, 8 on cPanel)
    // refuses one more before the login with 421 (libcurl says "timeout"): the pool keeps
    // to those it has (refusedAtLogin()), and the request is tried again on one of them.
    // Later, a 421 is the server closing the connection (its idle timeout, a restart).
    if (code == 421) {
        if (m_loggedIn)
            return fail(ErrorKind::Network, "the server closed the connection" + said, true);
        m_refusedAtLogin = true;
        return fail(ErrorKind::Busy, "the server takes no more connections from us for now" + said, true);
    }
    // Nothing moved for the timeout (our clock), or libcurl's own timer ran out on a
    // connection that stands (a reply that never came, a transfer that dripped): the
    // server did not answer. A connection not made in time is said as such below.
    curl_off_t connectedAfter = 0;
    long made = 0;
    curl_easy_getinfo(m_curl, CURLINFO_CONNECT_TIME_T, &connectedAfter);
    curl_easy_getinfo(m_curl, CURLINFO_NUM_CONNECTS, &made);
    if (m_clock.hasExpired() || (rc == CURLE_OPERATION_TIMEDOUT && (made == 0 || connectedAfter > 0))) {
        Error e = noAnswer(where, m_clock.limit());
        return e.setCause(std::string(what) + ": " + e.cause());
    }
    switch (rc) {
    case CURLE_LOGIN_DENIED:
        return fail(ErrorKind::PermissionDenied,
                    "the server refused the user name or password" + said
                        + (m_config.password.empty() && !m_config.netrc ? "; no password was given" : ""));
    case CURLE_COULDNT_RESOLVE_HOST: return fail(ErrorKind::Network, "cannot find the server " + where, true);
    case CURLE_COULDNT_CONNECT:
        return fail(ErrorKind::Network, "cannot connect to " + where + " (" + detail + ")", true);
    case CURLE_OPERATION_TIMEDOUT:
        return fail(ErrorKind::Timeout, "cannot connect to " + where + " in time (" + detail + ")", true);
    case CURLE_USE_SSL_FAILED:
        return fail(ErrorKind::Unsupported,
                    "the server does not offer TLS (AUTH TLS)" + said + "; ftp:// is unencrypted");
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
        return fail(ErrorKind::PermissionDenied,
                    "the server's TLS certificate is not trusted (" + detail
                        + "); give its CA with ?ca=FILE, or ?insecure=1 only if you "
                          "trust this network");
    case CURLE_SSL_CONNECT_ERROR: return fail(ErrorKind::Network, "TLS failed (" + detail + ")", true);
    case CURLE_REMOTE_FILE_NOT_FOUND: return fail(ErrorKind::NotFound, "it does not exist" + said);
    case CURLE_REMOTE_ACCESS_DENIED: return fail(ErrorKind::PermissionDenied, "the server refused" + said);
    case CURLE_REMOTE_DISK_FULL: return fail(ErrorKind::NoSpace, "the server is out of space" + said);
    case CURLE_ABORTED_BY_CALLBACK:
    case CURLE_READ_ERROR: return fail(ErrorKind::Cancelled, "interrupted");
    case CURLE_FTP_COULDNT_RETR_FILE:
    case CURLE_QUOTE_ERROR:
    case CURLE_UPLOAD_FAILED: m_failedReply = reply; return replyError(code, what);
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_FTP_WEIRD_SERVER_REPLY:
    case CURLE_FTP_WEIRD_PASV_REPLY:
    case CURLE_FTP_WEIRD_227_FORMAT:
    case CURLE_FTP_CANT_GET_HOST:
    case CURLE_FTP_ACCEPT_FAILED:
    case CURLE_FTP_ACCEPT_TIMEOUT:
    case CURLE_FTP_PORT_FAILED:
    case CURLE_FTP_COULDNT_SET_TYPE:
        return fail(ErrorKind::Network, "the connection broke (" + detail + ")" + said, true);
    default: return fail(ErrorKind::Unexpected, detail + said);
    }
}

Status Connection::replyError(long code, std::string_view what) const
{
    const std::string said = m_failedReply.empty() ? std::string() : " (the server said: " + m_failedReply + ")";
    auto fail = [&](ErrorKind kind, std::string cause, bool temporary = false) {
        Error e(kind, std::string(what) + ": " + std::move(cause));
        e.setTemporary(temporary);
        return Status(std::move(e));
    };
    switch (code) {
    case 550: return fail(ErrorKind::NotFound, "the server refused" + said);
    case 552:
    case 452: return fail(ErrorKind::NoSpace, "the server is out of space" + said);
    case 553: return fail(ErrorKind::InvalidInput, "the server refused the name" + said);
    case 530:
    case 532: return fail(ErrorKind::PermissionDenied, "the server refused" + said);
    case 500:
    case 502:
    case 504: return fail(ErrorKind::Unsupported, "the server does not know the command" + said);
    case 421:
    case 425:
    case 426: return fail(ErrorKind::Network, "the server closed the connection" + said, true);
    default: break;
    }
    if (code >= 400 && code < 500)
        return fail(ErrorKind::Busy, "the server refused for now" + said, true);
    return fail(ErrorKind::Unexpected, "the server refused" + said);
}

Status Connection::commands(const std::vector<std::string> &lines, std::string_view what)
{
    // Every command goes with libcurl's '*' (go on when it fails): libcurl closes a control
    // connection after a failed quote command, and a missing file (MLST, DELE) is a common
    // answer, not a reason to log in again. The replies are checked here instead.
    std::vector<std::string> sent;
    sent.reserve(lines.size());
    for (const auto &line : lines)
        sent.push_back(line.starts_with('*') ? line : "*" + line);
    // "/%2F/": an absolute folder and no file, so libcurl sends nothing of its own after
    // the commands (on a reused connection it would go back to the login folder first
    // with a CWD, and that reply would follow ours).
    begin(m_config.origin() + "/%2F/");
    Slist quote(sent);
    curl_easy_setopt(m_curl, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(m_curl, CURLOPT_QUOTE, quote.head);
    if (auto st = perform(what); !st)
        return st;
    // The last replies are our commands'.
    const auto finals = finalReplies(lines.size());
    if (finals.size() < lines.size())
        return Error(ErrorKind::Corrupt, std::string(what) + ": the server's replies are missing");
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (!lines[i].starts_with('*') && replyCode(finals[i]) >= 400)
            return refusal(finals[i], what);
    return {};
}

std::vector<std::string_view> Connection::finalReplies(std::size_t count) const
{
    std::vector<std::string_view> finals;
    std::string_view text(m_replies);
    while (!text.empty()) {
        auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (line.size() >= 4 && std::isdigit(static_cast<unsigned char>(line[0])) && line[3] == ' ')
            finals.push_back(line);
    }
    if (finals.size() < count)
        return {};
    finals.erase(finals.begin(), finals.end() - std::ptrdiff_t(count));
    return finals;
}

int Connection::replyCode(std::string_view reply)
{
    if (reply.size() < 3 || !std::isdigit(static_cast<unsigned char>(reply[0]))
        || !std::isdigit(static_cast<unsigned char>(reply[1])) || !std::isdigit(static_cast<unsigned char>(reply[2])))
        return 0;
    return (reply[0] - '0') * 100 + (reply[1] - '0') * 10 + (reply[2] - '0');
}

Status Connection::refusal(std::string_view reply, std::string_view what)
{
    m_failedReply = lastReply(std::string(reply));
    return replyError(replyCode(reply), what);
}

Status Connection::listing(const std::string &serverDir, bool mlsd, const OnLines &onLines, std::string_view what)
{
    begin(m_config.origin() + urlPath(serverDir) + (serverDir == "/" ? "" : "/"));
    if (mlsd)
        curl_easy_setopt(m_curl, CURLOPT_CUSTOMREQUEST, "MLSD");
    struct Sink {
        const OnLines *onLines;
        std::string partial; // a line not yet ended
        std::size_t total = 0;
        bool tooLong = false, tooLarge = false;
    } sink{&onLines, {}, 0, false, false};
    curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(
        m_curl, CURLOPT_WRITEFUNCTION, +[](char *data, std::size_t size, std::size_t count, void *user) -> std::size_t {
            auto *s = static_cast<Sink *>(user);
            const std::string_view text(data, size * count);
            s->total += text.size();
            if (s->total > kMaxListing) {
                s->tooLarge = true;
                return 0;
            }
            const auto end = text.rfind('\n');
            if (end == std::string_view::npos) {
                s->tooLong = s->partial.size() + text.size() > kMaxListingLine;
                s->partial.append(text);
                return s->tooLong ? 0 : text.size();
            }
            bool wanted;
            if (s->partial.empty()) {
                wanted = (*s->onLines)(text.substr(0, end + 1));
            } else {
                s->partial.append(text.substr(0, end + 1));
                wanted = (*s->onLines)(s->partial);
                s->partial.clear();
            }
            s->partial.assign(text.substr(end + 1));
            return wanted ? text.size() : 0;
        });
    auto st = perform(what);
    if (sink.tooLarge)
        return Error(ErrorKind::Unsupported, std::string(what) + ": the folder's listing is larger than 512 MiB");
    if (sink.tooLong)
        return Error(ErrorKind::Corrupt, std::string(what) + ": the server sent a listing line longer than 64 KiB");
    if (st && !sink.partial.empty() && !onLines(sink.partial)) // the last line, unended
        return Error(ErrorKind::Cancelled, std::string(what) + ": stopped");
    return st;
}

Status Connection::listing(const std::string &serverDir, bool mlsd, std::string &out, std::string_view what)
{
    out.clear();
    return listing(
        serverDir, mlsd,
        [&](std::string_view lines) {
            out.append(lines);
            return true;
        },
        what);
}

Result<std::size_t> Connection::read(const std::string &serverPath, std::uint64_t offset, std::span<std::byte> buffer,
                                     std::string_view what)
{
    if (buffer.empty())
        return std::size_t(0);
    begin(m_config.origin() + urlPath(serverPath));
    // The file from `offset` on, not the range `buffer` covers: libcurl 7.88 closes the
    // connection after any range with an end ("partial download completed"), so each such
    // read would log in again (20 ms of Pure-FTPd's password check on loopback, several
    // round trips far away). A read that takes the rest of the file leaves the connection
    // as it was; one that takes less stops the transfer once the buffer is full, and
    // libcurl closes the connection, as a range would have.
    if (offset > 0) {
        const std::string range = std::to_string(offset) + "-";
        curl_easy_setopt(m_curl, CURLOPT_RANGE, range.c_str()); // copied by libcurl
    } else {
        curl_easy_setopt(m_curl, CURLOPT_IGNORE_CONTENT_LENGTH, 1L); // RETR at once, no SIZE
    }
    struct Sink {
        std::span<std::byte> into;
        std::size_t received = 0;
        bool more = false; // the file goes on past the buffer
    } sink{buffer};
    curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(
        m_curl, CURLOPT_WRITEFUNCTION, +[](char *data, std::size_t size, std::size_t count, void *user) -> std::size_t {
            auto *s = static_cast<Sink *>(user);
            const std::size_t length = size * count;
            const std::size_t n = std::min(length, s->into.size() - s->received);
            std::memcpy(s->into.data() + s->received, data, n);
            s->received += n;
            if (n == length)
                return length;
            s->more = true;
            return 0; // the buffer is full: the transfer stops here
        });
    auto st = perform(what);
    if (sink.more) { // stopped by us: what the buffer holds is the answer
        m_reusable = false;
        return sink.received;
    }
    // At the end, libcurl knows from SIZE that nothing is left and asks for nothing ("File
    // already completely downloaded"): the connection stays. Past it, the request fails,
    // and a failed request's connection goes (outcome()).
    if (!st && m_last == CURLE_BAD_DOWNLOAD_RESUME)
        return std::size_t(0);
    if (!st)
        return std::move(st).error();
    return sink.received;
}

void Connection::beginRetrieve(const std::string &serverPath, std::uint64_t offset)
{
    begin(m_config.origin() + urlPath(serverPath));
    if (offset > 0) {
        const std::string range = std::to_string(offset) + "-";
        curl_easy_setopt(m_curl, CURLOPT_RANGE, range.c_str()); // copied by libcurl
    } else {
        // From the start: RETR at once, without libcurl's SIZE first (a round trip per
        // file; the reader knows the listed size and stops at it). libcurl skips REST on
        // this path too, so only here.
        curl_easy_setopt(m_curl, CURLOPT_IGNORE_CONTENT_LENGTH, 1L);
    }
    curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, &Connection::onRetrieved);
    m_retrieve = {};
    m_retrieve.active = curl_multi_add_handle(m_multi, m_curl) == CURLM_OK;
    if (!m_retrieve.active) {
        m_retrieve.active = true; // so that retrieve() reports it
        m_retrieve.finished = true;
        m_retrieve.result = CURLE_FAILED_INIT;
    }
}

std::size_t Connection::onRetrieved(char *data, std::size_t size, std::size_t count, void *self)
{
    auto &r = static_cast<Connection *>(self)->m_retrieve;
    const std::size_t length = size * count;
    if (r.atEnd) {
        if (length == 0)
            return 0;
        r.extra = true;
        return 0; // stops the transfer: the file grew since it was listed
    }
    if (r.got == r.into.size() && length > 0)
        return CURL_WRITEFUNC_PAUSE; // libcurl keeps these bytes and hands them over again
    const std::size_t n = std::min(length, r.into.size() - r.got);
    std::memcpy(r.into.data() + r.got, data, n);
    r.got += n;
    r.spill.insert(r.spill.end(), reinterpret_cast<const std::byte *>(data + n),
                   reinterpret_cast<const std::byte *>(data + length));
    r.total += length;
    return length;
}

Result<std::size_t> Connection::retrieve(std::span<std::byte> into, std::string_view what)
{
    auto &r = m_retrieve;
    if (!r.active)
        return Error(ErrorKind::Unexpected, std::string(what) + ": no download is under way");
    std::size_t got = 0;
    if (r.spillAt < r.spill.size()) {
        got = std::min(into.size(), r.spill.size() - r.spillAt);
        std::memcpy(into.data(), r.spill.data() + r.spillAt, got);
        r.spillAt += got;
        if (r.spillAt == r.spill.size()) {
            r.spill.clear();
            r.spillAt = 0;
        }
    }
    if (got < into.size() && !r.finished) {
        r.into = into;
        r.got = got;
        m_clock.moved(); // the time between two reads was the caller's
        if (r.paused) {
            r.paused = false;
            curl_easy_pause(m_curl, CURLPAUSE_CONT); // may hand over the bytes it kept at once
        }
        while (r.got < r.into.size() && !r.finished)
            r.finished = step(r.result);
        got = r.got;
        r.into = {};
        r.got = 0;
        if (!r.finished) {
            curl_easy_pause(m_curl, CURLPAUSE_RECV);
            r.paused = true;
        } else {
            curl_multi_remove_handle(m_multi, m_curl);
        }
    }
    if (r.finished && r.result != CURLE_OK) {
        // Asked at or past the end (an empty file too): libcurl knows the size (SIZE) and
        // leaves its ABOR's reply unread; the connection is out of step and goes.
        if (r.result == CURLE_BAD_DOWNLOAD_RESUME && r.total == 0) {
            m_reusable = false;
            return got;
        }
        return outcome(r.result, what).error();
    }
    if (r.finished && r.result == CURLE_OK && r.total == 0)
        m_reusable = false; // see above: at the end from the start
    return got;
}

void Connection::endRetrieve(bool atExpectedEnd)
{
    auto &r = m_retrieve;
    if (!r.active)
        return;
    if (!r.finished && atExpectedEnd && r.spillAt == r.spill.size()) {
        r.atEnd = true;
        m_clock.moved();
        if (r.paused) {
            r.paused = false;
            curl_easy_pause(m_curl, CURLPAUSE_CONT);
        }
        while (!r.finished)
            r.finished = step(r.result);
        curl_multi_remove_handle(m_multi, m_curl);
        if (r.result != CURLE_OK || r.extra)
            m_reusable = false;
    } else if (!r.finished) {
        curl_multi_remove_handle(m_multi, m_curl); // libcurl closes the data connection
        m_reusable = false;
    } else if (r.result != CURLE_OK) {
        m_reusable = false;
    }
    m_retrieve = {};
}

Status Connection::store(const std::string &serverPath, bool append,
                         const std::function<std::optional<std::size_t>(std::span<std::byte>)> &source,
                         const std::vector<std::string> &after, std::string_view what,
                         const std::function<void()> &landed)
{
    begin(m_config.origin() + urlPath(serverPath));
    curl_easy_setopt(m_curl, CURLOPT_UPLOAD, 1L);
    if (append)
        curl_easy_setopt(m_curl, CURLOPT_APPEND, 1L);
    Slist post(after);
    if (post.head)
        curl_easy_setopt(m_curl, CURLOPT_POSTQUOTE, post.head);
    using Source = std::function<std::optional<std::size_t>(std::span<std::byte>)>;
    struct Pull {
        const Source &source;
        http::StallClock &clock;
    } pull{source, m_clock};
    curl_easy_setopt(m_curl, CURLOPT_READDATA, &pull);
    curl_easy_setopt(
        m_curl, CURLOPT_READFUNCTION, +[](char *data, std::size_t size, std::size_t count, void *user) -> std::size_t {
            auto &p = *static_cast<Pull *>(user);
            auto n = p.source(std::span(reinterpret_cast<std::byte *>(data), size * count));
            p.clock.moved(); // the wait for the writer's bytes was not the server's silence
            return n ? *n : std::size_t(CURL_READFUNC_ABORT);
        });
    m_landed = landed ? &landed : nullptr;
    m_preliminary = false;
    Status st = perform(what);
    m_landed = nullptr;
    return st;
}

Status Connection::store(const std::string &serverPath, bool append, std::span<const std::byte> bytes,
                         const std::vector<std::string> &after, std::string_view what)
{
    return store(
        serverPath, append,
        [&bytes](std::span<std::byte> out) -> std::optional<std::size_t> {
            const std::size_t n = std::min(out.size(), bytes.size());
            std::copy_n(bytes.begin(), n, out.begin());
            bytes = bytes.subspan(n);
            return n;
        },
        after, what);
}

std::string Connection::entryPath()
{
    char *path = nullptr;
    if (curl_easy_getinfo(m_curl, CURLINFO_FTP_ENTRY_PATH, &path) != CURLE_OK || !path)
        return "/";
    return path;
}

ConnectionPool::~ConnectionPool()
{
    std::vector<std::thread> closing;
    while (m_free.size() > 1) {
        closing.emplace_back([c = std::move(m_free.back())]() mutable { c.reset(); });
        m_free.pop_back();
    }
    m_free.clear();
    for (auto &t : closing)
        t.join();
}

ConnectionPool::Lease ConnectionPool::lease(bool longLived)
{
    std::unique_lock lock(m_mutex);
    if (longLived) {
        ++m_longLived;
    } else {
        // First come, first served: a request arriving now never takes the connection a
        // waiting one was woken for.
        const std::uint64_t ticket = m_nextTicket++;
        m_cv.wait(lock, [&] { return ticket == m_serving && (!m_free.empty() || m_inUse < m_limit.load()); });
        ++m_serving;
        ++m_inUse;
        m_cv.notify_all();
    }
    if (!m_free.empty()) {
        auto c = std::move(m_free.back());
        m_free.pop_back();
        return Lease(*this, std::move(c), longLived);
    }
    lock.unlock();
    return Lease(*this, std::make_unique<Connection>(m_config, m_sockets), longLived);
}

void ConnectionPool::learnRoundTrip(std::chrono::microseconds rtt)
{
    if (rtt < std::chrono::milliseconds(5))
        return;
    m_distant = true;
    if (m_config.connectionsGiven)
        return;
    std::lock_guard lock(m_mutex);
    m_limit = 16;
    m_cv.notify_all();
}

void ConnectionPool::give(std::unique_ptr<Connection> c, bool longLived)
{
    std::lock_guard lock(m_mutex);
    --(longLived ? m_longLived : m_inUse);
    // Refused while others stand: as many as stand are the server's limit for us. (None
    // standing: the server is full of other clients; the retry will tell.)
    if (const unsigned standing = m_inUse + unsigned(m_free.size()); c->refusedAtLogin() && standing > 0)
        m_limit = std::min(m_limit.load(), standing);
    if (c->reusable() && m_free.size() + m_inUse < m_limit.load())
        m_free.push_back(std::move(c));
    m_cv.notify_all();
}

} // namespace strata::ftp

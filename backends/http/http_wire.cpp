#include "backends/http/http_wire.h"

#include "backends/http/response_body.h"

#include <curl/curl.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <span>

namespace strata::http {

namespace {

constexpr std::size_t kInitialBuffer = 16u << 10;
// The most a response head (status line and headers) may take; KeptHeaders keeps at
// most 256 KiB of values, a head beyond this is not one to trust.
constexpr std::size_t kMaxHead = 512u << 10;
// A body up to this size is copied after the head and sent with it in one write.
constexpr std::size_t kInlineBody = 64u << 10;

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool hasLineBreak(std::string_view s)
{
    return s.find_first_of("\r\n") != std::string_view::npos;
}

// Methods a server may receive twice with the same effect (RFC 9110 9.2.2, RFC 4918).
bool idempotent(std::string_view method)
{
    for (std::string_view m : {"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "PROPFIND"})
        if (method == m)
            return true;
    return false;
}

// "12" or "12, 12" (a repeated header folded into a list): the length, if all agree.
bool parseContentLength(std::string_view value, std::uint64_t &length)
{
    bool any = false;
    while (true) {
        const auto comma = value.find(',');
        const std::string_view item = trim(value.substr(0, comma));
        std::uint64_t n = 0;
        const auto r = std::from_chars(item.data(), item.data() + item.size(), n);
        if (item.empty() || r.ec != std::errc() || r.ptr != item.data() + item.size() || (any && n != length))
            return false;
        length = n;
        any = true;
        if (comma == std::string_view::npos)
            return true;
        value.remove_prefix(comma + 1);
    }
}

} // namespace

bool splitHttpUrl(std::string_view url, UrlParts &parts)
{
    constexpr std::string_view scheme = "http://";
    if (url.size() <= scheme.size() || !equalsLower(url.substr(0, scheme.size()), scheme))
        return false;
    const std::size_t hostStart = scheme.size();
    std::size_t end = url.find_first_of("/?#", hostStart);
    if (end == std::string_view::npos)
        end = url.size();
    if (end == hostStart)
        return false;
    parts.origin = url.substr(0, end);
    parts.authority = url.substr(hostStart, end - hostStart);
    if (parts.authority.find('@') != std::string_view::npos)
        return false; // credentials in the URL: libcurl's business
    parts.target = url.substr(end);
    if (parts.target.find('#') != std::string_view::npos)
        parts.target = parts.target.substr(0, parts.target.find('#'));
    return true;
}

WireConnection::~WireConnection()
{
    if (m_curl)
        curl_easy_cleanup(static_cast<CURL *>(m_curl)); // closes the socket
    else if (m_fd >= 0)
        ::close(m_fd);
}

std::unique_ptr<WireConnection> WireConnection::over(int fd, std::string_view origin, int stallMs)
{
    std::unique_ptr<WireConnection> conn(new WireConnection);
    conn->m_fd = fd;
    conn->m_origin.assign(origin);
    conn->m_stallMs = std::max(0, stallMs);
    conn->m_in.resize(kInitialBuffer);
    return conn;
}

Result<std::unique_ptr<WireConnection>> WireConnection::open(std::string_view origin, const ClientOptions &options)
{
    std::unique_ptr<WireConnection> conn(new WireConnection);
    conn->m_origin.assign(origin);
    const auto stall = options.stallTimeout.count();
    conn->m_stallMs = stall <= 0 ? 0 : int(std::min<long long>(stall * 1000, 1LL << 30));
    CURL *c = curl_easy_init();
    if (!c)
        return Error(ErrorKind::Unexpected, "libcurl could not start (is libcurl4 installed? it is loaded at the first request)");
    conn->m_curl = c;
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    const std::string url = conn->m_origin + "/";
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, long(options.connectTimeout.count()));
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(c, CURLOPT_PROXY, ""); // the client sends here only when no proxy is set
    const CURLcode code = curl_easy_perform(c);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, static_cast<char *>(nullptr));
    if (code != CURLE_OK)
        return transportError(code, errorBuffer, url);
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD)
        return transportError(CURLE_COULDNT_CONNECT, "no socket after connecting", url);
    conn->m_fd = int(fd);
    conn->m_in.resize(kInitialBuffer);
    return conn;
}

bool WireConnection::idleAndOpen() const
{
    if (m_begin != m_end)
        return false; // bytes nobody asked for
    pollfd p{m_fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 0;
}

void WireConnection::startWindow()
{
    m_windowStart = m_lastMove = std::chrono::steady_clock::now();
    m_windowBytes = 0;
}

void WireConnection::moved(std::size_t bytes)
{
    m_windowBytes += bytes;
    m_lastMove = std::chrono::steady_clock::now();
}

namespace {
long long msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count();
}
} // namespace

bool WireConnection::stalled()
{
    if (m_stallMs <= 0)
        return false;
    if (msSince(m_lastMove) >= m_stallMs)
        return true; // silent for the whole stall timeout
    const long long elapsed = msSince(m_windowStart);
    if (elapsed < m_stallMs)
        return false;
    if (m_windowBytes * 1000 < std::uint64_t(elapsed))
        return true; // under one byte a second
    m_windowStart = std::chrono::steady_clock::now();
    m_windowBytes = 0;
    return false;
}

int WireConnection::waitMs() const
{
    if (m_stallMs <= 0)
        return -1;
    const long long left = std::min(m_stallMs - msSince(m_lastMove), m_stallMs - msSince(m_windowStart));
    return int(std::max<long long>(1, left));
}

WireConnection::Io WireConnection::failed(int err)
{
    m_errno = err;
    return err == ECONNRESET ? Io::Reset : Io::Failed;
}

WireConnection::Io WireConnection::sendAll(const char *data, std::size_t size, bool &answered)
{
    while (size > 0) {
        const ssize_t n = ::send(m_fd, data, size, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            size -= std::size_t(n);
            moved(std::size_t(n));
            if (stalled())
                return Io::TimedOut;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            // The server stopped reading: an answer it sent first is still to be read.
            answered = true;
            return Io::Ok;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return failed(errno);
        // The server may answer before it has read everything (an error to a large upload).
        pollfd p{m_fd, POLLOUT | POLLIN, 0};
        const int r = ::poll(&p, 1, waitMs());
        if (r < 0 && errno != EINTR)
            return failed(errno);
        if (r > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            answered = true;
            return Io::Ok;
        }
        if (stalled())
            return Io::TimedOut;
    }
    return Io::Ok;
}

WireConnection::Io WireConnection::receive(char *to, std::size_t room, std::size_t &got)
{
    got = 0;
    for (;;) {
        const ssize_t n = ::recv(m_fd, to, room, 0);
        if (n > 0) {
            got = std::size_t(n);
            moved(got);
            return stalled() ? Io::TimedOut : Io::Ok;
        }
        if (n == 0)
            return Io::Closed;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return failed(errno);
        pollfd p{m_fd, POLLIN, 0};
        const int r = ::poll(&p, 1, waitMs());
        if (r < 0 && errno != EINTR)
            return failed(errno);
        if (r == 0 && stalled())
            return Io::TimedOut;
    }
}

WireConnection::Io WireConnection::fill()
{
    if (m_begin == m_end)
        m_begin = m_end = 0;
    if (m_end == m_in.size()) {
        if (m_begin > 0) {
            std::memmove(m_in.data(), m_in.data() + m_begin, m_end - m_begin);
            m_end -= m_begin;
            m_begin = 0;
        } else if (m_in.size() < kMaxHead) {
            m_in.resize(std::min(kMaxHead, m_in.size() * 2));
        } else {
            return Io::TooLong; // a line longer than any head we accept
        }
    }
    std::size_t got = 0;
    const Io io = receive(m_in.data() + m_end, m_in.size() - m_end, got);
    m_end += got;
    return io;
}

Error WireConnection::ioError(Io io, std::string_view url, std::string_view what) const
{
    const std::string detail(what);
    switch (io) {
    case Io::TimedOut:
        return transportError(CURLE_OPERATION_TIMEDOUT,
                              ("under 1 byte a second for " + std::to_string(m_stallMs / 1000) + " s " + detail).c_str(), url);
    case Io::Closed:
        return transportError(CURLE_RECV_ERROR, ("the server closed the connection " + detail).c_str(), url);
    case Io::TooLong:
        return transportError(CURLE_WEIRD_SERVER_REPLY, ("a line of over 512 KiB " + detail).c_str(), url);
    case Io::Reset:
    case Io::Failed:
    case Io::Ok:
        break;
    }
    return transportError(CURLE_RECV_ERROR, (std::string(std::strerror(m_errno)) + " " + detail).c_str(), url);
}

std::optional<Error> WireConnection::refuse(const Request &request, const UrlParts &url)
{
    for (const HeaderRef &h : request.headers)
        if (hasLineBreak(h.name) || hasLineBreak(h.value))
            return Error(ErrorKind::InvalidInput, "an HTTP header (" + std::string(h.name.substr(0, 64)) + ") contains a line break");
    if (hasLineBreak(request.method) || request.method.find(' ') != std::string_view::npos || hasLineBreak(url.target)
        || url.target.find(' ') != std::string_view::npos)
        return Error(ErrorKind::InvalidInput, "the HTTP request line would contain a space or a line break");
    return std::nullopt;
}

Result<Response> WireConnection::exchange(const Request &request, const UrlParts &url, std::string_view userAgent, bool &lost)
{
    lost = false;
    const bool retryable = m_used && idempotent(request.method);
    m_used = true;
    m_reusable = false; // until the response has ended cleanly
    m_lastUsed = std::chrono::steady_clock::now();
    startWindow();

    // --- the request
    bool hasHost = false, hasAgent = false, hasLength = false;
    for (const HeaderRef &h : request.headers) {
        hasHost = hasHost || equalsLower(h.name, "host");
        hasAgent = hasAgent || equalsLower(h.name, "user-agent");
        hasLength = hasLength || equalsLower(h.name, "content-length");
    }
    m_out.clear();
    m_out.append(request.method).append(" ");
    if (url.target.empty() || url.target.front() == '?')
        m_out.append("/");
    m_out.append(url.target).append(" HTTP/1.1\r\n");
    if (!hasHost)
        m_out.append("Host: ").append(url.authority).append("\r\n");
    if (!hasAgent && !userAgent.empty())
        m_out.append(userAgent).append("\r\n");
    for (const HeaderRef &h : request.headers)
        m_out.append(h.name).append(": ").append(h.value).append("\r\n");
    const bool sendsLength = !request.body.empty() || request.method == "PUT" || request.method == "POST";
    if (sendsLength && !hasLength) {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, request.body.size()).ptr;
        m_out.append("Content-Length: ").append(digits, end).append("\r\n");
    }
    m_out.append("\r\n");
    const auto *bodyBytes = reinterpret_cast<const char *>(request.body.data());
    bool answeredEarly = false;
    Io io;
    if (request.body.size() <= kInlineBody) {
        m_out.append(bodyBytes, request.body.size());
        io = sendAll(m_out.data(), m_out.size(), answeredEarly);
    } else {
        io = sendAll(m_out.data(), m_out.size(), answeredEarly);
        if (io == Io::Ok && !answeredEarly)
            io = sendAll(bodyBytes, request.body.size(), answeredEarly);
    }
    if (io != Io::Ok)
        return ioError(io, request.url, "while the request was sent");

    // --- the response head; interim (1xx) answers are skipped (they count against the
    // head's limit, so an endless stream of them ends)
    Response response;
    std::size_t headBytes = 0;
    std::size_t scanned = 0; // bytes after m_begin already searched for a line end
    bool anyByte = false;
    // One line, without its line end; false with io set when none could be read.
    std::string_view line;
    const auto readLine = [&]() -> bool {
        for (;;) {
            const char *start = m_in.data() + m_begin;
            if (const void *nl = std::memchr(start + scanned, '\n', m_end - m_begin - scanned)) {
                const std::size_t length = std::size_t(static_cast<const char *>(nl) - start);
                line = std::string_view(start, length);
                if (!line.empty() && line.back() == '\r')
                    line.remove_suffix(1);
                m_begin += length + 1;
                headBytes += length + 1;
                scanned = 0;
                return true;
            }
            scanned = m_end - m_begin;
            if (headBytes + scanned >= kMaxHead) {
                io = Io::TooLong;
                return false;
            }
            io = fill();
            anyByte = anyByte || m_end > m_begin;
            if (io != Io::Ok)
                return false;
        }
    };
    // A head that is not HTTP: not worth a retry. Broken framing in a body: the connection
    // broke (temporary, as the libcurl path says).
    const auto malformed = [&](std::string_view what) {
        return transportError(CURLE_WEIRD_SERVER_REPLY, ("the server's answer is not HTTP/1.1 (" + std::string(what) + ")").c_str(),
                              request.url);
    };
    const auto brokenBody = [&](std::string_view what) {
        return transportError(CURLE_RECV_ERROR, ("the body of the server's answer is broken (" + std::string(what) + ")").c_str(),
                              request.url);
    };
    std::uint64_t contentLength = 0;
    bool hasContentLength = false, chunked = false, otherCoding = false, keepAlive = true;
    for (;;) {
        if (!readLine()) {
            lost = retryable && !anyByte && (io == Io::Closed || io == Io::Reset);
            return ioError(io, request.url, anyByte ? "in the middle of its answer" : "before answering");
        }
        if (!line.starts_with("HTTP/1.") || line.size() < 12 || line[8] != ' ' || (line.size() > 12 && line[12] != ' '))
            return malformed("status line '" + std::string(line.substr(0, 40)) + "'");
        long status = 0;
        const auto parsed = std::from_chars(line.data() + 9, line.data() + 12, status);
        if (parsed.ec != std::errc() || parsed.ptr != line.data() + 12 || status < 100)
            return malformed("status line '" + std::string(line.substr(0, 40)) + "'");
        response.status = status;
        response.headers.clear();
        response.authOffered = 0;
        response.emptyRange = false;
        keepAlive = line[7] != '0'; // HTTP/1.0: closed unless the server says keep-alive
        hasContentLength = chunked = otherCoding = false;
        contentLength = 0;
        bool close = false;
        for (;;) {
            if (!readLine())
                return ioError(io, request.url, "in the middle of its answer's headers");
            if (line.empty())
                break;
            if (line.front() == ' ' || line.front() == '\t')
                continue; // an obsolete folded continuation of the previous header: ignored
            const auto colon = line.find(':');
            if (colon == std::string_view::npos || colon == 0)
                return malformed("header line without a name");
            const std::string_view name = line.substr(0, colon);
            const std::string_view value = trim(line.substr(colon + 1));
            if (equalsLower(name, "content-length")) {
                std::uint64_t n = 0;
                if (!parseContentLength(value, n) || (hasContentLength && n != contentLength))
                    return malformed("Content-Length '" + std::string(value.substr(0, 40)) + "'");
                contentLength = n;
                hasContentLength = true;
            } else if (equalsLower(name, "transfer-encoding")) {
                // chunked must be the last coding; any other coding (alone or after it)
                // leaves the end of the body to the close of the connection.
                const std::string_view last = trim(value.substr(value.rfind(',') == std::string_view::npos ? 0 : value.rfind(',') + 1));
                chunked = equalsLower(last, "chunked");
                otherCoding = !chunked;
            } else if (equalsLower(name, "connection")) {
                close = close || containsLower(value, "close");
                keepAlive = keepAlive || containsLower(value, "keep-alive");
            } else if (equalsLower(name, "content-range")) {
                // "bytes */0" or "bytes 0-0/0": a range of an empty object. Some servers
                // (s3rver) then announce a byte they never send; stop before waiting for it.
                if (value.ends_with("/0"))
                    response.emptyRange = true;
            } else if (equalsLower(name, "www-authenticate")) {
                if (startsWithLower(value, "basic"))
                    response.authOffered |= kAuthBasic;
                else if (startsWithLower(value, "digest"))
                    response.authOffered |= kAuthDigest;
            }
            response.headers.keep(name, value);
        }
        keepAlive = keepAlive && !close && !answeredEarly;
        if (status >= 100 && status < 200 && status != 101)
            continue; // 100 Continue, 103 Early Hints: the answer follows
        break;
    }

    // --- the body
    if (response.emptyRange) {
        response.body.clear();
        return response; // the connection may still owe a byte: not reused (m_reusable false)
    }
    const long status = response.status;
    if (request.method == "HEAD" || status == 101 || status == 204 || status == 304) {
        m_reusable = keepAlive && status != 101;
        return response;
    }
    ResponseBody body(&request, &response);
    // Reads `count` bytes of body (nullopt: all until the connection closes).
    const auto readBody = [&](std::optional<std::uint64_t> count) -> Result<ResponseBody::Took> {
        std::uint64_t left = count.value_or(~std::uint64_t(0));
        for (;;) {
            const std::size_t buffered = std::size_t(std::min<std::uint64_t>(left, m_end - m_begin));
            if (buffered > 0) {
                const ResponseBody::Took took = body.take(m_in.data() + m_begin, buffered);
                m_begin += buffered;
                left -= buffered;
                if (took != ResponseBody::Took::More)
                    return took;
            }
            if (left == 0)
                return ResponseBody::Took::More;
            const std::span<std::byte> direct = body.direct();
            std::size_t got = 0;
            if (!direct.empty()) {
                // Straight into the caller's buffer: no copy in between.
                io = receive(reinterpret_cast<char *>(direct.data()), std::size_t(std::min<std::uint64_t>(left, direct.size())), got);
                response.received += got;
                left -= got;
            } else {
                m_begin = m_end = 0;
                io = receive(m_in.data(), m_in.size(), got);
                m_end = got;
            }
            if (io == Io::Closed && !count)
                return ResponseBody::Took::More; // the end of a body that lasts until the close
            if (io != Io::Ok)
                return ioError(io, request.url, "in the middle of the body of its answer");
        }
    };
    Result<ResponseBody::Took> took = ResponseBody::Took::More;
    if (chunked) {
        for (;;) {
            if (!readLine())
                return ioError(io, request.url, "in the middle of a chunked body");
            const std::string_view sizeText = trim(line.substr(0, line.find(';')));
            std::uint64_t size = 0;
            const auto r = std::from_chars(sizeText.data(), sizeText.data() + sizeText.size(), size, 16);
            if (sizeText.empty() || r.ec != std::errc() || r.ptr != sizeText.data() + sizeText.size())
                return brokenBody("chunk size '" + std::string(sizeText.substr(0, 40)) + "'");
            if (size == 0) {
                do { // trailers, up to the empty line
                    if (!readLine())
                        return ioError(io, request.url, "in the trailer of a chunked body");
                } while (!line.empty());
                break;
            }
            took = readBody(size);
            if (!took || *took != ResponseBody::Took::More)
                break;
            if (!readLine())
                return ioError(io, request.url, "in the middle of a chunked body");
            if (!line.empty())
                return brokenBody("no line end after a chunk");
            headBytes = 0; // the limit is per line here: the body's size is bounded elsewhere
        }
    } else if (hasContentLength && !otherCoding) {
        if (contentLength > 0)
            took = readBody(contentLength);
    } else {
        keepAlive = false;
        took = readBody(std::nullopt);
    }
    if (!took)
        return took.error();
    if (*took == ResponseBody::Took::TooLarge) {
        if (request.into.empty())
            return Error(ErrorKind::Corrupt, "the server's answer is larger than expected");
        return transportError(CURLE_WRITE_ERROR, "the server's answer is larger than expected", request.url);
    }
    if (*took != ResponseBody::Took::More)
        return response; // overflow: the rest is still on the wire, not reused
    m_reusable = keepAlive;
    if (m_reusable && m_in.size() > kInitialBuffer && m_begin == m_end) {
        m_in.resize(kInitialBuffer); // a large head once: not kept for every later request
        m_in.shrink_to_fit();
        m_begin = m_end = 0;
    }
    return response;
}

} // namespace strata::http

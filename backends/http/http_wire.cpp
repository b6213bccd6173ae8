#include "backends/http/http_wire.h"

#include <curl/curl.h>

#include <poll.h>
#include <sys/socket.h>

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

char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool sameNoCase(std::string_view a, std::string_view lowerB)
{
    return a.size() == lowerB.size() && std::equal(a.begin(), a.end(), lowerB.begin(), [](char x, char y) { return lower(x) == y; });
}

bool containsNoCase(std::string_view text, std::string_view lowerWord)
{
    if (lowerWord.size() > text.size())
        return false;
    for (std::size_t i = 0; i + lowerWord.size() <= text.size(); ++i)
        if (sameNoCase(text.substr(i, lowerWord.size()), lowerWord))
            return true;
    return false;
}

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

// Where the bytes of a response body go: the same rules as the libcurl path's onWrite.
struct Body {
    const Request &request;
    Response &response;
    bool success;
    std::uint64_t skipped = 0;
    enum class Took { More, Overflow, TooLarge };

    Took take(const char *p, std::size_t n)
    {
        if (skipped < request.skip) {
            const auto drop = std::size_t(std::min<std::uint64_t>(n, request.skip - skipped));
            skipped += drop;
            p += drop;
            n -= drop;
        }
        if (n == 0)
            return Took::More;
        if (success && !request.into.empty()) {
            const std::size_t room = request.into.size() - response.received;
            const std::size_t count = std::min(room, n);
            std::memcpy(request.into.data() + response.received, p, count);
            response.received += count;
            if (count < n) {
                response.overflow = true; // more than asked for: keep what fits, stop
                return Took::Overflow;
            }
            return Took::More;
        }
        if (response.body.size() + n > request.maxBody)
            return Took::TooLarge;
        response.body.append(p, n);
        return Took::More;
    }
    // The caller's buffer, when the next bytes can be received straight into it.
    std::span<std::byte> direct() const
    {
        if (skipped < request.skip || !success || request.into.empty())
            return {};
        return request.into.subspan(response.received);
    }
};

} // namespace

bool splitHttpUrl(std::string_view url, UrlParts &parts)
{
    constexpr std::string_view scheme = "http://";
    if (url.size() <= scheme.size() || !sameNoCase(url.substr(0, scheme.size()), scheme))
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
        curl_easy_cleanup(static_cast<CURL *>(m_curl));
}

Result<std::unique_ptr<WireConnection>> WireConnection::open(std::string_view origin, const ClientOptions &options)
{
    std::unique_ptr<WireConnection> conn(new WireConnection);
    conn->m_origin.assign(origin);
    conn->m_stallMs = int(std::min<long long>(options.stallTimeout.count() * 1000, 1LL << 30));
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

WireConnection::Io WireConnection::sendAll(const char *data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::send(m_fd, data, size, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            size -= std::size_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == EPIPE || errno == ECONNRESET ? Io::Closed : Io::Failed;
        pollfd p{m_fd, POLLOUT, 0};
        const int r = ::poll(&p, 1, m_stallMs);
        if (r == 0)
            return Io::TimedOut;
        if (r < 0 && errno != EINTR)
            return Io::Failed;
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
            return Io::Ok;
        }
        if (n == 0)
            return Io::Closed;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == ECONNRESET ? Io::Closed : Io::Failed;
        pollfd p{m_fd, POLLIN, 0};
        const int r = ::poll(&p, 1, m_stallMs);
        if (r == 0)
            return Io::TimedOut;
        if (r < 0 && errno != EINTR)
            return Io::Failed;
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
            return Io::Failed; // a line longer than any head we accept
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
        return transportError(CURLE_OPERATION_TIMEDOUT, ("no data for " + std::to_string(m_stallMs / 1000) + " s " + detail).c_str(), url);
    case Io::Closed:
        return transportError(CURLE_RECV_ERROR, ("the server closed the connection " + detail).c_str(), url);
    case Io::Failed:
    case Io::Ok:
        break;
    }
    const int err = errno;
    return transportError(CURLE_RECV_ERROR, (std::string(std::strerror(err)) + " " + detail).c_str(), url);
}

Result<Response> WireConnection::exchange(const Request &request, const UrlParts &url, std::string_view userAgent, bool &lost)
{
    lost = false;
    const bool reused = m_used;
    m_used = true;
    m_reusable = false; // until the response has ended cleanly

    // --- the request
    bool hasHost = false, hasAgent = false, hasLength = false;
    for (const HeaderRef &h : request.headers) {
        if (hasLineBreak(h.name) || hasLineBreak(h.value))
            return Error(ErrorKind::InvalidInput, "an HTTP header (" + std::string(h.name.substr(0, 64)) + ") contains a line break");
        hasHost = hasHost || sameNoCase(h.name, "host");
        hasAgent = hasAgent || sameNoCase(h.name, "user-agent");
        hasLength = hasLength || sameNoCase(h.name, "content-length");
    }
    if (hasLineBreak(request.method) || request.method.find(' ') != std::string_view::npos || hasLineBreak(url.target)
        || url.target.find(' ') != std::string_view::npos)
        return Error(ErrorKind::InvalidInput, "the HTTP request line would contain a space or a line break");
    m_out.clear();
    m_out.append(request.method).append(" ").append(url.target.empty() ? std::string_view("/") : url.target);
    if (!url.target.empty() && url.target.front() == '?')
        m_out.insert(request.method.size() + 1, "/");
    m_out.append(" HTTP/1.1\r\n");
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
    Io io;
    if (request.body.size() <= kInlineBody) {
        m_out.append(bodyBytes, request.body.size());
        io = sendAll(m_out.data(), m_out.size());
    } else {
        io = sendAll(m_out.data(), m_out.size());
        if (io == Io::Ok)
            io = sendAll(bodyBytes, request.body.size());
    }
    if (io != Io::Ok) {
        lost = reused && io != Io::TimedOut;
        return ioError(io, request.url, "while the request was sent");
    }

    // --- the response head; interim (1xx) answers are skipped
    Response response;
    std::size_t headBytes = 0;
    bool anyByte = false;
    // One line of the head, without its line end; false with io set when none could be read.
    std::string_view line;
    const auto readLine = [&]() -> bool {
        for (;;) {
            const char *start = m_in.data() + m_begin;
            if (const void *nl = std::memchr(start, '\n', m_end - m_begin)) {
                const std::size_t length = std::size_t(static_cast<const char *>(nl) - start);
                line = std::string_view(start, length);
                if (!line.empty() && line.back() == '\r')
                    line.remove_suffix(1);
                m_begin += length + 1;
                headBytes += length + 1;
                return true;
            }
            if (headBytes + (m_end - m_begin) > kMaxHead) {
                io = Io::Failed;
                errno = EMSGSIZE;
                return false;
            }
            io = fill();
            anyByte = anyByte || m_end > m_begin;
            if (io != Io::Ok)
                return false;
        }
    };
    const auto malformed = [&](std::string_view what) {
        return transportError(CURLE_WEIRD_SERVER_REPLY, ("the server's answer is not HTTP/1.1 (" + std::string(what) + ")").c_str(),
                              request.url);
    };
    std::uint64_t contentLength = 0;
    bool hasContentLength = false, chunked = false, keepAlive = true;
    for (;;) {
        if (!readLine()) {
            lost = reused && !anyByte && io == Io::Closed;
            if (io == Io::Failed && errno == EMSGSIZE)
                return malformed("a header line longer than 512 KiB");
            return ioError(io, request.url, anyByte ? "in the middle of its answer" : "before answering");
        }
        if (!line.starts_with("HTTP/1.") || line.size() < 12 || line[8] != ' ')
            return malformed("status line '" + std::string(line.substr(0, 40)) + "'");
        long status = 0;
        const auto parsed = std::from_chars(line.data() + 9, line.data() + 12, status);
        if (parsed.ec != std::errc() || parsed.ptr != line.data() + 12 || status < 100 || status > 999)
            return malformed("status line '" + std::string(line.substr(0, 40)) + "'");
        response.status = status;
        response.headers.clear();
        response.authOffered = 0;
        keepAlive = line[7] != '0'; // HTTP/1.0: closed unless the server says keep-alive
        hasContentLength = chunked = false;
        contentLength = 0;
        bool close = false;
        for (;;) {
            if (!readLine())
                return ioError(io, request.url, "in the middle of its answer's headers");
            if (line.empty())
                break;
            const auto colon = line.find(':');
            if (colon == std::string_view::npos || colon == 0)
                return malformed("header line without a name");
            const std::string_view name = line.substr(0, colon);
            const std::string_view value = trim(line.substr(colon + 1));
            if (sameNoCase(name, "content-length")) {
                std::uint64_t n = 0;
                const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
                if (r.ec != std::errc() || r.ptr != value.data() + value.size() || (hasContentLength && n != contentLength))
                    return malformed("Content-Length '" + std::string(value.substr(0, 40)) + "'");
                contentLength = n;
                hasContentLength = true;
            } else if (sameNoCase(name, "transfer-encoding")) {
                chunked = chunked || containsNoCase(value, "chunked");
            } else if (sameNoCase(name, "connection")) {
                close = close || containsNoCase(value, "close");
                keepAlive = keepAlive || containsNoCase(value, "keep-alive");
            } else if (sameNoCase(name, "content-range")) {
                // "bytes */0" or "bytes 0-0/0": a range of an empty object. Some servers
                // (s3rver) then announce a byte they never send; stop before waiting for it.
                if (value.ends_with("/0"))
                    response.emptyRange = true;
            } else if (sameNoCase(name, "www-authenticate")) {
                if (value.size() >= 5 && sameNoCase(value.substr(0, 5), "basic"))
                    response.authOffered |= kAuthBasic;
                else if (value.size() >= 6 && sameNoCase(value.substr(0, 6), "digest"))
                    response.authOffered |= kAuthDigest;
            }
            response.headers.keep(name, value);
        }
        keepAlive = keepAlive && !close;
        if (status >= 100 && status < 200 && status != 101) {
            headBytes = 0;
            continue; // 100 Continue, 103 Early Hints: the answer follows
        }
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
    Body body{request, response, status >= 200 && status < 300};
    // Reads `count` bytes of body (count: all until the connection closes when nullopt).
    const auto readBody = [&](std::optional<std::uint64_t> count) -> Result<Body::Took> {
        std::uint64_t left = count.value_or(~std::uint64_t(0));
        for (;;) {
            const std::size_t buffered = std::size_t(std::min<std::uint64_t>(left, m_end - m_begin));
            if (buffered > 0) {
                const Body::Took took = body.take(m_in.data() + m_begin, buffered);
                m_begin += buffered;
                left -= buffered;
                if (took != Body::Took::More)
                    return took;
            }
            if (left == 0)
                return Body::Took::More;
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
                return Body::Took::More; // the end of a body that lasts until the close
            if (io != Io::Ok)
                return ioError(io, request.url, "in the middle of the body of its answer");
        }
    };
    Result<Body::Took> took = Body::Took::More;
    if (chunked) {
        for (;;) {
            if (!readLine())
                return ioError(io, request.url, "in the middle of a chunked body");
            const std::string_view sizeText = trim(line.substr(0, line.find(';')));
            std::uint64_t size = 0;
            const auto r = std::from_chars(sizeText.data(), sizeText.data() + sizeText.size(), size, 16);
            if (sizeText.empty() || r.ec != std::errc() || r.ptr != sizeText.data() + sizeText.size())
                return malformed("chunk size '" + std::string(sizeText.substr(0, 40)) + "'");
            if (size == 0) {
                do { // trailers, up to the empty line
                    if (!readLine())
                        return ioError(io, request.url, "in the trailer of a chunked body");
                } while (!line.empty());
                break;
            }
            took = readBody(size);
            if (!took || *took != Body::Took::More)
                break;
            if (!readLine())
                return ioError(io, request.url, "in the middle of a chunked body");
            if (!line.empty())
                return malformed("no line end after a chunk");
            headBytes = 0; // chunk lines are not head
        }
    } else if (hasContentLength) {
        if (contentLength > 0)
            took = readBody(contentLength);
    } else {
        keepAlive = false;
        took = readBody(std::nullopt);
    }
    if (!took)
        return took.error();
    if (*took == Body::Took::TooLarge) {
        if (request.into.empty())
            return Error(ErrorKind::Corrupt, "the server's answer is larger than expected");
        return transportError(CURLE_WRITE_ERROR, "the server's answer is larger than expected", request.url);
    }
    if (*took == Body::Took::Overflow)
        return response; // the rest is still on the wire: not reused
    m_reusable = keepAlive;
    return response;
}

} // namespace strata::http

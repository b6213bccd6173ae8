#pragma once

// The client's own HTTP/1.1 for plain requests (http_client.cpp decides which): libcurl
// opens the connection (name resolution, connect timeout, its error messages), then the
// request and the response go over the socket directly, framed and parsed here into
// buffers the connection keeps. libcurl 7.88 costs ~37 allocations (~4 KiB) a request
// even on a kept connection (a connection struct made and dropped at every reuse, its
// request buffer grown again, the URL parsed anew); this path costs none once its buffers
// have grown.
//
// What it does: any method, a body from memory (Content-Length), responses with a
// Content-Length, chunked or ended by the close of the connection, no body for HEAD, 204
// and 304, interim 1xx answers skipped, `Connection: close` and HTTP/1.0 honoured, a
// response body straight into the caller's buffer (Request::into), and the same
// semantics as the libcurl path for skip, overflow, maxBody and an empty range.
// What it leaves to libcurl: TLS, proxies, HTTP authentication, streamed bodies
// (Request::source and sink), redirects (neither path follows them).
#include "backends/http/http_client.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::http {

// "http://host:port/p?q" -> origin "http://host:port", authority "host:port", target "/p?q".
struct UrlParts {
    std::string_view origin;
    std::string_view authority;
    std::string_view target;
};
// False when the URL is not an absolute http:// URL with a host.
bool splitHttpUrl(std::string_view url, UrlParts &parts);

// A transport failure as the client reports it (curlCode: a CURLcode), named after the
// host of url; shared by both paths so that their errors read the same.
Error transportError(int curlCode, const char *detail, std::string_view url);

class WireConnection {
public:
    ~WireConnection();
    WireConnection(const WireConnection &) = delete;
    WireConnection &operator=(const WireConnection &) = delete;

    // Connects to origin ("http://host:port") through libcurl (CONNECT_ONLY).
    static Result<std::unique_ptr<WireConnection>> open(std::string_view origin, const ClientOptions &options);
    // A connection over a stream socket the caller connected (the fuzz target: an answer
    // written into a socket pair); takes ownership of fd. stallMs <= 0: no stall limit.
    static std::unique_ptr<WireConnection> over(int fd, std::string_view origin, int stallMs);

    // Why a request cannot go over this path at all (a line break in a header, a space in
    // the target), before any connection is taken; nullopt when it can.
    static std::optional<Error> refuse(const Request &request, const UrlParts &url);

    // One request and its response. `lost` is set when an idempotent request (GET, HEAD,
    // PUT, DELETE, OPTIONS, PROPFIND) on a kept connection failed before any byte of an
    // answer arrived: the server had closed the connection, so it can be sent again on a
    // new one. (A POST or MOVE may have been carried out by a server that closed without
    // answering: not sent twice.)
    Result<Response> exchange(const Request &request, const UrlParts &url, std::string_view userAgent, bool &lost);

    const std::string &origin() const { return m_origin; }
    // Whether the connection can carry another request (the last response ended cleanly,
    // the server did not ask to close) ...
    bool reusable() const { return m_reusable; }
    // ... and, checked before a reuse, whether the server has not closed it meanwhile
    // (an idle kept connection is readable only when it got an EOF or stray bytes).
    bool idleAndOpen() const;
    // When it last carried a request (an idle connection is closed after a while).
    std::chrono::steady_clock::time_point lastUsed() const { return m_lastUsed; }

private:
    WireConnection() = default;
    enum class Io { Ok, Closed, Reset, Failed, TimedOut, TooLong };
    // Sends everything, unless the server answers first (an error before the whole body
    // arrived, then usually a close): `answered` is set and the answer is read as usual.
    Io sendAll(const char *data, std::size_t size, bool &answered);
    // Reads what is available (waiting for something) into [to, to + room); sets got.
    // Closed: an orderly EOF; Reset: the server reset the connection.
    Io receive(char *to, std::size_t room, std::size_t &got);
    // More bytes into m_in after m_end (compacting, growing up to kMaxHead).
    Io fill();
    Io failed(int err);
    Error ioError(Io io, std::string_view url, std::string_view what) const;

    // The stall rule of the libcurl path (CURLOPT_LOW_SPEED_*): no byte moved for the
    // stall timeout, or fewer than one byte a second over a window of that length, fails
    // the request (a server dripping a byte now and then cannot hold it forever).
    void startWindow();
    void moved(std::size_t bytes);
    bool stalled(); // silent too long, or at the end of a window too slow (else a new window)
    int waitMs() const; // how long a poll may wait: until one of those could be true

    void *m_curl = nullptr; // CURL*, owns the socket
    int m_fd = -1;
    std::string m_origin;
    std::string m_out;      // the request head (and a small body), reused
    std::vector<char> m_in; // received, not yet consumed: [m_begin, m_end)
    std::size_t m_begin = 0;
    std::size_t m_end = 0;
    int m_stallMs = 30000; // <= 0: no stall limit
    std::chrono::steady_clock::time_point m_windowStart;
    std::chrono::steady_clock::time_point m_lastMove;
    std::uint64_t m_windowBytes = 0;
    std::chrono::steady_clock::time_point m_lastUsed;
    int m_errno = 0; // of the last Io::Failed
    bool m_reusable = true;
    bool m_used = false;
};

} // namespace strata::http

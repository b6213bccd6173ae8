#pragma once

#include "core/io/socket_watch.h"
#include "core/storage/result.h"

#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::http {

// A header to send, by reference: the caller keeps the bytes alive during perform().
struct HeaderRef {
    std::string_view name;
    std::string_view value; // empty: sent as "name;" (an empty header, not a removal)
};

// HTTP authentication schemes, as bits (libcurl's CURLAUTH_BASIC and CURLAUTH_DIGEST).
inline constexpr long kAuthBasic = 1L << 0;
inline constexpr long kAuthDigest = 1L << 1;

// Everything is by reference so that building a request copies nothing: a request costs
// no heap allocation on our side (the client's per-handle buffers keep their capacity).
struct Request {
    std::string_view method = "GET";
    std::string_view url; // fully encoded
    std::span<const HeaderRef> headers;
    std::span<const std::byte> body; // sent as is (not copied)
    std::span<std::byte> into;       // response body lands here directly (ranged reads)
    std::uint64_t skip = 0;          // bytes of the response body to drop first (a server that ignored Range)
    std::size_t maxBody = 16u << 20; // cap for a response body kept in Response::body
    // A body produced while it is sent (an upload of unknown end): fills the buffer and
    // returns the bytes written, 0 at the end, kAbortBody to fail the request. Used
    // instead of `body` when set; sourceSize is the announced length (none: chunked).
    std::function<std::size_t(std::span<std::byte>)> source;
    std::optional<std::uint64_t> sourceSize;
    // A 2xx response body handed over as it arrives (a large listing parsed while it
    // streams) instead of kept in Response::body; returning false stops the transfer.
    std::function<bool(std::string_view)> sink;
    // kAuth* schemes for this request; 0: those the client has learned the server uses.
    long authSchemes = 0;
    // Keep every response header in Response::allHeaders (an object's user metadata).
    bool allHeaders = false;

    static constexpr std::size_t kAbortBody = std::size_t(-1);
};

// The response headers callers read (names in lower case), kept inline in the response:
// storing every header of every answer would cost allocations per request for nothing.
class KeptHeaders {
public:
    static constexpr std::array<std::string_view, 6> kNames = {"content-length", "content-type", "etag",
                                                               "last-modified",  "location",     "x-amz-storage-class"};
    void clear();
    // Keeps the value when name (any case) is one of kNames; a repeated header: the last one.
    void keep(std::string_view name, std::string_view value);
    std::string_view get(std::string_view lowerName) const;

private:
    struct Slot {
        std::uint32_t offset = 0;
        std::uint32_t size = 0;
        bool set = false;
        bool spilled = false; // in m_spill: a value longer than the inline room (not seen in practice)
    };
    std::array<Slot, kNames.size()> m_slots{};
    std::array<char, 320> m_text{};
    std::uint32_t m_used = 0;
    std::string m_spill; // at most kMaxSpill bytes: a server repeating long headers gets no more
    static constexpr std::size_t kMaxSpill = 256u << 10;
};

struct Response {
    long status = 0;
    KeptHeaders headers;
    std::string body;         // when the request had no `into`
    std::size_t received = 0; // bytes written into `into`
    bool overflow = false;    // the server sent more than `into` holds
    bool emptyRange = false;  // the range asked for was of an empty object
    bool sinkStopped = false; // the request's sink refused more of the body
    long authOffered = 0;     // kAuth* schemes a 401 on the way asked for
    // With Request::allHeaders: every header of the final answer, names in lower case.
    std::vector<std::pair<std::string, std::string>> allHeaders;

    // One of KeptHeaders::kNames (any case); "" when absent or not kept.
    std::string_view header(std::string_view name) const;
    // Whether the body is an HTML page (a proxy's, a login page), whatever its status.
    bool htmlBody() const;
};

struct ClientOptions {
    bool insecure = false; // skip TLS verification (asked for explicitly)
    std::chrono::seconds connectTimeout{10};
    std::chrono::seconds stallTimeout{30}; // no byte moved for this long: a timeout
    std::string userAgent = "strata";
    // HTTP authentication (Basic or Digest, whichever the server asks for), with these
    // credentials and/or the user's ~/.netrc. Empty and false: no authentication.
    std::string user;
    std::string password;
    bool netrc = false;

    // A URI's ?insecure and ?timeout=SECONDS (a connection waits at most 10 s of it).
    static ClientOptions forUri(bool insecure, int timeoutSeconds);
};

// Initialises libcurl once per process, before the first easy handle (every libcurl user
// of ours calls it: curl_global_init is not thread-safe in libcurl 7.88).
void initialiseCurl();

// Makes every socket libcurl opens for `handle` one of `sockets` (CURLOPT_OPENSOCKETFUNCTION
// and CLOSESOCKETFUNCTION), so that SocketWatch::hangUp() cuts its connections. `handle` is
// a CURL *; `sockets` outlives every connection it made.
void watchSockets(void *handle, SocketWatch &sockets);

// Blocking HTTP over libcurl, with a pool of easy handles whose kept-alive connections
// are reused across requests and threads. Thread-safe.
class Client {
public:
    explicit Client(ClientOptions options = {});
    ~Client();
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;

    // A transport failure (no connection, reset, timeout, TLS) is an Error; any HTTP
    // status, 4xx and 5xx included, is a Response for the caller to interpret. A request
    // that moves no byte for ClientOptions::stallTimeout fails as noAnswer().
    Result<Response> perform(const Request &request);
    // Cuts every connection and fails every request from now on, in flight or not
    // (Cancelled): Backend::hangUp().
    void hangUp() { m_sockets.hangUp(); }
    // The shortest wait yet between a request sent and its answer's first byte: a round
    // trip plus the server's quickest work (none before the first answer).
    std::optional<std::chrono::microseconds> roundTrip() const
    {
        const auto us = m_shortestAnswerUs.load(std::memory_order_relaxed);
        return us == kNoAnswerYet ? std::nullopt : std::optional(std::chrono::microseconds(us));
    }

private:
    static constexpr std::int64_t kNoAnswerYet = INT64_MAX;
    struct Handle;
    std::unique_ptr<Handle> take();
    void give(std::unique_ptr<Handle> handle);
    bool authenticates() const { return m_options.netrc || !m_options.user.empty(); }
    Result<Response> performOnce(const Request &request, long authSchemes);

    ClientOptions m_options;
    std::string m_userAgentLine; // "User-Agent: strata", sent as one of our header lines
    SocketWatch m_sockets;       // outlives the handles (their connections close into it)
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Handle>> m_free;
    // Basic | Digest until the server asked for a scheme; while it has asked for only that
    // one, it alone, so Basic credentials go with the first request instead of after a 401.
    std::atomic<long> m_authSchemes;
    std::atomic<long> m_seenSchemes{0};
    std::atomic<std::int64_t> m_shortestAnswerUs{kNoAnswerYet};
};

// How many files a copy to this server keeps in flight (Backend::preferredStreams): 16
// where the quickest answer took 8 ms or more (a distant server: each small file is a
// round trip or two, as FTP's pool does far away), else no wish (the engine's 8).
inline std::size_t distantStreams(const Client &client)
{
    const auto rtt = client.roundTrip();
    return rtt && *rtt >= std::chrono::milliseconds(8) ? 16 : 0;
}

} // namespace strata::http

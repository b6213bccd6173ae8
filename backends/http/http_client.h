#pragma once

#include "core/storage/result.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace strata::http {

using Header = std::pair<std::string, std::string>;

struct Request {
    std::string method = "GET";
    std::string url;                         // fully encoded
    std::vector<Header> headers;
    std::span<const std::byte> body;         // sent as is (not copied)
    std::span<std::byte> into;               // response body lands here directly (ranged reads)
    std::uint64_t skip = 0;                  // bytes of the response body to drop first (a server that ignored Range)
    std::size_t maxBody = 16u << 20;         // cap for a response body kept in Response::body
};

struct Response {
    long status = 0;
    std::vector<Header> headers;  // names in lower case
    std::string body;             // when the request had no `into`
    std::size_t received = 0;     // bytes written into `into`
    bool overflow = false;        // the server sent more than `into` holds
    bool emptyRange = false;      // the range asked for was of an empty object

    std::string header(std::string_view name) const;
};

struct ClientOptions {
    bool insecure = false;                       // skip TLS verification (asked for explicitly)
    std::chrono::seconds connectTimeout{10};
    std::chrono::seconds stallTimeout{30};      // no byte moved for this long: a timeout
    std::string userAgent = "strata";
};

// Blocking HTTP over libcurl with a pool of easy handles, so connections (and TLS
// sessions) are kept alive and reused across requests and threads. Thread-safe.
class Client {
public:
    explicit Client(ClientOptions options = {});
    ~Client();
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;

    // A transport failure (no connection, reset, timeout, TLS) is an Error; any HTTP
    // status, 4xx and 5xx included, is a Response for the caller to interpret.
    Result<Response> perform(const Request &request);

private:
    struct Handle;
    std::unique_ptr<Handle> take();
    void give(std::unique_ptr<Handle> handle);

    ClientOptions m_options;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Handle>> m_free;
};

} // namespace strata::http

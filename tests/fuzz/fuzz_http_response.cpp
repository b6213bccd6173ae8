// The client's own HTTP/1.1 (http_wire.cpp) reading any bytes as a server's answer: the
// input's first byte picks the request (HEAD, a body into a 64-byte buffer, bytes to skip,
// a small body limit), the rest is written into a socket pair whose other end then closes.
// Up to three requests go over the connection while it stays reusable (pipelined answers
// in one input). Invariants: a status is a 3-digit number; a body stays within its
// buffer and limits; HEAD has no body; a failure is a network, timeout or corrupt error
// with words in it.
#include "backends/http/http_wire.h"
#include "tests/fuzz/fuzz_check.h"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1 || size > (128u << 10))
        return 0;
    const std::uint8_t mode = data[0];
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0)
        return 0;
    const int room = 1 << 20;
    ::setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &room, sizeof room);
    ::setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &room, sizeof room);
    // The whole answer first, then the end of the stream: reading never waits.
    std::size_t written = 0;
    while (written < size - 1) {
        const ssize_t n = ::write(fds[1], data + 1 + written, size - 1 - written);
        if (n <= 0)
            break;
        written += std::size_t(n);
    }
    ::shutdown(fds[1], SHUT_WR);

    auto conn = http::WireConnection::over(fds[0], "http://fuzz", 2000);
    const std::string url = "http://fuzz/bucket/key?x=1";
    http::UrlParts parts;
    FUZZ_CHECK(http::splitHttpUrl(url, parts));
    std::array<std::byte, 64> into{};
    http::Request request;
    request.url = url;
    request.method = (mode & 1) ? "HEAD" : "GET";
    if (mode & 2)
        request.into = into;
    if (mode & 4)
        request.skip = 3;
    if (mode & 8)
        request.maxBody = 100;
    for (int i = 0; i < 3; ++i) {
        bool lost = false;
        auto response = conn->exchange(request, parts, "User-Agent: fuzz", lost);
        if (!response) {
            const ErrorKind kind = response.error().kind();
            FUZZ_CHECK(kind == ErrorKind::Network || kind == ErrorKind::Timeout || kind == ErrorKind::Corrupt);
            FUZZ_CHECK(!response.error().message().empty());
            FUZZ_CHECK(i > 0 || !lost); // a connection never used before is never "lost"
            break;
        }
        FUZZ_CHECK(response->status >= 100 && response->status <= 999);
        FUZZ_CHECK(response->received <= into.size());
        FUZZ_CHECK(response->body.size() <= request.maxBody);
        FUZZ_CHECK(!response->overflow || !request.into.empty());
        if (request.method == "HEAD")
            FUZZ_CHECK(response->body.empty() && response->received == 0);
        if (!conn->reusable())
            break;
    }
    ::close(fds[1]);
    return 0;
}

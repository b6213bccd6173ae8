#pragma once

// Where the bytes of a response body go (libcurl's write callback), and ASCII
// case-insensitive comparison of header text.
#include "backends/http/http_client.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string_view>

namespace strata::http {

inline char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}
// Whether text equals lowerB (written in lower case), ignoring the case of text.
inline bool equalsLower(std::string_view text, std::string_view lowerB)
{
    return text.size() == lowerB.size()
        && std::equal(text.begin(), text.end(), lowerB.begin(), [](char x, char y) { return asciiLower(x) == y; });
}
inline bool startsWithLower(std::string_view text, std::string_view lowerPrefix)
{
    return text.size() >= lowerPrefix.size() && equalsLower(text.substr(0, lowerPrefix.size()), lowerPrefix);
}
inline bool containsLower(std::string_view text, std::string_view lowerWord)
{
    for (std::size_t i = 0; i + lowerWord.size() <= text.size(); ++i)
        if (equalsLower(text.substr(i, lowerWord.size()), lowerWord))
            return true;
    return false;
}

// The rules for a response body: first `skip` bytes dropped (a server that ignored a
// Range); a success (2xx) to the request's sink or into its buffer (more than fits: what
// fits, and overflow); anything else, an error answer included, kept in Response::body up
// to maxBody (an S3 error code, an HTML page).
class ResponseBody {
public:
    enum class Took { More, Overflow, TooLarge, SinkStopped };

    ResponseBody() = default;
    ResponseBody(const Request *request, Response *response) : m_request(request), m_response(response) {}

    Took take(const char *p, std::size_t n)
    {
        if (m_skipped < m_request->skip) {
            const auto drop = std::size_t(std::min<std::uint64_t>(n, m_request->skip - m_skipped));
            m_skipped += drop;
            p += drop;
            n -= drop;
        }
        if (n == 0)
            return Took::More;
        if (m_request->sink && success()) {
            if (m_request->sink(std::string_view(p, n)))
                return Took::More;
            m_response->sinkStopped = true;
            return Took::SinkStopped;
        }
        if (!m_request->into.empty() && success()) {
            const std::size_t room = m_request->into.size() - m_response->received;
            const std::size_t count = std::min(room, n);
            std::memcpy(m_request->into.data() + m_response->received, p, count);
            m_response->received += count;
            if (count < n) {
                m_response->overflow = true;
                return Took::Overflow;
            }
            return Took::More;
        }
        if (m_response->body.size() + n > m_request->maxBody)
            return Took::TooLarge;
        m_response->body.append(p, n);
        return Took::More;
    }

private:
    bool success() const { return m_response->status >= 200 && m_response->status < 300; }

    const Request *m_request = nullptr;
    Response *m_response = nullptr;
    std::uint64_t m_skipped = 0;
};

} // namespace strata::http

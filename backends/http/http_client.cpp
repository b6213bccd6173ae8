#include "backends/http/http_client.h"

#include "core/storage/uri.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace strata::http {

namespace {

struct GlobalInit {
    GlobalInit() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

struct Transfer {
    const Request *request;
    Response *response;
    std::size_t sent = 0;
    std::uint64_t skipped = 0;
    long offered = 0; // CURLAUTH_* schemes a 401 answer named
};

bool startsWithNoCase(std::string_view text, std::string_view prefix)
{
    return text.size() >= prefix.size()
        && std::equal(prefix.begin(), prefix.end(), text.begin(),
                      [](char a, char b) { return std::tolower((unsigned char)a) == std::tolower((unsigned char)b); });
}

std::size_t onWrite(char *data, std::size_t size, std::size_t count, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    std::size_t n = size * count;
    const char *p = data;
    if (t->skipped < t->request->skip) {
        const auto drop = std::size_t(std::min<std::uint64_t>(n, t->request->skip - t->skipped));
        t->skipped += drop;
        p += drop;
        n -= drop;
    }
    // Only a success lands in the caller's buffer; an error answer is kept for the caller
    // to read (its S3 code, or an HTML page).
    const bool success = t->response->status >= 200 && t->response->status < 300;
    if (t->request->sink && success) {
        if (t->request->sink(std::string_view(p, n)))
            return size * count;
        t->response->sinkStopped = true;
        return 0;
    }
    if (!t->request->into.empty() && success) {
        auto &into = t->request->into;
        const std::size_t room = into.size() - t->response->received;
        const std::size_t take = std::min(room, n);
        std::memcpy(into.data() + t->response->received, p, take);
        t->response->received += take;
        if (take < n)
            t->response->overflow = true; // more than asked for: keep what fits, stop
        return take < n ? 0 : size * count;
    }
    if (t->response->body.size() + n > t->request->maxBody)
        return 0;
    t->response->body.append(p, n);
    return size * count;
}

std::size_t onRead(char *buffer, std::size_t size, std::size_t count, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    if (t->request->source) {
        const std::size_t n = t->request->source({reinterpret_cast<std::byte *>(buffer), size * count});
        return n == Request::kAbortBody ? std::size_t(CURL_READFUNC_ABORT) : n;
    }
    const auto &body = t->request->body;
    const std::size_t n = std::min(size * count, body.size() - t->sent);
    std::memcpy(buffer, body.data() + t->sent, n);
    t->sent += n;
    return n;
}

int onSeek(void *user, curl_off_t offset, int origin)
{
    // Lets curl rewind the body when a reused connection turned out to be dead, or to send
    // it again with credentials after a 401. A streamed body cannot be sent twice.
    auto *t = static_cast<Transfer *>(user);
    if (t->request->source)
        return CURL_SEEKFUNC_CANTSEEK;
    if (origin != SEEK_SET || offset < 0 || std::size_t(offset) > t->request->body.size())
        return CURL_SEEKFUNC_CANTSEEK;
    t->sent = std::size_t(offset);
    return CURL_SEEKFUNC_OK;
}

std::size_t onHeader(char *data, std::size_t size, std::size_t count, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    std::string_view line(data, size * count);
    if (line.starts_with("HTTP/")) {
        t->response->headers.clear(); // a new response (after 100-continue or a redirect)
        // "HTTP/1.1 206 Partial Content": the status decides where the body goes.
        const auto space = line.find(' ');
        t->response->status = space == std::string_view::npos ? 0 : std::atol(std::string(line.substr(space + 1, 3)).c_str());
    }
    // "Content-Range: bytes 0-0/0": a range of an empty object. Some servers (s3rver)
    // then announce a byte they never send; stop here instead of waiting for it.
    if (line.size() > 14 && (line.starts_with("Content-Range:") || line.starts_with("content-range:"))
        && line.find("/0\r") != std::string_view::npos) {
        t->response->emptyRange = true;
        return 0;
    }
    if (startsWithNoCase(line, "www-authenticate:")) {
        std::string_view scheme = line.substr(17);
        scheme.remove_prefix(std::min(scheme.size(), scheme.find_first_not_of(" \t")));
        if (startsWithNoCase(scheme, "basic"))
            t->offered |= kAuthBasic;
        else if (startsWithNoCase(scheme, "digest"))
            t->offered |= kAuthDigest;
    }
    auto colon = line.find(':');
    if (colon != std::string_view::npos) {
        auto value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
            value.remove_prefix(1);
        while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
            value.remove_suffix(1);
        t->response->headers.emplace_back(lower(line.substr(0, colon)), std::string(value));
    }
    return size * count;
}

Error transportError(CURLcode code, const char *detail, const std::string &url)
{
    std::string host = url;
    if (auto p = host.find("://"); p != std::string::npos)
        host = host.substr(p + 3);
    host = host.substr(0, host.find('/'));
    const std::string why = std::string(*detail ? detail : curl_easy_strerror(code));
    switch (code) {
    case CURLE_COULDNT_CONNECT:
        return Error(ErrorKind::Network, "cannot connect to " + host + ": " + why).setTemporary(true);
    case CURLE_COULDNT_RESOLVE_HOST:
        return Error(ErrorKind::Network, "cannot find the host " + host + ": " + why);
    case CURLE_OPERATION_TIMEDOUT:
        return Error(ErrorKind::Timeout, host + " did not answer in time: " + why).setTemporary(true);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CONNECT_ERROR:
        return Error(ErrorKind::PermissionDenied,
                     "the TLS certificate of " + host + " could not be verified (" + why
                         + "); add ?insecure=1 only if you trust this server");
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return Error(ErrorKind::Network, "the connection to " + host + " broke: " + why).setTemporary(true);
    default:
        return Error(ErrorKind::Network, "talking to " + host + " failed: " + why).setTemporary(false);
    }
}

} // namespace

struct Client::Handle {
    CURL *curl = nullptr;
    Handle() : curl(curl_easy_init()) {}
    ~Handle()
    {
        if (curl)
            curl_easy_cleanup(curl);
    }
};

bool Response::htmlBody() const
{
    const auto start = body.find_first_not_of(" \t\r\n");
    if (start == std::string::npos)
        return false;
    const std::string_view text = std::string_view(body).substr(start);
    return startsWithNoCase(text, "<!DOCTYPE html") || startsWithNoCase(text, "<html");
}

std::string Response::header(std::string_view name) const
{
    const std::string key = lower(name);
    for (const auto &[k, v] : headers)
        if (k == key)
            return v;
    return {};
}

static_assert(kAuthBasic == long(CURLAUTH_BASIC) && kAuthDigest == long(CURLAUTH_DIGEST));
constexpr long kAnyScheme = kAuthBasic | kAuthDigest;

Client::Client(ClientOptions options) : m_options(std::move(options)), m_authSchemes(kAnyScheme)
{
    static GlobalInit init;
}

Client::~Client() = default;

std::unique_ptr<Client::Handle> Client::take()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_free.empty()) {
            auto h = std::move(m_free.back());
            m_free.pop_back();
            return h;
        }
    }
    return std::make_unique<Handle>();
}

void Client::give(std::unique_ptr<Handle> handle)
{
    std::lock_guard lock(m_mutex);
    m_free.push_back(std::move(handle));
}

Result<Response> Client::perform(const Request &request)
{
    const long schemes = request.authSchemes ? request.authSchemes : m_authSchemes.load();
    auto response = performOnce(request, schemes);
    // A server with areas of both schemes asked for the one not learned: again, with either.
    if (response && response->status == 401 && authenticates() && !request.source && (response->authOffered & ~schemes))
        response = performOnce(request, kAnyScheme);
    return response;
}

Result<Response> Client::performOnce(const Request &request, long authSchemes)
{
    auto handle = take();
    CURL *c = handle->curl;
    if (!c)
        return Error(ErrorKind::Unexpected, "libcurl could not start (is libcurl4 installed? it is loaded at the first request)");
    // Reset clears options but keeps the handle's live connections and TLS sessions.
    curl_easy_reset(c);
    Response response;
    Transfer transfer{&request, &response};
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    std::string url = request.url;
    if (authenticates() && !m_options.user.empty() && m_options.password.empty() && m_options.netrc) {
        // libcurl looks the password up in ~/.netrc for a user named in the URL, not for
        // CURLOPT_USERNAME (which would send an empty password).
        if (const auto scheme = url.find("://"); scheme != std::string::npos)
            url.insert(scheme + 3, percentEncode(m_options.user) + "@");
    }
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, m_options.userAgent.c_str());
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, long(m_options.connectTimeout.count()));
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, long(m_options.stallTimeout.count()));
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    // The path goes out exactly as built (and signed): curl must not squash "/./" or "/../".
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    if (authenticates()) {
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, authSchemes);
        if (!m_options.user.empty() && !m_options.password.empty())
            curl_easy_setopt(c, CURLOPT_USERNAME, m_options.user.c_str());
        if (!m_options.password.empty())
            curl_easy_setopt(c, CURLOPT_PASSWORD, m_options.password.c_str());
        if (m_options.netrc)
            curl_easy_setopt(c, CURLOPT_NETRC, long(CURL_NETRC_OPTIONAL));
    }
    if (m_options.insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &onWrite);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &onHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);

    // A body read by curl as it sends (PUT, and custom methods such as PROPFIND).
    const auto upload = [&] {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        const std::optional<std::uint64_t> size = request.source ? request.sourceSize : request.body.size();
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, size ? curl_off_t(*size) : curl_off_t(-1));
        curl_easy_setopt(c, CURLOPT_READFUNCTION, &onRead);
        curl_easy_setopt(c, CURLOPT_READDATA, &transfer);
        curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, &onSeek);
        curl_easy_setopt(c, CURLOPT_SEEKDATA, &transfer);
    };
    if (request.method == "HEAD") {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (request.method == "PUT") {
        upload();
    } else if (request.method == "POST") {
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, reinterpret_cast<const char *>(request.body.data()));
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
    } else if (request.method != "GET") {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
        if (!request.body.empty() || request.source)
            upload();
    }
    curl_slist *headers = nullptr;
    // No "Expect: 100-continue" round trip before bodies; no default Accept.
    headers = curl_slist_append(headers, "Expect:");
    for (const auto &[name, value] : request.headers) {
        const std::string line = value.empty() ? name + ";" : name + ": " + value;
        headers = curl_slist_append(headers, line.c_str());
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

    const CURLcode code = curl_easy_perform(c);
    curl_slist_free_all(headers);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
    response.authOffered = transfer.offered;
    if (authenticates() && code == CURLE_OK && response.status != 401 && transfer.offered != 0) {
        const long seen = m_seenSchemes.fetch_or(transfer.offered) | transfer.offered;
        m_authSchemes = seen == kAuthBasic || seen == kAuthDigest ? seen : kAnyScheme;
    }
    if (response.emptyRange) {
        handle.reset(); // the connection still owes a byte: never reuse it
        response.body.clear();
        response.received = 0;
        return response;
    }
    if (code == CURLE_WRITE_ERROR && response.sinkStopped) {
        handle.reset(); // the rest of the body is still on the wire
        return response;
    }
    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && response.overflow)) {
        // A failed handle may hold a broken connection: drop it rather than reuse it.
        handle.reset();
        if (code == CURLE_WRITE_ERROR && request.into.empty())
            return Error(ErrorKind::Corrupt, "the server's answer is larger than expected");
        return transportError(code, errorBuffer, request.url);
    }
    give(std::move(handle));
    return response;
}

} // namespace strata::http

#include "backends/http/http_client.h"

#include "backends/http/response_body.h"
#include "backends/http/stall_clock.h"
#include "core/storage/first_byte.h"
#include "core/storage/printable.h"
#include "core/storage/uri.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace strata::http {

namespace {

// Buffers of small requests: curl's default receive buffer (16 KiB) and its smallest upload
// buffer (16 KiB; the default is 64 KiB). libcurl 7.88 allocates both for every transfer
// and frees them at its end (curl 8 keeps them), so they are most of the bytes a small
// request allocates.
constexpr long kReceiveBuffer = 16 << 10;
constexpr long kUploadBuffer = 16 << 10;
// A body of a MiB or more is received through libcurl 7.88's largest receive buffer (512 KiB:
// with the default, 64 MiB on loopback cost ~4100 recv calls, each with a poll) and sent
// through its default upload buffer (64 KiB: 1 MiB measured no faster on s3rver or lighttpd,
// 4 and 16 MiB PUTs, and cost 1 MiB more per request).
constexpr long kLargeReceiveBuffer = 512 << 10;
constexpr long kLargeUploadBuffer = 64 << 10;
constexpr std::uint64_t kLargeBody = 1u << 20;

// Which way a large body goes, if any: only that direction gets the larger buffer (a PUT of
// 16 MiB is answered by headers alone and needs no 512 KiB receive buffer).
struct Buffers {
    bool largeReceive = false;
    bool largeUpload = false;
    bool operator==(const Buffers &) const = default;
};

Buffers buffersFor(const Request &request)
{
    return {
        .largeReceive = request.into.size() >= kLargeBody,
        .largeUpload = request.body.size() >= kLargeBody
            || (request.source && (!request.sourceSize || *request.sourceSize >= kLargeBody)),
    };
}

struct Transfer {
    const Request *request = nullptr;
    Response *response = nullptr;
    ResponseBody body;
    std::size_t sent = 0;
    long offered = 0; // CURLAUTH_* schemes a 401 answer named
    StallClock clock = StallClock();
    std::chrono::steady_clock::time_point firstHeader{}; // the answer's status line arrived
    const curl_socket_t *socket = nullptr;               // the handle's latest connection (ackHeaders)
};

// At the end of an answer's headers, their ACK goes now, not up to 40 ms later. A server
// that writes the headers and the body separately with Nagle's algorithm on (Ceph's
// radosgw by default: beast's tcp_nodelay is off) holds the body back until that ACK,
// and Linux delays it while the connection looks interactive: every answer with a body
// (a listing, a multipart upload's id and its completion) waited 40 ms. TCP_QUICKACK sends
// an ACK that is due at once (it is not sticky; each answer sets it again).
// libcurl 7.88's CURLINFO_ACTIVESOCKET names a connection only once a transfer is done, so
// each handle notes the socket it last made (a handle keeps one connection; were it another,
// the hint would only go to an idle one).
void ackHeaders(const curl_socket_t *socket)
{
    if (socket && *socket != CURL_SOCKET_BAD) {
        const int one = 1;
        ::setsockopt(*socket, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
    }
}

int noteSocket(void *latest, curl_socket_t fd, curlsocktype purpose)
{
    if (purpose == CURLSOCKTYPE_IPCXN)
        *static_cast<curl_socket_t *>(latest) = fd;
    return CURL_SOCKOPT_OK;
}

std::size_t onWrite(char *data, std::size_t size, std::size_t count, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    first_byte::note(); // a benchmark's time to first byte (first_byte.h)
    // Any answer but "more" ends the transfer (curl reports a write error, which the
    // caller reads from the response: overflow, sinkStopped, or too large).
    return t->body.take(data, size * count) == ResponseBody::Took::More ? size * count : 0;
}

std::size_t onRead(char *buffer, std::size_t size, std::size_t count, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    if (t->request->source) {
        const std::size_t n = t->request->source({reinterpret_cast<std::byte *>(buffer), size * count});
        t->clock.moved(); // the wait for our own producer was not the server's silence
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
    t->clock.moved();
    std::string_view line(data, size * count);
    if (line == "\r\n" || line == "\n") {
        ackHeaders(t->socket);
        return size * count;
    }
    if (line.starts_with("HTTP/")) {
        if (t->firstHeader == std::chrono::steady_clock::time_point{})
            t->firstHeader = std::chrono::steady_clock::now();
        t->response->headers.clear(); // a new response (after 100-continue or a redirect)
        // "HTTP/1.1 206 Partial Content": the status decides where the body goes.
        const auto space = line.find(' ');
        long status = 0;
        if (space != std::string_view::npos)
            std::from_chars(line.data() + space + 1, line.data() + line.size(), status);
        t->response->status = status;
    }
    // "Content-Range: bytes 0-0/0": a range of an empty object. Some servers (s3rver)
    // then announce a byte they never send; stop here instead of waiting for it.
    if (line.size() > 14 && (line.starts_with("Content-Range:") || line.starts_with("content-range:"))
        && line.find("/0\r") != std::string_view::npos) {
        t->response->emptyRange = true;
        return 0;
    }
    if (startsWithLower(line, "www-authenticate:")) {
        std::string_view scheme = line.substr(17);
        scheme.remove_prefix(std::min(scheme.size(), scheme.find_first_not_of(" \t")));
        if (startsWithLower(scheme, "basic"))
            t->offered |= kAuthBasic;
        else if (startsWithLower(scheme, "digest"))
            t->offered |= kAuthDigest;
    }
    auto colon = line.find(':');
    if (colon != std::string_view::npos) {
        auto value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
            value.remove_prefix(1);
        while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
            value.remove_suffix(1);
        t->response->headers.keep(line.substr(0, colon), value);
        if (t->request->allHeaders) {
            std::string name(line.substr(0, colon));
            for (char &c : name)
                c = char(std::tolower(static_cast<unsigned char>(c)));
            t->response->allHeaders.emplace_back(std::move(name), std::string(value));
        }
    } else if (t->request->allHeaders && line.starts_with("HTTP/")) {
        t->response->allHeaders.clear(); // a new answer (after a 100 Continue or a redirect)
    }
    return size * count;
}

curl_socket_t openSocket(void *sockets, curlsocktype, curl_sockaddr *address)
{
    const int fd = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0)
        return CURL_SOCKET_BAD;
    static_cast<SocketWatch *>(sockets)->add(fd);
    return fd;
}

int closeSocket(void *sockets, curl_socket_t fd)
{
    static_cast<SocketWatch *>(sockets)->remove(fd);
    return ::close(fd);
}

} // namespace

void watchSockets(void *handle, SocketWatch &sockets)
{
    CURL *c = static_cast<CURL *>(handle);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, &openSocket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &sockets);
    curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, &closeSocket);
    curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, &sockets);
}

void initialiseCurl()
{
    // curl_global_init is not thread-safe in libcurl 7.88: once, before the first handle.
    static const bool once = [] { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }();
    (void)once;
}

namespace {

// A transport failure, named after the host of url.
// `stalled`: the request moved nothing for that long (onProgress ended it).
Error transportError(CURLcode code, const char *detail, std::string_view url,
                     std::optional<std::chrono::seconds> stalled)
{
    std::string host(url);
    if (auto p = host.find("://"); p != std::string::npos)
        host = host.substr(p + 3);
    host = host.substr(0, host.find('/'));
    const std::string why = std::string(*detail ? detail : curl_easy_strerror(code));
    if (stalled)
        return noAnswer(host, *stalled);
    switch (code) {
    case CURLE_COULDNT_CONNECT:
        return Error(ErrorKind::Network, "cannot connect to " + host + ": " + why).setTemporary(true);
    case CURLE_COULDNT_RESOLVE_HOST: return Error(ErrorKind::Network, "cannot find the host " + host + ": " + why);
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
    case CURLE_SEND_FAIL_REWIND:
        // A streamed upload whose connection died after part of it went out (onSeek): the
        // same upload, tried again from its start, may well succeed.
        return Error(ErrorKind::Network, "the connection to " + host + " broke during an upload").setTemporary(true);
    default: return Error(ErrorKind::Network, "talking to " + host + " failed: " + why).setTemporary(false);
    }
}

} // namespace

void KeptHeaders::clear()
{
    m_slots = {};
    m_used = 0;
    m_spill.clear();
}

void KeptHeaders::keep(std::string_view name, std::string_view value)
{
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        if (!equalsLower(name, kNames[i]))
            continue;
        Slot &slot = m_slots[i];
        slot.spilled = m_used + value.size() > m_text.size();
        if (slot.spilled && m_spill.size() + value.size() > kMaxSpill) {
            slot.set = false; // hundreds of KiB of one header: not a value to trust
            return;
        }
        slot.set = true;
        slot.size = std::uint32_t(value.size());
        if (slot.spilled) {
            slot.offset = std::uint32_t(m_spill.size());
            m_spill.append(value);
        } else {
            slot.offset = m_used;
            std::memcpy(m_text.data() + m_used, value.data(), value.size());
            m_used += slot.size;
        }
        return;
    }
}

std::string_view KeptHeaders::get(std::string_view lowerName) const
{
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        if (kNames[i] != lowerName || !m_slots[i].set)
            continue;
        const Slot &slot = m_slots[i];
        return slot.spilled ? std::string_view(m_spill).substr(slot.offset, slot.size)
                            : std::string_view(m_text.data() + slot.offset, slot.size);
    }
    return {};
}

std::string_view Response::header(std::string_view name) const
{
    for (std::string_view known : KeptHeaders::kNames)
        if (equalsLower(name, known))
            return headers.get(known);
    return {};
}

// An easy handle with what its requests reuse: the options that never change are set once
// (no curl_easy_reset, which would free and re-copy them every request), and the header
// lines and their curl_slist nodes keep their capacity. CURLOPT_HTTPHEADER does not copy
// the list, and struct curl_slist is public, so the nodes can be ours.
struct Client::Handle {
    CURL *curl = nullptr;
    Transfer transfer;
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    std::string url;                        // CURLOPT_URL wants a terminated string
    std::string lines;                      // header lines, each ending with '\0'
    std::vector<curl_slist> nodes;          // over `lines`
    long authSchemes = -1;                  // offered by the last request (-1: none yet, -2: it ended in a 401)
    Buffers buffers;                        // the buffer sizes set
    curl_socket_t socket = CURL_SOCKET_BAD; // the connection it made last (ackHeaders)

    CURLM *multi = nullptr; // its own, as curl_easy_perform keeps one: the connection cache
    SocketWatch &sockets;   // the client's

    Handle(const ClientOptions &options, SocketWatch &watch)
        : curl(curl_easy_init()), multi(curl_multi_init()), sockets(watch)
    {
        if (curl)
            configure(options);
    }
    ~Handle()
    {
        if (multi)
            curl_multi_cleanup(multi); // closes the connection it kept
        if (curl)
            curl_easy_cleanup(curl);
    }
    // Runs the request set on `curl` to its end: libcurl's easy loop, looking at the stall
    // clock and the hang-up at least every 250 ms (curl_easy_perform's progress callback
    // comes once a second when nothing moves).
    CURLcode run();
    void configure(const ClientOptions &options);
    void setMethod(const Request &request);
    void setHeaders(const Request &request, std::string_view userAgentLine);
    void setBuffers(Buffers wanted)
    {
        buffers = wanted;
        curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, wanted.largeReceive ? kLargeReceiveBuffer : kReceiveBuffer);
        curl_easy_setopt(curl, CURLOPT_UPLOAD_BUFFERSIZE, wanted.largeUpload ? kLargeUploadBuffer : kUploadBuffer);
    }
};

bool Response::htmlBody() const
{
    const auto start = body.find_first_not_of(" \t\r\n");
    if (start == std::string::npos)
        return false;
    const std::string_view text = std::string_view(body).substr(start);
    return startsWithLower(text, "<!doctype html") || startsWithLower(text, "<html");
}

void Client::Handle::configure(const ClientOptions &options)
{
    CURL *c = curl;
    watchSockets(c, sockets);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, long(options.connectTimeout.count()));
    // Less than a byte a second over the stall time (a server that drips) fails too. One
    // that stops dead fails by the transfer's clock (run()), a second sooner: it is said
    // as what it is.
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                     long(options.stallTimeout.count() > 0 ? options.stallTimeout.count() + 1 : 0));
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    // The path goes out exactly as built (and signed): curl must not squash "/./" or "/../".
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    if (options.insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    // Without CURLOPT_NOPROXY, curl copies no_proxy out of the environment for every
    // request; the same value, read once per handle, keeps the environment's meaning.
    for (const char *name : {"no_proxy", "NO_PROXY"}) {
        if (const char *value = std::getenv(name)) {
            curl_easy_setopt(c, CURLOPT_NOPROXY, value);
            break;
        }
    }
    setBuffers({});
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &onWrite);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(c, CURLOPT_SOCKOPTFUNCTION, &noteSocket);
    curl_easy_setopt(c, CURLOPT_SOCKOPTDATA, &socket);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &onHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, &onRead);
    curl_easy_setopt(c, CURLOPT_READDATA, &transfer);
    curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, &onSeek);
    curl_easy_setopt(c, CURLOPT_SEEKDATA, &transfer);
    // Credentials are the client's, the same for every request; the schemes to offer are
    // set per request (perform()).
    if (!options.user.empty() && !options.password.empty())
        curl_easy_setopt(c, CURLOPT_USERNAME, options.user.c_str());
    if (!options.password.empty())
        curl_easy_setopt(c, CURLOPT_PASSWORD, options.password.c_str());
    if (options.netrc)
        curl_easy_setopt(c, CURLOPT_NETRC, long(CURL_NETRC_OPTIONAL));
}

void Client::Handle::setMethod(const Request &request)
{
    CURL *c = curl;
    // Back to a plain GET first: the handle keeps the previous request's method options.
    // (CURLOPT_POSTFIELDS makes the method POST, so it is cleared before HTTPGET.)
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, static_cast<const char *>(nullptr));
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(-1));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, static_cast<const char *>(nullptr));
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    // A body read by curl as it sends (PUT, and custom methods such as PROPFIND), from
    // memory or produced as it goes (request.source, of announced size or chunked).
    const auto upload = [&] {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        const std::optional<std::uint64_t> size = request.source ? request.sourceSize : request.body.size();
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, size ? curl_off_t(*size) : curl_off_t(-1));
    };
    if (request.method == "GET")
        return;
    if (request.method == "HEAD") {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (request.method == "PUT") {
        upload();
    } else if (request.method == "POST") {
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, reinterpret_cast<const char *>(request.body.data()));
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
    } else {
        if (!request.body.empty() || request.source)
            upload();
        char method[16] = {0}; // DELETE and the like; curl copies it
        request.method.copy(method, sizeof method - 1);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    }
}

void Client::Handle::setHeaders(const Request &request, std::string_view userAgentLine)
{
    // No "Expect: 100-continue" round trip before bodies, no default Accept; the user agent
    // as one of our lines (with CURLOPT_USERAGENT curl formats it anew every request).
    lines.clear();
    const auto line = [&](std::string_view a, std::string_view b = {}, std::string_view c = {}) {
        lines.append(a).append(b).append(c).push_back('\0');
    };
    line("Expect:");
    line("Accept:");
    line(userAgentLine);
    for (const HeaderRef &h : request.headers) {
        if (h.value.empty())
            line(h.name, ";");
        else
            line(h.name, ": ", h.value);
    }
    nodes.resize(3 + request.headers.size());
    char *at = lines.data();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        nodes[i].data = at;
        nodes[i].next = i + 1 < nodes.size() ? &nodes[i + 1] : nullptr;
        at += std::strlen(at) + 1;
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nodes.data());
}

CURLcode Client::Handle::run()
{
    if (!multi || curl_multi_add_handle(multi, curl) != CURLM_OK)
        return CURLE_FAILED_INIT;
    CURLcode rc = CURLE_FAILED_INIT;
    for (;;) {
        int running = 0;
        if (curl_multi_perform(multi, &running) != CURLM_OK)
            break;
        bool done = false;
        int left = 0;
        while (CURLMsg *msg = curl_multi_info_read(multi, &left))
            if (msg->msg == CURLMSG_DONE) {
                rc = msg->data.result;
                done = true;
            }
        if (done || !running)
            break;
        curl_off_t received = 0, sent = 0;
        curl_easy_getinfo(curl, CURLINFO_SIZE_DOWNLOAD_T, &received);
        curl_easy_getinfo(curl, CURLINFO_SIZE_UPLOAD_T, &sent);
        transfer.clock.count(std::uint64_t(received) + std::uint64_t(sent));
        // Nothing moved for the stall time, or the process is ending: the request ends here.
        if (sockets.hungUp() || transfer.clock.expired()) {
            rc = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (curl_multi_poll(multi, nullptr, 0, 250, nullptr) != CURLM_OK)
            break;
    }
    curl_multi_remove_handle(multi, curl);
    return rc;
}

static_assert(kAuthBasic == long(CURLAUTH_BASIC) && kAuthDigest == long(CURLAUTH_DIGEST));
constexpr long kAnyScheme = kAuthBasic | kAuthDigest;

ClientOptions ClientOptions::forUri(bool insecure, int timeoutSeconds)
{
    ClientOptions options;
    options.insecure = insecure;
    options.stallTimeout = std::chrono::seconds(timeoutSeconds);
    options.connectTimeout = std::chrono::seconds(std::min(timeoutSeconds, 10));
    return options;
}

Client::Client(ClientOptions options)
    : m_options(std::move(options)), m_userAgentLine("User-Agent: " + m_options.userAgent), m_authSchemes(kAnyScheme)
{
    initialiseCurl();
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
    return std::make_unique<Handle>(m_options, m_sockets);
}

void Client::give(std::unique_ptr<Handle> handle)
{
    std::lock_guard lock(m_mutex);
    m_free.push_back(std::move(handle));
}

Result<Response> Client::perform(const Request &request)
{
    // libcurl sends header lines as given: a line break in a name or value (user metadata,
    // a name taken from a listing) would add headers of the caller's choosing.
    for (const HeaderRef &h : request.headers) {
        const auto broken = [](std::string_view text) {
            return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
        };
        if (broken(h.name) || broken(h.value) || h.name.find(':') != std::string_view::npos)
            return Error(ErrorKind::InvalidInput, "an HTTP header may not hold a line break: " + printable(h.name));
    }
    const long schemes = request.authSchemes ? request.authSchemes : m_authSchemes.load();
    auto response = performOnce(request, schemes);
    // A server with areas of both schemes asked for the one not learned: again, with either.
    if (response && response->status == 401 && authenticates() && !request.source && (response->authOffered & ~schemes))
        response = performOnce(request, kAnyScheme);
    return response;
}

Result<Response> Client::performOnce(const Request &request, long authSchemes)
{
    if (m_sockets.hungUp())
        return interrupted();
    auto handle = take();
    CURL *c = handle->curl;
    if (!c)
        return Error(ErrorKind::Unexpected, "libcurl could not start a transfer (out of memory?)");
    Response response;
    if (authenticates()) {
        // curl keeps what it negotiated on a handle (the scheme it picked, a failed
        // attempt) across requests; with other schemes to offer, or after a refusal, the
        // handle starts from scratch (only then: a reset costs a re-configuration).
        if (handle->authSchemes != authSchemes && handle->authSchemes != -1) {
            curl_easy_reset(c);
            handle->configure(m_options);
        }
        handle->authSchemes = authSchemes;
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, authSchemes);
    }
    handle->transfer = Transfer{&request, &response, ResponseBody(&request, &response)};
    handle->transfer.socket = &handle->socket;
    handle->transfer.clock = StallClock(m_options.stallTimeout);
    handle->errorBuffer[0] = '\0';
    handle->url.assign(request.url);
    if (authenticates() && !m_options.user.empty() && m_options.password.empty() && m_options.netrc) {
        // libcurl looks the password up in ~/.netrc for a user named in the URL, not for
        // CURLOPT_USERNAME (which would send an empty password).
        if (const auto scheme = handle->url.find("://"); scheme != std::string::npos)
            handle->url.insert(scheme + 3, percentEncode(m_options.user) + "@");
    }
    curl_easy_setopt(c, CURLOPT_URL, handle->url.c_str());
    handle->setMethod(request);
    handle->setHeaders(request, m_userAgentLine);
    if (const Buffers wanted = buffersFor(request); !(wanted == handle->buffers))
        handle->setBuffers(wanted);

    const auto started = std::chrono::steady_clock::now();
    const CURLcode code = handle->run();
    const long offered = handle->transfer.offered;
    const bool stalled = handle->transfer.clock.hasExpired();
    const auto firstHeader = handle->transfer.firstHeader;
    handle->transfer = Transfer{}; // the request and response are the caller's: no dangling pointers
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
    // The wait for the answer, timed by its status line: libcurl 7.88's STARTTRANSFER
    // marks a request with a body (a PROPFIND's, a PUT's) as soon as that body starts out,
    // 2 us after it was sent, which made every WebDAV server look nearby. A body of more
    // than a few packets is not timed (the answer waits for all of it).
    const bool shortBody = request.body.size() <= 64 * 1024 && !request.source;
    if (code == CURLE_OK && shortBody && firstHeader != std::chrono::steady_clock::time_point{}) {
        curl_off_t sent = 0; // microseconds from the request's start (connected, ready to send)
        curl_easy_getinfo(c, CURLINFO_PRETRANSFER_TIME_T, &sent);
        const std::int64_t answered =
            std::chrono::duration_cast<std::chrono::microseconds>(firstHeader - started).count();
        if (answered > sent && sent > 0) {
            std::int64_t shortest = m_shortestAnswerUs.load(std::memory_order_relaxed);
            while (answered - sent < shortest
                   && !m_shortestAnswerUs.compare_exchange_weak(shortest, answered - sent, std::memory_order_relaxed)) {
            }
        }
    }
    if (response.status == 401)
        handle->authSchemes = -2;
    response.authOffered = offered;
    if (authenticates() && code == CURLE_OK && response.status != 401 && offered != 0) {
        const long seen = m_seenSchemes.fetch_or(offered) | offered;
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
        const std::string detail(handle->errorBuffer);
        handle.reset();
        if (code == CURLE_WRITE_ERROR && request.into.empty())
            return Error(ErrorKind::Corrupt, "the server's answer is larger than expected");
        if (m_sockets.hungUp())
            return interrupted();
        return transportError(code, detail.c_str(), request.url,
                              stalled ? std::optional(m_options.stallTimeout) : std::nullopt);
    }
    give(std::move(handle));
    return response;
}

} // namespace strata::http

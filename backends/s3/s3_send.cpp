// Sending one S3 call (and turning a non-2xx answer into an error): the path, query and
// headers are built, signed and handed to the HTTP client in buffers reused by every
// request of a thread.
#include "backends/s3/s3_backend.h"

#include "backends/s3/s3_xml.h"
#include "backends/s3/sha256.h"

#include <cstdio>

namespace strata::s3 {

namespace {

// Small bodies are hashed for the signature (into hex, which the view may point at);
// large ones are sent UNSIGNED-PAYLOAD so the bytes are not read twice.
std::string_view payloadHashOf(std::span<const std::byte> body, HexDigest &hex)
{
    if (body.empty())
        return kEmptyPayloadHash;
    if (body.size() > (256u << 10))
        return kUnsignedPayload;
    hex = hexOf(sha256({reinterpret_cast<const char *>(body.data()), body.size()}));
    return view(hex);
}

} // namespace

Error keyTooLong()
{
    return Error(ErrorKind::InvalidInput, "S3 keys are at most 1024 bytes");
}

Result<http::Response> S3Backend::send(const Call &call)
{
    if (call.key.size() > kMaxKeyBytes)
        return keyTooLong();
    // The buffers of a request, kept per thread with their capacity: building, signing and
    // sending a request allocates nothing once they have grown (and the backend is used
    // from many threads at once, so they cannot be members).
    struct Scratch {
        Signer signer;
        std::string path, url;
        std::vector<HeaderRef> query, headers;
        std::vector<http::HeaderRef> sent;
    };
    thread_local Scratch s;
    s.path.clear();
    s.path += '/';
    if (m_config.pathStyle) {
        s.path += m_config.bucket;
        if (!call.bucketRoot)
            s.path += '/';
    }
    if (!call.bucketRoot || !m_config.pathStyle)
        s.path += call.key;
    s.query.clear();
    for (const auto &[name, value] : call.query)
        s.query.push_back({name, value});
    if (!m_config.versionId.empty() && !call.bucketRoot) // a pinned version (Config::versionId)
        s.query.push_back({"versionId", m_config.versionId});
    s.headers.clear();
    for (const auto &[name, value] : call.headers)
        s.headers.push_back({name, value});
    char range[48];
    if (call.range) {
        const int n =
            std::snprintf(range, sizeof range, "bytes=%llu-%llu", static_cast<unsigned long long>(call.range->first),
                          static_cast<unsigned long long>(call.range->second));
        s.headers.push_back({"range", std::string_view(range, std::size_t(n))});
    }
    HexDigest bodyHash;
    const std::string_view payloadHash = payloadHashOf(call.body, bodyHash);
    const RequestRef request{call.method, m_host, s.path, s.query, s.headers, payloadHash};
    const auto signerHeaders =
        s.signer.sign(request, m_credentials, m_config.region, "s3", std::chrono::system_clock::now());

    s.url.assign(m_config.scheme).append("://").append(m_host).append(s.signer.encodedPath());
    if (!s.signer.encodedQuery().empty())
        s.url.append("?").append(s.signer.encodedQuery());
    s.sent.clear();
    for (const HeaderRef &h : s.headers)
        s.sent.push_back({h.name, h.value});
    for (const HeaderRef &h : signerHeaders)
        s.sent.push_back({h.name, h.value});
    http::Request http;
    http.method = call.method;
    http.url = s.url;
    http.headers = s.sent;
    http.body = call.body;
    http.into = call.into;
    http.skip = call.skip;
    http.allHeaders = call.allHeaders;
    return m_client->perform(http);
}

Result<http::Response> S3Backend::sendOk(const Call &call)
{
    auto response = send(call);
    if (!response)
        return response;
    if (response->status < 200 || response->status >= 300)
        return s3Error(*response, m_config.bucket);
    return response;
}

} // namespace strata::s3

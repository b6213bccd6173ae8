#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// AWS Signature Version 4 for S3 requests sent with an Authorization header.
// Everything here is a pure function of its inputs (time included), so the backend signs
// and the tests check the AWS published examples with the same code.
namespace strata::s3 {

struct Credentials {
    std::string accessKeyId;
    std::string secretAccessKey;
    std::string sessionToken;
    bool anonymous() const { return accessKeyId.empty(); }
};

using Header = std::pair<std::string, std::string>;

// A header or query parameter by reference (the caller keeps the bytes alive).
struct HeaderRef {
    std::string_view name;
    std::string_view value;
};

struct SignedRequest {
    std::string method;          // "GET"
    std::string host;            // "bucket.s3.amazonaws.com", "127.0.0.1:4569": port when not default
    std::string path;            // raw UTF-8 ("/bucket/a b/ü"); the signer encodes it
    std::vector<Header> query;   // decoded pairs in any order; a bare name has value ""
    std::vector<Header> headers; // extra headers to sign ("range", "content-type"...), names any case
    std::string payloadHash;     // hex sha256 of the body or "UNSIGNED-PAYLOAD"; empty = empty body
};

// SignedRequest by reference: what the backend signs, without copying anything.
struct RequestRef {
    std::string_view method;
    std::string_view host;
    std::string_view path;
    std::span<const HeaderRef> query;
    std::span<const HeaderRef> headers;
    std::string_view payloadHash;
};

// Signs requests in buffers it keeps between calls: once they have grown to a request's
// size, signing allocates nothing (the backend keeps one Signer per thread). The views it
// returns stay valid until the next sign().
class Signer {
public:
    // The headers to send besides the request's own: "Authorization", "x-amz-date",
    // "x-amz-content-sha256" and, with a session token, "x-amz-security-token". Anonymous
    // credentials give only "x-amz-content-sha256". Headers in request.headers named like
    // these (or "host") are not signed: the signer's values are the ones sent.
    std::span<const HeaderRef> sign(const RequestRef &request, const Credentials &credentials, std::string_view region,
                                    std::string_view service, std::chrono::system_clock::time_point now);
    // The request's path and query as signed, which is how they must appear in the URL.
    std::string_view encodedPath() const;
    std::string_view encodedQuery() const; // "" when none

    // The canonical request of request with exactly allSignedHeaders (see canonicalRequest).
    const std::string &canonicalize(const RequestRef &request, std::span<const HeaderRef> allSignedHeaders);

private:
    struct Entry {
        std::uint32_t name, nameSize, value, valueSize; // in m_work
    };
    void addCanonicalQuery(std::span<const HeaderRef> query);
    // own all signed; extra signed except those named like the signer's own headers.
    void addCanonicalHeaders(std::span<const HeaderRef> own, std::span<const HeaderRef> extra);
    void build(const RequestRef &request, std::span<const HeaderRef> own, std::span<const HeaderRef> extra);
    std::string_view nameOf(const Entry &e) const;
    std::string_view valueOf(const Entry &e) const;

    std::string m_canonical;   // the canonical request
    std::string m_work;        // encoded query pairs, then normalised headers, then the string to sign
    std::string m_signedNames; // "host;range;x-amz-date"
    std::string m_authorization;
    std::vector<Entry> m_entries;
    std::size_t m_pathAt = 0, m_pathSize = 0, m_queryAt = 0, m_querySize = 0;
    char m_date[16] = {}; // "20130524T000000Z"
    std::array<char, 64> m_payloadHash = {};
    std::size_t m_payloadHashSize = 0;
    std::array<HeaderRef, 4> m_out;
};

// The same as Signer::sign, with copies: for tests and rare callers.
std::vector<Header> signV4(const SignedRequest &request, const Credentials &credentials, std::string_view region,
                           std::string_view service, std::chrono::system_clock::time_point now);

// AWS UriEncode: A-Za-z0-9 - . _ ~ kept, every other byte %XX (uppercase); '/' kept
// unless encodeSlash. Independent of the C locale.
std::string uriEncode(std::string_view text, bool encodeSlash);
void appendUriEncoded(std::string &out, std::string_view text, bool encodeSlash);
// The path as signed and as it must appear in the URL: encoded once, never normalised
// ("a//b", "../" stay as they are), "/" when empty, a leading '/' added when missing.
std::string canonicalUri(std::string_view path);
void appendCanonicalUri(std::string &out, std::string_view path);
// Names and values uriEncode'd (slash included), sorted by name then value, joined by
// '&'; a bare name becomes "name=". Also the query string to put in the URL.
std::string canonicalQueryString(const std::vector<Header> &query);
// Signs exactly allSignedHeaders (host and x-amz-* included, names any case, repeated
// names joined by ','); request.host and request.headers are not read here.
std::string canonicalRequest(const SignedRequest &request, const std::vector<Header> &allSignedHeaders);

// "20130524/us-east-1/s3/aws4_request"
std::string credentialScope(std::string_view yyyymmdd, std::string_view region, std::string_view service);
std::string stringToSign(std::string_view amzDate, std::string_view scope, std::string_view canonicalRequest);
// The raw 32-byte key: HMAC chain "AWS4"+secret -> date -> region -> service -> "aws4_request".
std::string signingKey(std::string_view secretAccessKey, std::string_view yyyymmdd, std::string_view region,
                       std::string_view service);
std::string hmacSha256Hex(std::string_view key, std::string_view data);

std::string sha256Hex(std::string_view data);
// The query string of a presigned GET (AWS's "authenticating requests: using query
// parameters"): request.query plus X-Amz-Algorithm, -Credential, -Date, -Expires,
// -SignedHeaders (host) and -Security-Token, then X-Amz-Signature; the payload unsigned.
std::string presignedQuery(const SignedRequest &request, const Credentials &credentials, std::string_view region,
                           std::string_view service, std::chrono::system_clock::time_point now,
                           std::chrono::seconds expires);
// "20130524T000000Z" (UTC, whole seconds)
std::string amzDate(std::chrono::system_clock::time_point t);

inline constexpr std::string_view kEmptyPayloadHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

} // namespace strata::s3

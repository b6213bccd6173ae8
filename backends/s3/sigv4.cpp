#include "backends/s3/sigv4.h"

#include "backends/s3/sha256.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>

namespace strata::s3 {

namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

// ASCII only, on purpose: std::tolower/isalnum follow the locale Qt sets at startup.
bool isUnreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
        || c == '_' || c == '~';
}

char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// AWS "Trimall" onto out: no leading or trailing white space, inner runs become one space;
// lowercased too when lower. Returns the number of bytes added.
std::size_t appendTrimmed(std::string &out, std::string_view value, bool lower)
{
    const std::size_t from = out.size();
    bool pendingSpace = false;
    for (char c : value) {
        if (isSpace(c)) {
            pendingSpace = out.size() > from;
            continue;
        }
        if (pendingSpace)
            out += ' ';
        pendingSpace = false;
        out += lower ? asciiLower(c) : c;
    }
    return out.size() - from;
}

bool isSignerOwned(std::string_view lowerName)
{
    return lowerName == "host" || lowerName == "authorization" || lowerName == "x-amz-date"
        || lowerName == "x-amz-content-sha256" || lowerName == "x-amz-security-token";
}

// The parts with sep between them (none after the last), appended to out.
void appendJoined(std::string &out, std::initializer_list<std::string_view> parts, char sep)
{
    bool first = true;
    for (std::string_view part : parts) {
        if (!first)
            out += sep;
        first = false;
        out += part;
    }
}

std::string joined(std::initializer_list<std::string_view> parts, char sep)
{
    std::string out;
    appendJoined(out, parts, sep);
    return out;
}

// "20130524T000000Z" into 16 chars (snprintf of integers does not allocate).
void formatAmzDate(std::chrono::system_clock::time_point t, char (&out)[16])
{
    using namespace std::chrono;
    const auto secs = floor<seconds>(t);
    const auto day = floor<days>(secs);
    const year_month_day ymd{day};
    const hh_mm_ss hms{secs - day};
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d%02u%02uT%02d%02d%02dZ", int(ymd.year()) % 10000, unsigned(ymd.month()),
                  unsigned(ymd.day()), int(hms.hours().count()), int(hms.minutes().count()),
                  int(hms.seconds().count()));
    std::copy_n(buf, 16, out);
}

// The signing key changes once a day per credentials, region and service: derived once
// per thread and day rather than with four HMACs per request.
const Digest &cachedSigningKey(std::string_view secretAccessKey, std::string_view yyyymmdd, std::string_view region,
                               std::string_view service)
{
    struct Cache {
        std::string secret, day, region, service;
        Digest key{};
        bool set = false;
    };
    thread_local Cache cache;
    if (!cache.set || cache.secret != secretAccessKey || cache.day != yyyymmdd || cache.region != region
        || cache.service != service) {
        const std::string key = signingKey(secretAccessKey, yyyymmdd, region, service);
        std::copy_n(reinterpret_cast<const unsigned char *>(key.data()), cache.key.size(), cache.key.begin());
        cache.secret.assign(secretAccessKey);
        cache.day.assign(yyyymmdd);
        cache.region.assign(region);
        cache.service.assign(service);
        cache.set = true;
    }
    return cache.key;
}

std::vector<HeaderRef> refsOf(const std::vector<Header> &pairs)
{
    std::vector<HeaderRef> out;
    out.reserve(pairs.size());
    for (const auto &[name, value] : pairs)
        out.push_back({name, value});
    return out;
}

RequestRef refOf(const SignedRequest &r, const std::vector<HeaderRef> &query, const std::vector<HeaderRef> &headers)
{
    return {r.method, r.host, r.path, query, headers, r.payloadHash};
}

} // namespace

void appendUriEncoded(std::string &out, std::string_view text, bool encodeSlash)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    for (unsigned char c : text) {
        if (isUnreserved(c) || (c == '/' && !encodeSlash)) {
            out += char(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
}

void appendCanonicalUri(std::string &out, std::string_view path)
{
    if (!path.starts_with('/'))
        out += '/';
    appendUriEncoded(out, path, false);
}

std::string uriEncode(std::string_view text, bool encodeSlash)
{
    std::string out;
    out.reserve(text.size());
    appendUriEncoded(out, text, encodeSlash);
    return out;
}

std::string_view Signer::nameOf(const Entry &e) const
{
    return std::string_view(m_work).substr(e.name, e.nameSize);
}

std::string_view Signer::valueOf(const Entry &e) const
{
    return std::string_view(m_work).substr(e.value, e.valueSize);
}

void Signer::addCanonicalQuery(std::span<const HeaderRef> query)
{
    m_work.clear();
    m_entries.clear();
    for (const HeaderRef &q : query) {
        Entry e{std::uint32_t(m_work.size()), 0, 0, 0};
        appendUriEncoded(m_work, q.name, true);
        e.nameSize = std::uint32_t(m_work.size() - e.name);
        e.value = std::uint32_t(m_work.size());
        appendUriEncoded(m_work, q.value, true);
        e.valueSize = std::uint32_t(m_work.size() - e.value);
        m_entries.push_back(e);
    }
    // By encoded name, then value. An insertion sort: a handful of entries, and no
    // temporary buffer (std::stable_sort allocates one).
    const auto less = [&](const Entry &a, const Entry &b) {
        const int byName = nameOf(a).compare(nameOf(b));
        return byName < 0 || (byName == 0 && valueOf(a) < valueOf(b));
    };
    for (std::size_t i = 1; i < m_entries.size(); ++i)
        for (std::size_t j = i; j > 0 && less(m_entries[j], m_entries[j - 1]); --j)
            std::swap(m_entries[j], m_entries[j - 1]);
    m_queryAt = m_canonical.size();
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        if (i > 0)
            m_canonical += '&';
        m_canonical += nameOf(m_entries[i]);
        m_canonical += '=';
        m_canonical += valueOf(m_entries[i]);
    }
    m_querySize = m_canonical.size() - m_queryAt;
}

void Signer::addCanonicalHeaders(std::span<const HeaderRef> own, std::span<const HeaderRef> extra)
{
    m_work.clear();
    m_entries.clear();
    const auto add = [&](const HeaderRef &h, bool skipSignerOwned) {
        Entry e{std::uint32_t(m_work.size()), 0, 0, 0};
        e.nameSize = std::uint32_t(appendTrimmed(m_work, h.name, true));
        if (skipSignerOwned && isSignerOwned(nameOf(e))) {
            m_work.resize(e.name);
            return;
        }
        e.value = std::uint32_t(m_work.size());
        e.valueSize = std::uint32_t(appendTrimmed(m_work, h.value, false));
        m_entries.push_back(e);
    };
    for (const HeaderRef &h : own)
        add(h, false);
    for (const HeaderRef &h : extra)
        add(h, true);
    // Stable by name: repeated names keep the caller's order when their values are joined.
    for (std::size_t i = 1; i < m_entries.size(); ++i)
        for (std::size_t j = i; j > 0 && nameOf(m_entries[j]) < nameOf(m_entries[j - 1]); --j)
            std::swap(m_entries[j], m_entries[j - 1]);
    m_signedNames.clear();
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const std::string_view name = nameOf(m_entries[i]);
        if (i > 0 && nameOf(m_entries[i - 1]) == name) {
            m_canonical.back() = ','; // "name:a\n" -> "name:a,b\n"
        } else {
            if (!m_signedNames.empty())
                m_signedNames += ';';
            m_signedNames += name;
            m_canonical += name;
            m_canonical += ':';
        }
        m_canonical += valueOf(m_entries[i]);
        m_canonical += '\n';
    }
}

void Signer::build(const RequestRef &request, std::span<const HeaderRef> own, std::span<const HeaderRef> extra)
{
    m_canonical.clear();
    m_canonical += request.method;
    m_canonical += '\n';
    m_pathAt = m_canonical.size();
    appendCanonicalUri(m_canonical, request.path);
    m_pathSize = m_canonical.size() - m_pathAt;
    m_canonical += '\n';
    addCanonicalQuery(request.query);
    m_canonical += '\n';
    addCanonicalHeaders(own, extra);
    // The block ends with '\n', so the separator after it leaves the blank line AWS wants.
    m_canonical += '\n';
    m_canonical += m_signedNames;
    m_canonical += '\n';
    m_canonical += request.payloadHash.empty() ? kEmptyPayloadHash : request.payloadHash;
}

const std::string &Signer::canonicalize(const RequestRef &request, std::span<const HeaderRef> allSignedHeaders)
{
    build(request, allSignedHeaders, {});
    return m_canonical;
}

std::string_view Signer::encodedPath() const
{
    return std::string_view(m_canonical).substr(m_pathAt, m_pathSize);
}

std::string_view Signer::encodedQuery() const
{
    return std::string_view(m_canonical).substr(m_queryAt, m_querySize);
}

std::span<const HeaderRef> Signer::sign(const RequestRef &request, const Credentials &credentials,
                                        std::string_view region, std::string_view service,
                                        std::chrono::system_clock::time_point now)
{
    const std::string_view hash = request.payloadHash.empty() ? kEmptyPayloadHash : request.payloadHash;
    m_payloadHashSize = std::min(hash.size(), m_payloadHash.size());
    std::copy_n(hash.data(), m_payloadHashSize, m_payloadHash.begin());
    const std::string_view payloadHash(m_payloadHash.data(), m_payloadHashSize);
    if (credentials.anonymous()) {
        build(request, {}, {}); // for encodedPath() and encodedQuery()
        m_out[0] = {"x-amz-content-sha256", payloadHash};
        return std::span(m_out).first(1);
    }
    formatAmzDate(now, m_date);
    const std::string_view date(m_date, sizeof m_date);
    const std::string_view day = date.substr(0, 8);

    const std::array<HeaderRef, 4> own = {HeaderRef{"host", request.host},
                                          HeaderRef{"x-amz-content-sha256", payloadHash}, HeaderRef{"x-amz-date", date},
                                          HeaderRef{"x-amz-security-token", credentials.sessionToken}};
    const std::size_t ownCount = credentials.sessionToken.empty() ? 3 : 4;
    build(request, std::span(own).first(ownCount), request.headers);

    // "AWS4-HMAC-SHA256 Credential=AKID/<scope>": the scope is also in the string to sign.
    m_authorization.clear();
    m_authorization += kAlgorithm;
    m_authorization += " Credential=";
    m_authorization += credentials.accessKeyId;
    m_authorization += '/';
    const std::size_t scopeAt = m_authorization.size();
    appendJoined(m_authorization, {day, region, service, "aws4_request"}, '/');
    const std::string_view scope = std::string_view(m_authorization).substr(scopeAt);
    m_work.clear();
    appendJoined(m_work, {kAlgorithm, date, scope, view(hexOf(sha256(m_canonical)))}, '\n');
    const HexDigest signature =
        hexOf(hmacSha256(view(cachedSigningKey(credentials.secretAccessKey, day, region, service)), m_work));
    m_authorization += ", SignedHeaders=";
    m_authorization += m_signedNames;
    m_authorization += ", Signature=";
    m_authorization += view(signature);

    m_out[0] = {"Authorization", m_authorization};
    m_out[1] = {"x-amz-date", date};
    m_out[2] = {"x-amz-content-sha256", payloadHash};
    m_out[3] = {"x-amz-security-token", credentials.sessionToken};
    return std::span(m_out).first(ownCount);
}

std::vector<Header> signV4(const SignedRequest &request, const Credentials &credentials, std::string_view region,
                           std::string_view service, std::chrono::system_clock::time_point now)
{
    const auto query = refsOf(request.query);
    const auto headers = refsOf(request.headers);
    Signer signer;
    std::vector<Header> out;
    for (const HeaderRef &h : signer.sign(refOf(request, query, headers), credentials, region, service, now))
        out.emplace_back(std::string(h.name), std::string(h.value));
    return out;
}

std::string canonicalUri(std::string_view path)
{
    std::string out;
    appendCanonicalUri(out, path);
    return out;
}

std::string canonicalQueryString(const std::vector<Header> &query)
{
    const auto refs = refsOf(query);
    Signer signer;
    signer.canonicalize(RequestRef{{}, {}, {}, refs, {}, {}}, {});
    return std::string(signer.encodedQuery());
}

std::string canonicalRequest(const SignedRequest &request, const std::vector<Header> &allSignedHeaders)
{
    const auto query = refsOf(request.query);
    Signer signer;
    return signer.canonicalize(refOf(request, query, {}), refsOf(allSignedHeaders));
}

std::string credentialScope(std::string_view yyyymmdd, std::string_view region, std::string_view service)
{
    return joined({yyyymmdd, region, service, "aws4_request"}, '/');
}

std::string stringToSign(std::string_view amzDate, std::string_view scope, std::string_view canonicalRequest)
{
    return joined({kAlgorithm, amzDate, scope, view(hexOf(sha256(canonicalRequest)))}, '\n');
}

std::string signingKey(std::string_view secretAccessKey, std::string_view yyyymmdd, std::string_view region,
                       std::string_view service)
{
    std::string secret = "AWS4";
    secret += secretAccessKey;
    Digest key = hmacSha256(secret, yyyymmdd);
    key = hmacSha256(view(key), region);
    key = hmacSha256(view(key), service);
    return std::string(view(hmacSha256(view(key), "aws4_request")));
}

std::string hmacSha256Hex(std::string_view key, std::string_view data)
{
    return std::string(view(hexOf(hmacSha256(key, data))));
}

std::string sha256Hex(std::string_view data)
{
    return std::string(view(hexOf(sha256(data))));
}

std::string presignedQuery(const SignedRequest &request, const Credentials &credentials, std::string_view region,
                           std::string_view service, std::chrono::system_clock::time_point now,
                           std::chrono::seconds expires)
{
    const std::string date = amzDate(now);
    const std::string day = date.substr(0, 8);
    const std::string scope = credentialScope(day, region, service);
    SignedRequest signing = request;
    signing.payloadHash = std::string(kUnsignedPayload);
    signing.query.push_back({"X-Amz-Algorithm", "AWS4-HMAC-SHA256"});
    signing.query.push_back({"X-Amz-Credential", credentials.accessKeyId + "/" + scope});
    signing.query.push_back({"X-Amz-Date", date});
    signing.query.push_back({"X-Amz-Expires", std::to_string(expires.count())});
    signing.query.push_back({"X-Amz-SignedHeaders", "host"});
    if (!credentials.sessionToken.empty())
        signing.query.push_back({"X-Amz-Security-Token", credentials.sessionToken});
    const std::string canonical = canonicalRequest(signing, {{"host", request.host}});
    const std::string signature = hmacSha256Hex(signingKey(credentials.secretAccessKey, day, region, service),
                                                stringToSign(date, scope, canonical));
    return canonicalQueryString(signing.query) + "&X-Amz-Signature=" + signature;
}

std::string amzDate(std::chrono::system_clock::time_point t)
{
    char out[16];
    formatAmzDate(t, out);
    return std::string(out, sizeof out);
}

} // namespace strata::s3

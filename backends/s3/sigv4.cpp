#include "backends/s3/sigv4.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QMessageAuthenticationCode>

#include <algorithm>
#include <cstdio>
#include <initializer_list>

namespace strata::s3 {

namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

// A view of the bytes as a QByteArray, without copying them (they outlive the call).
QByteArray bytes(std::string_view s)
{
    return QByteArray::fromRawData(s.data(), qsizetype(s.size()));
}

std::string toStd(const QByteArray &b)
{
    return std::string(b.constData(), std::size_t(b.size()));
}

// Lowercase hex straight into the result (no intermediate QByteArray).
std::string hexOf(QByteArrayView b)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(std::size_t(b.size()) * 2, '\0');
    for (qsizetype i = 0; i < b.size(); ++i) {
        const auto c = static_cast<unsigned char>(b[i]);
        out[std::size_t(i) * 2] = digits[c >> 4];
        out[std::size_t(i) * 2 + 1] = digits[c & 15];
    }
    return out;
}

std::string hmac(std::string_view key, std::string_view data)
{
    return toStd(QMessageAuthenticationCode::hash(bytes(data), bytes(key), QCryptographicHash::Sha256));
}

// ASCII only, on purpose: std::tolower/isalnum follow the locale Qt sets at startup.
bool isUnreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
        || c == '.' || c == '_' || c == '~';
}

std::string asciiLower(std::string_view s)
{
    std::string out(s);
    for (char &c : out) {
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    }
    return out;
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// AWS "Trimall": no leading or trailing white space, inner runs become one space.
std::string trimAll(std::string_view value)
{
    std::string out;
    out.reserve(value.size());
    bool pendingSpace = false;
    for (char c : value) {
        if (isSpace(c)) {
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace)
            out += ' ';
        pendingSpace = false;
        out += c;
    }
    return out;
}

struct CanonicalHeaders {
    std::string block;  // "name:value\n" per header
    std::string names;  // "host;range;x-amz-date"
};

CanonicalHeaders canonicalHeaders(const std::vector<Header> &headers)
{
    std::vector<Header> normal;
    normal.reserve(headers.size());
    for (const auto &[name, value] : headers)
        normal.emplace_back(asciiLower(trimAll(name)), trimAll(value));
    // Stable: repeated names keep the caller's order when their values are joined.
    std::stable_sort(normal.begin(), normal.end(),
                     [](const Header &a, const Header &b) { return a.first < b.first; });

    CanonicalHeaders out;
    for (std::size_t i = 0; i < normal.size(); ++i) {
        const std::string &name = normal[i].first;
        if (i > 0 && normal[i - 1].first == name) {
            out.block.pop_back();
            out.block += ',' + normal[i].second + '\n';
            continue;
        }
        if (!out.names.empty())
            out.names += ';';
        out.names += name;
        out.block += name + ':' + normal[i].second + '\n';
    }
    return out;
}

std::string_view payloadHashOf(const SignedRequest &request)
{
    return request.payloadHash.empty() ? kEmptyPayloadHash : std::string_view(request.payloadHash);
}

// The parts with sep between them (none after the last).
std::string joined(std::initializer_list<std::string_view> parts, char sep)
{
    std::string out;
    bool first = true;
    for (std::string_view part : parts) {
        if (!first)
            out += sep;
        first = false;
        out += part;
    }
    return out;
}

std::string canonicalRequestText(const SignedRequest &request, const CanonicalHeaders &headers)
{
    // headers.block ends with '\n', so the separator after it leaves the blank line AWS wants.
    return joined({request.method, canonicalUri(request.path), canonicalQueryString(request.query),
                   headers.block, headers.names, payloadHashOf(request)},
                  '\n');
}

bool isSignerOwned(std::string_view lowerName)
{
    return lowerName == "host" || lowerName == "authorization" || lowerName == "x-amz-date"
        || lowerName == "x-amz-content-sha256" || lowerName == "x-amz-security-token";
}

} // namespace

std::string uriEncode(std::string_view text, bool encodeSlash)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (unsigned char c : text) {
        if (isUnreserved(c) || (c == '/' && !encodeSlash)) {
            out += char(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string canonicalUri(std::string_view path)
{
    std::string encoded = uriEncode(path, false);
    if (encoded.empty() || encoded.front() != '/')
        encoded.insert(encoded.begin(), '/');
    return encoded;
}

std::string canonicalQueryString(std::vector<Header> query)
{
    for (auto &[name, value] : query) {
        name = uriEncode(name, true);
        value = uriEncode(value, true);
    }
    std::sort(query.begin(), query.end());
    std::string out;
    for (const auto &[name, value] : query) {
        if (!out.empty())
            out += '&';
        out += name;
        out += '=';
        out += value;
    }
    return out;
}

std::string canonicalRequest(const SignedRequest &request, const std::vector<Header> &allSignedHeaders)
{
    return canonicalRequestText(request, canonicalHeaders(allSignedHeaders));
}

std::string credentialScope(std::string_view yyyymmdd, std::string_view region, std::string_view service)
{
    return joined({yyyymmdd, region, service, "aws4_request"}, '/');
}

std::string stringToSign(std::string_view amzDate, std::string_view scope, std::string_view canonicalRequest)
{
    return joined({kAlgorithm, amzDate, scope, sha256Hex(canonicalRequest)}, '\n');
}

std::string signingKey(std::string_view secretAccessKey, std::string_view yyyymmdd,
                       std::string_view region, std::string_view service)
{
    std::string key = "AWS4";
    key += secretAccessKey;
    key = hmac(key, yyyymmdd);
    key = hmac(key, region);
    key = hmac(key, service);
    return hmac(key, "aws4_request");
}

// The signing key changes once a day per credentials, region and service: derived once
// per thread and day rather than with four HMACs per request.
static const std::string &cachedSigningKey(std::string_view secretAccessKey, std::string_view yyyymmdd,
                                           std::string_view region, std::string_view service)
{
    struct Cache {
        std::string secret, day, region, service, key;
    };
    thread_local Cache cache;
    if (cache.key.empty() || cache.secret != secretAccessKey || cache.day != yyyymmdd || cache.region != region
        || cache.service != service) {
        cache.key = signingKey(secretAccessKey, yyyymmdd, region, service);
        cache.secret.assign(secretAccessKey);
        cache.day.assign(yyyymmdd);
        cache.region.assign(region);
        cache.service.assign(service);
    }
    return cache.key;
}

std::string hmacSha256Hex(std::string_view key, std::string_view data)
{
    return hexOf(QMessageAuthenticationCode::hash(bytes(data), bytes(key), QCryptographicHash::Sha256));
}

std::string sha256Hex(std::string_view data)
{
    return hexOf(QCryptographicHash::hash(QByteArrayView(data.data(), qsizetype(data.size())), QCryptographicHash::Sha256));
}

std::string amzDate(std::chrono::system_clock::time_point t)
{
    using namespace std::chrono;
    const auto secs = floor<seconds>(t);
    const auto day = floor<days>(secs);
    const year_month_day ymd{day};
    const hh_mm_ss hms{secs - day};
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d%02u%02uT%02d%02d%02dZ", int(ymd.year()), unsigned(ymd.month()),
                  unsigned(ymd.day()), int(hms.hours().count()), int(hms.minutes().count()),
                  int(hms.seconds().count()));
    return buf;
}

std::vector<Header> signV4(const SignedRequest &request, const Credentials &credentials,
                           std::string_view region, std::string_view service,
                           std::chrono::system_clock::time_point now)
{
    const std::string payloadHash(payloadHashOf(request));
    if (credentials.anonymous())
        return {{"x-amz-content-sha256", payloadHash}};

    const std::string date = amzDate(now);
    const std::string day = date.substr(0, 8);

    std::vector<Header> toSign = {
        {"host", request.host},
        {"x-amz-content-sha256", payloadHash},
        {"x-amz-date", date},
    };
    if (!credentials.sessionToken.empty())
        toSign.emplace_back("x-amz-security-token", credentials.sessionToken);
    for (const auto &header : request.headers) {
        if (!isSignerOwned(asciiLower(trimAll(header.first))))
            toSign.push_back(header);
    }

    const CanonicalHeaders headers = canonicalHeaders(toSign);
    const std::string scope = credentialScope(day, region, service);
    const std::string signature = hmacSha256Hex(
        cachedSigningKey(credentials.secretAccessKey, day, region, service),
        stringToSign(date, scope, canonicalRequestText(request, headers)));

    std::vector<Header> out;
    out.emplace_back("Authorization", std::string(kAlgorithm) + " Credential=" + credentials.accessKeyId + '/'
                                          + scope + ", SignedHeaders=" + headers.names
                                          + ", Signature=" + signature);
    out.emplace_back("x-amz-date", date);
    out.emplace_back("x-amz-content-sha256", payloadHash);
    if (!credentials.sessionToken.empty())
        out.emplace_back("x-amz-security-token", credentials.sessionToken);
    return out;
}

} // namespace strata::s3

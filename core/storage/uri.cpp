#include "core/storage/uri.h"

#include "core/io/utf8.h"
#include "core/storage/path.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace strata {

namespace {

// ASCII only: std::isalnum follows the C locale, where a Latin-1 byte may count as a letter.
bool isUnreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
        || c == '_' || c == '~';
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// The text may hold a secret, so the error names what is wrong, never the text itself.
Error invalid(std::string_view, std::string why)
{
    return Error(ErrorKind::InvalidInput, std::move(why)).setOperation("parse URI");
}

bool hasControlChars(std::string_view s)
{
    return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

// "[::1]", "[fe80::1]": printed as is. Any other bracketed host (decoded from "[%5D]",
// "%5Bx"...) is percent-encoded whole, or it would not read back as the same host.
bool isIpLiteral(std::string_view host)
{
    if (host.size() < 3 || host.front() != '[' || host.back() != ']')
        return false;
    const std::string_view inside = host.substr(1, host.size() - 2);
    return std::all_of(inside.begin(), inside.end(), [](unsigned char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    });
}

} // namespace

std::string percentEncode(std::string_view text, std::string_view keep, bool keepUtf8)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        // Only whole UTF-8 characters are kept: a stray byte (old\xff.log) is encoded, so
        // it does not read back as the same text as its U+FFFD twin.
        const std::size_t kept = c >= 0x80 ? (keepUtf8 ? decodeUtf8(text, i).length : 0)
                                           : isUnreserved(c) || keep.find(char(c)) != std::string_view::npos;
        if (kept > 0) {
            out.append(text.substr(i, kept));
            i += kept;
            continue;
        }
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 15];
        ++i;
    }
    return out;
}

Result<std::string> percentDecode(std::string_view text, Escapes escapes)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        const bool cutShort = i + 2 >= text.size();
        const int hi = cutShort ? -1 : hexValue(text[i + 1]);
        const int lo = cutShort ? -1 : hexValue(text[i + 2]);
        if ((hi < 0 || lo < 0) && escapes == Escapes::Lenient) {
            out += '%';
            continue;
        }
        if (cutShort)
            return Error(ErrorKind::InvalidInput, "a percent escape is cut short");
        if (hi < 0 || lo < 0)
            return Error(ErrorKind::InvalidInput, "a percent escape is not followed by two hex digits");
        char c = char(hi * 16 + lo);
        if (c == '\0')
            return Error(ErrorKind::InvalidInput, "the URI encodes a NUL byte");
        out += c;
        i += 2;
    }
    return out;
}

// A value that is itself a URL (s3's ?endpoint=) may carry user:password@ too: everything
// between "://" and the last '@' goes (the password may hold '/' or '@').
static std::string withoutUserInfo(const std::string &value)
{
    const auto scheme = value.find("://");
    const auto at = value.rfind('@');
    if (scheme == std::string::npos || at == std::string::npos || at < scheme + 3)
        return value;
    return value.substr(0, scheme + 3) + "REDACTED" + value.substr(at);
}

bool isSecretQueryKey(std::string_view key)
{
    std::string k = lower(key);
    static constexpr std::string_view needles[] = {"secret",     "password",   "passwd", "token",
                                                   "signature",  "credential", "apikey", "api_key",
                                                   "access_key", "accesskey",  "auth",   "sig"};
    return std::any_of(std::begin(needles), std::end(needles),
                       [&](std::string_view n) { return k.find(n) != std::string::npos; });
}

Uri Uri::fromLocalPath(std::string_view absolutePath)
{
    Uri uri;
    uri.m_scheme = "file";
    uri.m_hasAuthority = true;
    uri.m_path = std::string(absolutePath);
    return uri;
}

Result<Uri> Uri::parse(std::string_view text)
{
    if (text.empty())
        return invalid(text, "the URI is empty");
    if (text.find('\0') != std::string_view::npos)
        return invalid(text, "the URI contains a NUL byte");
    if (text.front() == '/')
        return fromLocalPath(text);

    Uri uri;
    // scheme
    std::size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0)
        return invalid(text, "it has no scheme (expected something like file:///path or memory://demo/)");
    std::string_view scheme = text.substr(0, colon);
    if (!std::isalpha(static_cast<unsigned char>(scheme.front()))
        || !std::all_of(scheme.begin(), scheme.end(),
                        [](unsigned char c) { return std::isalnum(c) || c == '+' || c == '-' || c == '.'; }))
        return invalid(text, "the scheme has characters a scheme cannot have");
    uri.m_scheme = lower(scheme);
    std::string_view rest = text.substr(colon + 1);
    if (hasControlChars(rest))
        return invalid(text, "it contains control characters (percent-encode them)");

    // query (a '#' is no fragment: it belongs to the name or value it is in)
    if (auto q = rest.find('?'); q != std::string_view::npos) {
        std::string_view query = rest.substr(q + 1);
        rest = rest.substr(0, q);
        std::size_t pos = 0;
        while (pos <= query.size() && !query.empty()) {
            std::size_t amp = query.find('&', pos);
            if (amp == std::string_view::npos)
                amp = query.size();
            std::string_view item = query.substr(pos, amp - pos);
            if (!item.empty()) {
                std::size_t eq = item.find('=');
                auto key = percentDecode(item.substr(0, eq));
                auto value = percentDecode(eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1));
                if (!key || !value)
                    return invalid(text, "a query parameter has a bad percent escape");
                if (key->empty())
                    return invalid(text, "a query parameter has no name");
                uri.m_query.emplace_back(std::move(*key), std::move(*value));
            }
            pos = amp + 1;
        }
    }

    // authority
    if (rest.starts_with("//")) {
        uri.m_hasAuthority = true;
        rest = rest.substr(2);
        std::size_t slash = rest.find('/');
        std::string_view authority = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
        if (auto at = authority.rfind('@'); at != std::string_view::npos) {
            uri.m_userInfo = std::string(authority.substr(0, at));
            authority = authority.substr(at + 1);
        }
        std::string_view host = authority;
        std::string_view port;
        if (authority.starts_with('[')) {
            auto close = authority.find(']');
            if (close == std::string_view::npos)
                return invalid(text, "an IPv6 address is missing its closing ']'");
            host = authority.substr(0, close + 1);
            std::string_view after = authority.substr(close + 1);
            if (!after.empty()) {
                if (after.front() != ':')
                    return invalid(text, "unexpected characters after the IPv6 address");
                port = after.substr(1);
            }
        } else if (auto c = authority.rfind(':'); c != std::string_view::npos) {
            host = authority.substr(0, c);
            port = authority.substr(c + 1);
        }
        if (!port.empty()) {
            unsigned value = 0;
            auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
            if (ec != std::errc() || ptr != port.data() + port.size() || value == 0 || value > 65535)
                return invalid(text, "the port must be a number from 1 to 65535");
            uri.m_port = static_cast<std::uint16_t>(value);
        }
        auto decodedHost = percentDecode(host);
        if (!decodedHost)
            return invalid(text, "the host has a bad percent escape");
        if (decodedHost->find('/') != std::string::npos)
            return invalid(text, "the host cannot contain '/'");
        uri.m_host = std::move(*decodedHost);
    }

    auto path = percentDecode(rest, Escapes::Lenient);
    if (!path)
        return invalid(text, path.error().cause());
    uri.m_path = std::move(*path);
    if (uri.m_path.empty() && (uri.m_hasAuthority || rest.empty()))
        uri.m_path = "/"; // "scheme:" alone (null:) names the root
    if (!uri.m_hasAuthority && !uri.m_path.starts_with('/'))
        return invalid(text, "the path must be absolute (scheme:/path or scheme://host/path)");
    return uri;
}

std::optional<std::string> Uri::queryValue(std::string_view key) const
{
    for (const auto &[k, v] : m_query)
        if (k == key)
            return v;
    return std::nullopt;
}

Uri Uri::withPath(std::string path) const
{
    Uri copy = *this;
    copy.m_path = std::move(path);
    return copy;
}

Uri Uri::child(std::string_view name) const
{
    Uri copy = asFolder();
    copy.m_path += name;
    return copy;
}

Uri Uri::asFolder() const
{
    Uri copy = *this;
    if (!copy.m_path.ends_with('/'))
        copy.m_path += '/';
    return copy;
}

std::string Uri::format(bool redact) const
{
    std::string out = m_scheme;
    out += ':';
    if (m_hasAuthority) {
        out += "//";
        if (!m_userInfo.empty())
            out += redact ? std::string("REDACTED@") : m_userInfo + '@';
        if (isIpLiteral(m_host))
            out += m_host;
        else
            out += percentEncode(m_host, "!$&'()*+,;=", true);
        if (m_port) {
            out += ':';
            out += std::to_string(*m_port);
        }
    }
    // Without an authority, a path cannot start with "//" (it would read as one).
    if (!m_hasAuthority && m_path.starts_with("//"))
        out += "/%2F" + percentEncode(std::string_view(m_path).substr(2), "/!$&'()*+,;=:@", true);
    else
        out += percentEncode(m_path, "/!$&'()*+,;=:@", true);
    if (!m_query.empty()) {
        char sep = '?';
        for (const auto &[k, v] : m_query) {
            out += sep;
            sep = '&';
            out += percentEncode(k, "!$'()*+,;:@/", true);
            if (v.empty())
                continue; // "?flag": nothing to hide, and "=REDACTED" would claim a value
            if (redact && isSecretQueryKey(k)) {
                out += "=REDACTED";
            } else {
                out += '=';
                out += percentEncode(redact ? withoutUserInfo(v) : v, "!$'()*+,;:@/", true);
            }
        }
    }
    return out;
}

std::string Uri::toString() const
{
    return format(false);
}

std::string Uri::redacted() const
{
    return format(true);
}

bool isLoopbackHost(std::string_view host)
{
    if (host.starts_with('[') && host.ends_with(']'))
        host = host.substr(1, host.size() - 2);
    return host == "localhost" || host == "::1" || host.starts_with("127.");
}

bool namesHost(std::string_view named, const Uri &uri)
{
    auto lower = [](std::string_view text) {
        std::string out(text);
        std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return out;
    };
    if (named.empty())
        return false;
    const std::string given = lower(named);
    const std::string bare = lower(uri.host());
    const std::string bracketed =
        bare.find(':') != std::string::npos && !bare.starts_with('[') ? "[" + bare + "]" : bare;
    const std::string withPort = uri.port() ? bracketed + ":" + std::to_string(*uri.port()) : bracketed;
    return given == withPort || given == bare || given == "[" + bare + "]";
}

std::optional<std::string> scpStyleUri(std::string_view text)
{
    // user@host:path, host without '/', and no "scheme://": scp's own rule (a colon
    // before any slash), with the user required so a local "a:b" stays a file.
    const auto colon = text.find(':');
    const auto at = text.find('@');
    if (colon == std::string_view::npos || at == std::string_view::npos || at > colon || at == 0)
        return std::nullopt;
    const auto slash = text.find('/');
    if (slash != std::string_view::npos && slash < colon)
        return std::nullopt;
    if (text.substr(colon).starts_with("://"))
        return std::nullopt;
    std::string_view login = text.substr(0, colon);
    std::string_view path = text.substr(colon + 1);
    if (login.substr(at + 1).empty())
        return std::nullopt;
    std::string uri = "sftp://" + percentEncode(login.substr(0, at), "") + "@" + std::string(login.substr(at + 1));
    if (path.starts_with('/'))
        uri += percentEncode(path, "/");
    else
        uri += "/~/" + percentEncode(path, "/");
    return uri;
}

} // namespace strata

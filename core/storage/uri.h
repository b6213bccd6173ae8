#pragma once

#include "core/storage/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata {

// An RFC 3986 URI with the parts decoded (UTF-8). A bare absolute path is a file URI.
// Printing goes through redacted(): userinfo and secret-looking query values never show.
class Uri {
public:
    using QueryItem = std::pair<std::string, std::string>;

    // Accepts "scheme://authority/path?query", "scheme:/path" and a bare absolute path
    // ("/tmp/a b#c" is the file of that exact name, nothing is decoded). The path holds
    // names as people type them (aws-cli and s5cmd take what follows the bucket literally):
    // a '#' is part of the name (storage URIs have no fragment) and only a valid %XX
    // escape is decoded, any other '%' stays ("report 100%.pdf").
    static Result<Uri> parse(std::string_view text);
    static Uri fromLocalPath(std::string_view absolutePath);

    const std::string &scheme() const { return m_scheme; }
    const std::string &host() const { return m_host; }
    std::optional<std::uint16_t> port() const { return m_port; }
    bool hasAuthority() const { return m_hasAuthority; }
    bool hasUserInfo() const { return !m_userInfo.empty(); }
    const std::string &userInfo() const { return m_userInfo; }
    const std::string &path() const { return m_path; }
    const std::vector<QueryItem> &query() const { return m_query; }
    std::optional<std::string> queryValue(std::string_view key) const;

    void setScheme(std::string scheme) { m_scheme = std::move(scheme); }
    void setHost(std::string host)
    {
        m_host = std::move(host);
        m_hasAuthority = true;
    }
    void setPort(std::optional<std::uint16_t> port) { m_port = port; }
    void setPath(std::string path) { m_path = std::move(path); }
    void setQuery(std::vector<QueryItem> query) { m_query = std::move(query); }
    Uri withPath(std::string path) const;
    // The same URI (query and all) naming `name` inside the folder this one names:
    // "/a/b" or "/a/b/" with "c" gives "/a/b/c". The name is one segment, taken as it is
    // ('%', '#', '?' and spaces are part of it); joining text onto a printed URI would
    // instead append it to the last query value ("?identity=/k" + "/c").
    Uri child(std::string_view name) const;
    // The same URI (query and all) with its path ending in '/': a folder to copy into.
    Uri asFolder() const;

    // The full URI, encoded, secrets included: for talking to libraries, never for people.
    std::string toString() const;
    // The URI as people may see it: userinfo and secret query values replaced.
    std::string redacted() const;

    bool operator==(const Uri &) const = default;

private:
    std::string format(bool redact) const;

    std::string m_scheme;
    std::string m_userInfo;
    std::string m_host;
    std::optional<std::uint16_t> m_port;
    bool m_hasAuthority = false;
    std::string m_path;
    std::vector<QueryItem> m_query;
};

// Percent-encodes every byte outside the unreserved set and `keep`; valid UTF-8 characters
// are kept when keepUtf8 is set (IRI style, readable), else encoded. Bytes that are no
// UTF-8 are always encoded, so the text reads back byte for byte.
std::string percentEncode(std::string_view text, std::string_view keep = {}, bool keepUtf8 = false);
// Decodes %XX escapes; an encoded NUL is an error. Strict: a truncated or non-hex escape
// is an error too. Lenient (names in paths): such a '%' is kept as the character itself.
enum class Escapes { Strict, Lenient };
Result<std::string> percentDecode(std::string_view text, Escapes escapes = Escapes::Strict);

// Turns scp's "user@host:path" into an sftp:// URI ("user@host:path" is relative to the
// login folder, "user@host:/path" absolute); nullopt when `text` is not of that form (a
// URI, a path, or a name with a colon but no user: "notes:v2.txt" stays a file).
std::optional<std::string> scpStyleUri(std::string_view text);

// Whether a query key names a secret (password, token, signature, secret key...).
bool isSecretQueryKey(std::string_view key);

// Whether `host` is this machine (127.0.0.0/8, ::1 with or without brackets, localhost):
// traffic there never leaves it.
bool isLoopbackHost(std::string_view host);

// Whether `named` (what a person gave a credential for: "host", "host:port", "[::1]:22",
// in any case) names the URI's server as the URI writes it. Empty names nothing: a
// password given for one server is never sent to another.
bool namesHost(std::string_view named, const Uri &uri);

} // namespace strata

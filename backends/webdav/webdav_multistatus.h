#pragma once

#include "backends/http/xml_stream.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace strata::webdav {

// One <D:response> of a multistatus: what PROPFIND says about one resource.
struct DavResource {
    std::string href;                    // as sent (still percent-encoded)
    bool found = true;                   // false when the response's own status is not 2xx
    bool collection = false;             // <D:resourcetype><D:collection/>
    std::optional<std::uint64_t> length; // getcontentlength
    std::optional<std::int64_t> mtimeNs; // getlastmodified
    std::string etag;                    // getetag, quotes kept (as GET's ETag header has them)
    // What the member's answer says of it, for a request on many resources (a collection's
    // MOVE, COPY, DELETE): its own <D:status> code, else the first <D:propstat> status that
    // is no success, else 200 when every propstat succeeded; 0 when it says nothing.
    long status = 0;
};

// A UTF-8 check fed in pieces (a sequence may be cut between two), with core's decoder: no
// overlong forms, surrogates or code points past U+10FFFF.
class Utf8Check {
public:
    // False once a byte cannot be UTF-8 where it is.
    bool feed(std::string_view bytes);

private:
    std::string m_cut; // the start of a sequence the last piece cut
};

// Parses a PROPFIND multistatus as it arrives, in pieces of any size, handing over each
// resource as soon as its </D:response> is read: a listing of 10 000 entries is never held
// as text. Properties of a propstat whose status is not 2xx are ignored.

class MultistatusParser : private http::XmlStream::Events {
public:
    // Limits on what a server may send: an answer is refused past them.
    static constexpr std::size_t kMaxAnswer = std::size_t(512) << 20; // a million entries fit
    static constexpr std::size_t kMaxField = std::size_t(64) << 10;   // one href, ETag, date…

    explicit MultistatusParser(std::function<void(DavResource &&)> onResource);

    // False once the document is broken or not a multistatus (see problem()).
    bool feed(std::string_view data);
    // After the last piece: empty when the document was whole and well-formed, else what is wrong.
    std::string finish();
    const std::string &problem() const { return m_xml.problem(); }

private:
    enum class Field : std::uint8_t { None, Href, Status, Length, Modified, Etag };
    struct Props {
        bool collection = false;
        std::optional<std::uint64_t> length;
        std::optional<std::int64_t> mtimeNs;
        std::string etag;
        long status = 200;
    };
    long m_ownStatus = 0;       // the current response's own <D:status>
    long m_propstatOutcome = 0; // 200 once a propstat succeeded, its code once one failed

    void start(std::string_view ns, std::string_view name) override;
    void end(std::string_view ns, std::string_view name) override;
    void text(std::string_view text) override;

    std::function<void(DavResource &&)> m_onResource;
    http::XmlStream m_xml{*this};
    Utf8Check m_utf8;
    std::size_t m_fed = 0;
    int m_depth = 0;
    bool m_started = false; // the root element began
    bool m_inResponse = false;
    bool m_inPropstat = false;
    bool m_inResourcetype = false;
    Field m_field = Field::None;
    std::string m_text;
    DavResource m_resource;
    Props m_props;
};

} // namespace strata::webdav

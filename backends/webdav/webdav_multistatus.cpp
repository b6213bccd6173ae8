#include "backends/webdav/webdav_multistatus.h"

#include "backends/http/http_time.h"
#include "core/io/utf8.h"

#include <algorithm>
#include <charconv>

namespace strata::webdav {

namespace {

constexpr std::string_view kDav = "DAV:";

// "HTTP/1.1 404 Not Found" -> 404; 0 when unreadable.
long statusOf(std::string_view line)
{
    const auto space = line.find(' ');
    long code = 0;
    if (space != std::string_view::npos)
        std::from_chars(line.data() + space + 1, line.data() + line.size(), code);
    return code;
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

// How many bytes the UTF-8 sequence that `lead` starts has; 0 for no lead byte.
std::size_t sequenceLength(char lead)
{
    const auto c = static_cast<unsigned char>(lead);
    return c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
}

} // namespace

bool Utf8Check::feed(std::string_view bytes)
{
    // A sequence cut at the end of the last piece is completed from this one first.
    while (!m_cut.empty() && !bytes.empty()) {
        m_cut += bytes.front();
        bytes.remove_prefix(1);
        if (decodeUtf8(m_cut, 0).length == m_cut.size())
            m_cut.clear();
        else if (m_cut.size() == sequenceLength(m_cut.front()))
            return false;
    }
    for (std::size_t i = 0; i < bytes.size();) {
        if (const std::size_t length = decodeUtf8(bytes, i).length) {
            i += length;
            continue;
        }
        // No code point here: the piece may end inside one, which the next piece completes.
        const std::size_t want = sequenceLength(bytes[i]);
        if (want == 0 || i + want <= bytes.size())
            return false;
        m_cut.assign(bytes.substr(i));
        break;
    }
    return true;
}

MultistatusParser::MultistatusParser(std::function<void(DavResource &&)> onResource)
    : m_onResource(std::move(onResource))
{
}

bool MultistatusParser::feed(std::string_view data)
{
    if (!problem().empty())
        return false;
    // Every byte is checked here, wherever the pieces break and past the root's end too, so
    // that the verdict on an answer does not depend on how it was cut.
    if (!m_utf8.feed(data)) {
        m_xml.stop("the answer is not UTF-8 text");
        return false;
    }
    // Nor a control character XML does not allow (a NUL first).
    if (std::any_of(data.begin(), data.end(), [](char c) {
            const auto u = static_cast<unsigned char>(c);
            return u < 0x20 && u != '\t' && u != '\n' && u != '\r';
        })) {
        m_xml.stop("the answer holds a control character XML does not allow");
        return false;
    }
    // Once </D:multistatus> has been read the answer is complete: what a server sends after
    // it is ignored, whichever piece it comes in.
    if (m_xml.rootClosed())
        return true;
    // Bounded whatever the server sends: a parser holds an unfinished token whole.
    m_fed += data.size();
    if (m_fed > kMaxAnswer) {
        m_xml.stop("the answer is larger than " + std::to_string(kMaxAnswer >> 20) + " MiB; not read further");
        return false;
    }
    return m_xml.feed(data);
}

std::string MultistatusParser::finish()
{
    if (!problem().empty())
        return problem();
    if (m_xml.finish())
        return {};
    // Whatever libxml2 says of the cut (it waits for more at a half-read token), ours is plainer.
    return m_started ? "it ends before </D:multistatus>" : "the answer is empty";
}

void MultistatusParser::start(std::string_view ns, std::string_view name)
{
    ++m_depth;
    m_started = true;
    const bool dav = ns == kDav;
    if (m_depth == 1) {
        if (!dav || name != "multistatus")
            m_xml.stop("the answer is not a WebDAV multistatus");
        return;
    }
    if (!dav)
        return;
    m_field = Field::None;
    if (m_depth == 2 && name == "response") {
        m_inResponse = true;
        m_resource = DavResource{};
        m_ownStatus = m_propstatOutcome = 0;
    } else if (!m_inResponse) {
        return;
    } else if (name == "propstat") {
        m_inPropstat = true;
        m_props = Props{};
    } else if (name == "resourcetype") {
        m_inResourcetype = true;
    } else if (name == "collection" && m_inResourcetype) {
        m_props.collection = true;
    } else if (name == "href" && !m_inPropstat) {
        m_field = Field::Href;
    } else if (name == "status") {
        m_field = Field::Status;
    } else if (name == "getcontentlength") {
        m_field = Field::Length;
    } else if (name == "getlastmodified") {
        m_field = Field::Modified;
    } else if (name == "getetag") {
        m_field = Field::Etag;
    }
    m_text.clear();
}

void MultistatusParser::text(std::string_view text)
{
    if (m_field == Field::None)
        return;
    m_text += text;
    if (m_text.size() > kMaxField)
        m_xml.stop("a property is longer than " + std::to_string(kMaxField >> 10) + " KiB");
}

void MultistatusParser::end(std::string_view ns, std::string_view name)
{
    --m_depth;
    if (m_depth == 0 || ns != kDav || !m_inResponse)
        return;
    const std::string_view text = trimmed(m_text);
    switch (m_field) {
    case Field::Href: m_resource.href = std::string(text); break;
    case Field::Status:
        if (m_inPropstat) {
            m_props.status = statusOf(text);
        } else {
            m_ownStatus = statusOf(text);
            m_resource.found = m_ownStatus / 100 == 2;
        }
        break;
    case Field::Length: {
        std::uint64_t length = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), length);
        if (ec == std::errc() && ptr == text.data() + text.size())
            m_props.length = length;
        break;
    }
    case Field::Modified: m_props.mtimeNs = http::parseTime(std::string(text)); break;
    case Field::Etag: m_props.etag = std::string(text); break;
    case Field::None: break;
    }
    m_field = Field::None;
    if (name == "resourcetype") {
        m_inResourcetype = false;
    } else if (name == "propstat") {
        m_inPropstat = false;
        if (m_propstatOutcome / 100 == 2 || m_propstatOutcome == 0)
            m_propstatOutcome = m_props.status;
        if (m_props.status / 100 == 2) {
            m_resource.collection = m_resource.collection || m_props.collection;
            if (m_props.length)
                m_resource.length = m_props.length;
            if (m_props.mtimeNs)
                m_resource.mtimeNs = m_props.mtimeNs;
            if (!m_props.etag.empty())
                m_resource.etag = std::move(m_props.etag);
        }
    } else if (name == "response" && m_depth == 1) {
        m_inResponse = false;
        m_resource.status = m_ownStatus ? m_ownStatus : m_propstatOutcome;
        m_onResource(std::move(m_resource));
    }
}

} // namespace strata::webdav

#include "backends/webdav/webdav_multistatus.h"

#include "backends/http/http_time.h"

#include <algorithm>
#include <charconv>

namespace strata::webdav {

namespace {

const QLatin1String kDav("DAV:");

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

} // namespace

bool Utf8Check::feed(std::string_view bytes)
{
    for (const char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        if (m_need == 0) {
            if (c < 0x80)
                continue;
            if (c >= 0xC2 && c <= 0xDF) {
                m_need = 1;
            } else if (c >= 0xE0 && c <= 0xEF) {
                m_need = 2;
                m_low = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
                m_high = c == 0xED ? 0x9F : 0xBF; // no surrogates
                continue;
            } else if (c >= 0xF0 && c <= 0xF4) {
                m_need = 3;
                m_low = c == 0xF0 ? 0x90 : 0x80;
                m_high = c == 0xF4 ? 0x8F : 0xBF; // nothing past U+10FFFF
                continue;
            } else {
                return false;
            }
            m_low = 0x80;
            m_high = 0xBF;
            continue;
        }
        if (c < m_low || c > m_high)
            return false;
        m_low = 0x80;
        m_high = 0xBF;
        --m_need;
    }
    return true;
}

MultistatusParser::MultistatusParser(std::function<void(DavResource &&)> onResource)
    : m_onResource(std::move(onResource))
{
}

bool MultistatusParser::feed(std::string_view data)
{
    if (!m_problem.empty())
        return false;
    // Every byte is checked here, before the reader and wherever the pieces break: Qt's
    // reader checks what it holds, which depends on how the answer was cut (and ignores
    // what comes in later pieces once the root has ended).
    if (!m_utf8.feed(data)) {
        m_problem = "the answer is not UTF-8 text";
        return false;
    }
    // Nor a control character XML does not allow (a NUL first): Qt's reader rejects one by
    // itself only where it happens to look at it whole.
    if (std::any_of(data.begin(), data.end(), [](char c) {
            const auto u = static_cast<unsigned char>(c);
            return u < 0x20 && u != '\t' && u != '\n' && u != '\r';
        })) {
        m_problem = "the answer holds a control character XML does not allow";
        return false;
    }
    // Once </D:multistatus> has been read the answer is complete: what a server sends after
    // it is ignored, whichever piece it comes in (Qt's reader ends its document at the root's
    // end and never looks at the rest of that piece either).
    if (m_rootClosed)
        return true;
    // Bounded whatever the server sends: Qt's reader holds an unfinished token whole.
    m_fed += data.size();
    if (m_fed > kMaxAnswer) {
        m_problem = "the answer is larger than " + std::to_string(kMaxAnswer >> 20) + " MiB; not read further";
        return false;
    }
    m_reader.addData(QByteArray(data.data(), qsizetype(data.size())));
    return parse();
}

std::string MultistatusParser::finish()
{
    if (!m_problem.empty())
        return m_problem;
    if (m_depth == 0 && !m_rootClosed)
        return "the answer is empty";
    if (!m_rootClosed)
        return "it ends before </D:multistatus>";
    return {};
}

bool MultistatusParser::parse()
{
    while (!m_reader.atEnd()) {
        const auto token = m_reader.readNext();
        if (token == QXmlStreamReader::Invalid) {
            if (m_reader.error() == QXmlStreamReader::PrematureEndOfDocumentError || m_rootClosed)
                return true; // wait for the next piece; or past the root, ignored (see feed())
            m_problem = m_reader.errorString().toStdString();
            return false;
        }
        if (token == QXmlStreamReader::StartElement)
            startElement();
        else if (token == QXmlStreamReader::EndElement)
            endElement();
        else if (token == QXmlStreamReader::Characters && m_field != Field::None) {
            m_text += m_reader.text().toString().toStdString();
            if (m_text.size() > kMaxField)
                m_problem = "a property is longer than " + std::to_string(kMaxField >> 10) + " KiB";
        }
        if (!m_problem.empty())
            return false;
    }
    return true;
}

void MultistatusParser::startElement()
{
    ++m_depth;
    const bool dav = m_reader.namespaceUri() == kDav;
    const auto name = m_reader.name();
    if (m_depth == 1) {
        if (!dav || name != QLatin1String("multistatus"))
            m_problem = "the answer is not a WebDAV multistatus";
        return;
    }
    if (!dav)
        return;
    m_field = Field::None;
    if (m_depth == 2 && name == QLatin1String("response")) {
        m_inResponse = true;
        m_resource = DavResource{};
        m_ownStatus = m_propstatOutcome = 0;
    } else if (!m_inResponse) {
        return;
    } else if (name == QLatin1String("propstat")) {
        m_inPropstat = true;
        m_props = Props{};
    } else if (name == QLatin1String("resourcetype")) {
        m_inResourcetype = true;
    } else if (name == QLatin1String("collection") && m_inResourcetype) {
        m_props.collection = true;
    } else if (name == QLatin1String("href") && !m_inPropstat) {
        m_field = Field::Href;
    } else if (name == QLatin1String("status")) {
        m_field = Field::Status;
    } else if (name == QLatin1String("getcontentlength")) {
        m_field = Field::Length;
    } else if (name == QLatin1String("getlastmodified")) {
        m_field = Field::Modified;
    } else if (name == QLatin1String("getetag")) {
        m_field = Field::Etag;
    }
    m_text.clear();
}

void MultistatusParser::endElement()
{
    --m_depth;
    if (m_depth == 0) {
        m_rootClosed = true;
        return;
    }
    if (m_reader.namespaceUri() != kDav || !m_inResponse)
        return;
    const auto name = m_reader.name();
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
    if (name == QLatin1String("resourcetype")) {
        m_inResourcetype = false;
    } else if (name == QLatin1String("propstat")) {
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
    } else if (name == QLatin1String("response") && m_depth == 1) {
        m_inResponse = false;
        m_resource.status = m_ownStatus ? m_ownStatus : m_propstatOutcome;
        m_onResource(std::move(m_resource));
    }
}

} // namespace strata::webdav

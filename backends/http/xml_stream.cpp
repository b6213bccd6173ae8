#include "backends/http/xml_stream.h"

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include <algorithm>
#include <climits>
#include <mutex>

namespace strata::http {

namespace {

std::string_view view(const xmlChar *s)
{
    return s ? std::string_view(reinterpret_cast<const char *>(s)) : std::string_view();
}

} // namespace

struct XmlStream::Callbacks {
    static XmlStream &of(void *user) { return *static_cast<XmlStream *>(user); }

    static void start(void *user, const xmlChar *name, const xmlChar *, const xmlChar *ns, int, const xmlChar **, int,
                      int, const xmlChar **)
    {
        XmlStream &s = of(user);
        if (s.m_rootClosed || !s.m_problem.empty())
            return;
        ++s.m_depth;
        s.m_events.start(view(ns), view(name));
    }

    static void end(void *user, const xmlChar *name, const xmlChar *, const xmlChar *ns)
    {
        XmlStream &s = of(user);
        if (s.m_rootClosed || !s.m_problem.empty())
            return;
        s.m_events.end(view(ns), view(name));
        if (--s.m_depth == 0) {
            // The document is whole: what follows (even in this same piece) is not read.
            s.m_rootClosed = true;
            xmlStopParser(static_cast<xmlParserCtxtPtr>(s.m_context));
        }
    }

    static void text(void *user, const xmlChar *text, int length)
    {
        XmlStream &s = of(user);
        if (!s.m_rootClosed && s.m_problem.empty() && s.m_depth > 0)
            s.m_events.text(std::string_view(reinterpret_cast<const char *>(text), std::size_t(length)));
    }

    // <!DOCTYPE …>: no S3 or WebDAV answer has one, and its entities are the classic attacks.
    static void doctype(void *user, const xmlChar *, const xmlChar *, const xmlChar *)
    {
        of(user).stop("the answer declares a document type, which no server's answer has");
    }

    static void error(void *user, xmlErrorPtr error)
    {
        if (!error || error->level < XML_ERR_ERROR)
            return; // warnings
        XmlStream &s = of(user);
        if (s.m_rootClosed || !s.m_problem.empty())
            return;
        // At the end libxml2 2.9 says "Extra content at the end of the document" of any cut.
        if (s.m_finished)
            return s.stop(s.m_fed ? "the document ends before its root element does" : "the document is empty");
        // The first line (the second, when there is one, repeats the bytes).
        std::string message = error->message ? error->message : "malformed XML";
        message.resize(std::min(message.find('\n'), message.size()));
        s.stop(message + " (line " + std::to_string(error->line) + ")");
    }
};

XmlStream::XmlStream(Events &events) : m_events(events)
{
    static std::once_flag once;
    std::call_once(once, [] { xmlInitParser(); });
    xmlSAXHandler sax{};
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = &Callbacks::start;
    sax.endElementNs = &Callbacks::end;
    sax.characters = &Callbacks::text;
    sax.cdataBlock = &Callbacks::text;
    sax.ignorableWhitespace = &Callbacks::text;
    sax.internalSubset = &Callbacks::doctype;
    sax.serror = &Callbacks::error;
    auto *context = xmlCreatePushParserCtxt(&sax, this, nullptr, 0, nullptr);
    if (!context) {
        m_problem = "out of memory for the XML parser";
        return;
    }
    // UTF-8, as every S3 and WebDAV answer is, whatever its first bytes or its declaration
    // say: no other encoding is converted (libxml2 reports iconv's faults on stderr).
    xmlCtxtResetPush(context, nullptr, 0, nullptr, "UTF-8");
    // Nothing from the network, no entity substituted, no DTD loaded (the defaults, said).
    xmlCtxtUseOptions(context, XML_PARSE_NONET | XML_PARSE_IGNORE_ENC);
    m_context = context;
}

XmlStream::~XmlStream()
{
    if (m_context)
        xmlFreeParserCtxt(static_cast<xmlParserCtxtPtr>(m_context));
}

void XmlStream::stop(std::string problem)
{
    if (m_problem.empty())
        m_problem = std::move(problem);
    if (m_context)
        xmlStopParser(static_cast<xmlParserCtxtPtr>(m_context));
}

bool XmlStream::feed(std::string_view piece)
{
    if (m_rootClosed)
        return true;
    auto *context = static_cast<xmlParserCtxtPtr>(m_context);
    m_fed = m_fed || !piece.empty();
    while (m_problem.empty() && !m_rootClosed && !piece.empty()) {
        const auto n = static_cast<int>(std::min<std::size_t>(piece.size(), INT_MAX / 2));
        xmlParseChunk(context, piece.data(), n, 0);
        piece.remove_prefix(std::size_t(n));
    }
    return m_problem.empty();
}

bool XmlStream::finish()
{
    if (!m_finished && m_problem.empty() && !m_rootClosed) {
        m_finished = true;
        xmlParseChunk(static_cast<xmlParserCtxtPtr>(m_context), nullptr, 0, 1);
    }
    if (m_problem.empty() && !m_rootClosed)
        m_problem = m_fed ? "the document ends before its root element does" : "the document is empty";
    return m_rootClosed && m_problem.empty();
}

struct XmlReader::Collect : XmlStream::Events {
    std::deque<Token> &tokens;
    explicit Collect(std::deque<Token> &t) : tokens(t) {}
    void start(std::string_view, std::string_view name) override { tokens.push_back({Kind::Start, std::string(name)}); }
    void end(std::string_view, std::string_view name) override { tokens.push_back({Kind::End, std::string(name)}); }
    void text(std::string_view text) override
    {
        if (!tokens.empty() && tokens.back().kind == Kind::Text)
            tokens.back().value += text;
        else
            tokens.push_back({Kind::Text, std::string(text)});
    }
};

XmlReader::XmlReader(std::string_view document)
{
    Collect collect(m_tokens);
    XmlStream stream(collect);
    stream.feed(document);
    if (!stream.finish())
        m_problem = stream.problem();
}

bool XmlReader::readNext()
{
    if (m_at >= m_tokens.size())
        return false;
    ++m_at;
    return true;
}

bool XmlReader::isStartElement() const
{
    return m_at > 0 && m_at <= m_tokens.size() && m_tokens[m_at - 1].kind == Kind::Start;
}

std::string_view XmlReader::name() const
{
    if (m_at == 0 || m_at > m_tokens.size() || m_tokens[m_at - 1].kind == Kind::Text)
        return {};
    return m_tokens[m_at - 1].value;
}

bool XmlReader::readNextStartElement()
{
    while (m_at < m_tokens.size()) {
        const Kind kind = m_tokens[m_at++].kind;
        if (kind == Kind::End)
            return false;
        if (kind == Kind::Start)
            return true;
    }
    return false;
}

std::string XmlReader::text()
{
    std::string out;
    for (int depth = 1; depth > 0 && m_at < m_tokens.size();) {
        const Token &token = m_tokens[m_at++];
        if (token.kind == Kind::Start)
            ++depth;
        else if (token.kind == Kind::End)
            --depth;
        else
            out += token.value;
    }
    return out;
}

void XmlReader::skipCurrentElement()
{
    (void)text();
}

} // namespace strata::http

#pragma once

// XML as servers send it, read with libxml2's push parser: pieces of any size in, elements
// and text out as soon as they are read. The document ends at its root element's end; what
// follows is ignored. Hostile input is refused, never obeyed: a document type declaration
// (entities of the server's own, anything to fetch) is an error, and libxml2's own limits
// hold (nesting, name and text lengths).
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strata::http {

class XmlStream {
public:
    // What the parse finds, in document order. Names are local (no prefix); `ns` is the
    // namespace URI, empty when none. Text may come in several calls for one run of text.
    struct Events {
        virtual ~Events() = default;
        virtual void start(std::string_view ns, std::string_view name) = 0;
        virtual void end(std::string_view ns, std::string_view name) = 0;
        virtual void text(std::string_view text) = 0;
    };

    explicit XmlStream(Events &events);
    ~XmlStream();
    XmlStream(const XmlStream &) = delete;
    XmlStream &operator=(const XmlStream &) = delete;

    // One more piece. False once the document is broken or stopped (see problem()); true
    // after the root's end, whatever follows.
    bool feed(std::string_view piece);
    // After the last piece: true when the document was whole (its root element closed).
    bool finish();
    // Ends the parse from an event, with what is wrong: nothing more is read.
    void stop(std::string problem);

    const std::string &problem() const { return m_problem; }
    bool rootClosed() const { return m_rootClosed; }

    // libxml2's callbacks (C linkage cannot see private members).
    struct Callbacks;

private:
    void fail(std::string problem);

    Events &m_events;
    void *m_context = nullptr; // xmlParserCtxtPtr
    std::string m_problem;
    int m_depth = 0;
    bool m_rootClosed = false;
    bool m_finished = false;
    bool m_fed = false; // a byte came
};

// A whole document read the way QXmlStreamReader is, one token at a time: what the S3
// answers' parsers walk. The document is parsed at construction; a broken one gives its
// tokens up to the fault, then hasError().
class XmlReader {
public:
    explicit XmlReader(std::string_view document);

    // The next start element before the current element's end: false at that end (or at
    // the end of the document, or a fault).
    bool readNextStartElement();
    // The next token of any kind; false at the end of the document or a fault.
    bool readNext();
    bool isStartElement() const;
    // The current element's local name.
    std::string_view name() const;
    // At a start element: its text, its children's included, read up to its end.
    std::string text();
    // At a start element: read up to its end.
    void skipCurrentElement();

    bool hasError() const { return m_at >= m_tokens.size() && !m_problem.empty(); }
    const std::string &errorString() const { return m_problem; }

private:
    enum class Kind : unsigned char { Start, End, Text };
    struct Token {
        Kind kind;
        std::string value; // the name, or the text
    };
    struct Collect;

    std::deque<Token> m_tokens; // grows without moving what it holds
    std::size_t m_at = 0;       // one past the current token; 0 before the first
    std::string m_problem;
};

} // namespace strata::http

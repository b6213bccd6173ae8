// The XML answers of S3 and WebDAV servers, read with libxml2 (backends/http/xml_stream):
// the same events whatever the pieces, the document ending at its root, cut and hostile
// documents refused (a DTD's entities, undeclared ones), and the two parsers built on it:
// a PROPFIND multistatus fed a byte at a time, and an S3 listing.
#include "backends/http/xml_stream.h"
#include "backends/s3/s3_xml.h"
#include "backends/webdav/webdav_multistatus.h"

#include <QtTest>

#include <string>
#include <vector>

using strata::http::XmlReader;
using strata::http::XmlStream;

namespace {

// Every event as one line: "+ns|name", "-ns|name", "text".
struct Recorder : XmlStream::Events {
    std::vector<std::string> lines;
    std::string text_;
    void flush()
    {
        if (!text_.empty())
            lines.push_back('"' + text_ + '"');
        text_.clear();
    }
    void start(std::string_view ns, std::string_view name) override
    {
        flush();
        lines.push_back("+" + std::string(ns) + "|" + std::string(name));
    }
    void end(std::string_view ns, std::string_view name) override
    {
        flush();
        lines.push_back("-" + std::string(ns) + "|" + std::string(name));
    }
    void text(std::string_view t) override { text_ += t; }
};

struct Parsed {
    std::vector<std::string> lines;
    bool whole = false;
    std::string problem;
};

// `doc` in pieces of `piece` bytes (0: at once).
Parsed parse(std::string_view doc, std::size_t piece = 0)
{
    Recorder recorder;
    XmlStream stream(recorder);
    bool more = true;
    for (std::size_t at = 0; more && at < doc.size(); at += piece ? piece : doc.size())
        more = stream.feed(doc.substr(at, piece ? piece : doc.size()));
    Parsed out;
    out.whole = stream.finish();
    recorder.flush();
    out.lines = recorder.lines;
    out.problem = stream.problem();
    return out;
}

} // namespace

class XmlStreamTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesTextAndNamespacesInAnyPieces()
    {
        const std::string doc = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                                "<D:multistatus xmlns:D=\"DAV:\"><D:href>/a%20b/caf\xC3\xA9</D:href>"
                                "<x:other xmlns:x=\"urn:x\">1 &amp; 2 &#x41;<![CDATA[<raw>]]></x:other>"
                                "<plain/></D:multistatus>";
        const std::vector<std::string> expected = {"+DAV:|multistatus", "+DAV:|href",   "\"/a%20b/caf\xC3\xA9\"",
                                                   "-DAV:|href",        "+urn:x|other", "\"1 & 2 A<raw>\"",
                                                   "-urn:x|other",      "+|plain",      "-|plain",
                                                   "-DAV:|multistatus"};
        for (std::size_t piece : {0, 1, 2, 3, 7, 64}) {
            const Parsed p = parse(doc, piece);
            QVERIFY2(p.whole, p.problem.c_str());
            QCOMPARE(p.lines, expected);
        }
    }

    void endsAtTheRootWhateverFollows()
    {
        for (std::size_t piece : {0, 1, 5}) {
            const Parsed p = parse("<r>x</r><second/>garbage <&", piece);
            QVERIFY2(p.whole, p.problem.c_str());
            QCOMPARE(p.lines, (std::vector<std::string>{"+|r", "\"x\"", "-|r"}));
        }
    }

    void aCutDocumentIsNotWhole()
    {
        for (const char *doc : {"", "<?xml version=\"1.0\"?>", "<r><a>text</a>", "<r><a>te", "<r"}) {
            const Parsed p = parse(doc);
            QVERIFY2(!p.whole, doc);
            QVERIFY(!p.problem.empty());
        }
        QCOMPARE(parse("").problem, std::string("the document is empty"));
        for (const char *doc : {"<r><a>text</a>", "<r><a>te", "<r", "<?xml version=\"1.0\"?>"})
            QCOMPARE(parse(doc).problem, std::string("the document ends before its root element does"));
    }

    void utf8WhateverTheDeclarationSays()
    {
        // No conversion (iconv's faults would go to stderr): the bytes are read as UTF-8.
        for (const char *encoding : {"UTF-16", "EBCDIC", "ISO-8859-1", "bogus"}) {
            const Parsed p =
                parse(std::string("<?xml version=\"1.0\" encoding=\"") + encoding + "\"?><r>caf\xC3\xA9</r>");
            QVERIFY2(p.whole, p.problem.c_str());
            QCOMPARE(p.lines, (std::vector<std::string>{"+|r", "\"caf\xC3\xA9\"", "-|r"}));
        }
        const Parsed latin1 = parse("<r>caf\xE9</r>");
        QVERIFY(!latin1.whole);
        QCOMPARE(latin1.problem.find('\n'), std::string::npos);
        QVERIFY(!parse("\x4C\x6F\xA7\x94<r/>").whole); // EBCDIC's first bytes: not read as EBCDIC
    }

    void brokenDocumentsSayWhere()
    {
        const Parsed p = parse("<r>\n<a></b></r>");
        QVERIFY(!p.whole);
        QVERIFY2(p.problem.find("line 2") != std::string::npos, p.problem.c_str());
        // Events up to the fault only.
        QCOMPARE(p.lines, (std::vector<std::string>{"+|r", "\"\n\"", "+|a"}));
        QVERIFY(!parse("<r>\xFF</r>").whole);                             // not UTF-8
        QVERIFY(!parse("<r>&#1;</r>").whole);                             // a control character
        QVERIFY(!parse("<r>&nbsp;</r>").whole);                           // an entity never declared
        QVERIFY(!parse("<p:r/>").whole);                                  // a prefix never declared
        QVERIFY(!parse("<r a='1' a='2'/>").whole);                        // an attribute twice
        QVERIFY(!parse(std::string(300, '<') + std::string("r>")).whole); // nonsense
    }

    void aDocumentTypeIsRefused()
    {
        // The classic attacks: entities that grow a billion-fold, and one that reads a file.
        const std::string laughs = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\">"
                                   "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">"
                                   "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]><r>&c;</r>";
        const std::string file = "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>";
        const std::string external = "<!DOCTYPE r SYSTEM \"http://127.0.0.1:1/r.dtd\"><r/>";
        for (const std::string &doc : {laughs, file, external}) {
            for (std::size_t piece : {0, 1}) {
                const Parsed p = parse(doc, piece);
                QVERIFY(!p.whole);
                QVERIFY2(p.problem.find("document type") != std::string::npos, p.problem.c_str());
                QVERIFY(p.lines.empty());
            }
        }
    }

    void readerWalksAsQtsDid()
    {
        XmlReader reader("<a><b>one<i>two</i>three</b><c><d>skipped</d></c><e/></a>");
        QVERIFY(reader.readNextStartElement());
        QCOMPARE(reader.name(), std::string_view("a"));
        QVERIFY(reader.readNextStartElement());
        QCOMPARE(reader.name(), std::string_view("b"));
        QCOMPARE(reader.text(), std::string("onetwothree"));
        QVERIFY(reader.readNextStartElement());
        QCOMPARE(reader.name(), std::string_view("c"));
        reader.skipCurrentElement();
        QVERIFY(reader.readNextStartElement());
        QCOMPARE(reader.name(), std::string_view("e"));
        QCOMPARE(reader.text(), std::string());
        QVERIFY(!reader.readNextStartElement()); // </a>
        QVERIFY(!reader.hasError());

        XmlReader cut("<a><b>one</b><c>");
        QVERIFY(cut.readNextStartElement());
        QVERIFY(cut.readNextStartElement());
        QCOMPARE(cut.text(), std::string("one"));
        QVERIFY(!cut.hasError()); // not reached yet
        QVERIFY(cut.readNextStartElement());
        QVERIFY(!cut.readNextStartElement());
        QVERIFY(cut.hasError());
        QVERIFY(!cut.errorString().empty());
    }

    void multistatusByteByByte()
    {
        const std::string doc = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\">"
                                "<D:response><D:href>/dav/caf%C3%A9/</D:href><D:propstat><D:prop>"
                                "<D:resourcetype><D:collection/></D:resourcetype></D:prop>"
                                "<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
                                "<D:response><D:href>/dav/\xC3\xA9t\xC3\xA9.txt</D:href><D:propstat><D:prop>"
                                "<D:getcontentlength>42</D:getcontentlength><D:getetag>\"e\"</D:getetag>"
                                "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
                                "</D:multistatus>";
        for (std::size_t piece : {std::size_t(1), doc.size()}) {
            std::vector<strata::webdav::DavResource> got;
            strata::webdav::MultistatusParser parser([&](auto &&r) { got.push_back(std::move(r)); });
            for (std::size_t at = 0; at < doc.size(); at += piece)
                QVERIFY2(parser.feed(std::string_view(doc).substr(at, piece)), parser.problem().c_str());
            QCOMPARE(parser.finish(), std::string());
            QCOMPARE(got.size(), std::size_t(2));
            QVERIFY(got[0].collection);
            QCOMPARE(got[0].href, std::string("/dav/caf%C3%A9/"));
            QCOMPARE(got[1].href, std::string("/dav/\xC3\xA9t\xC3\xA9.txt"));
            QCOMPARE(got[1].length, std::optional<std::uint64_t>(42));
            QCOMPARE(got[1].etag, std::string("\"e\""));
        }
    }

    void multistatusRefusals()
    {
        auto verdict = [](std::string_view doc, std::size_t piece) {
            strata::webdav::MultistatusParser parser([](auto &&) {});
            for (std::size_t at = 0; at < doc.size(); at += piece)
                if (!parser.feed(doc.substr(at, piece)))
                    break;
            return parser.finish();
        };
        const std::string ok = "<D:multistatus xmlns:D=\"DAV:\"/>";
        for (std::size_t piece : {1, 2, 3, 100}) {
            QCOMPARE(verdict(ok, piece), std::string());
            // Bytes past the end are still checked, however the answer was cut.
            QCOMPARE(verdict(ok + "\xE0\x80\x80", piece), std::string("the answer is not UTF-8 text"));
            QCOMPARE(verdict(ok + "\xED\xA0\x80", piece), std::string("the answer is not UTF-8 text")); // surrogate
            QCOMPARE(verdict(ok + "\xF4\x90\x80\x80", piece), std::string("the answer is not UTF-8 text"));
            QCOMPARE(verdict(ok + "\xF0\x9F\x98\x80 trailing", piece), std::string());
            QCOMPARE(verdict(ok + std::string(1, '\0'), piece),
                     std::string("the answer holds a control character XML does not allow"));
            QCOMPARE(verdict("<multistatus/>", piece), std::string("the answer is not a WebDAV multistatus"));
            QCOMPARE(verdict("<D:multistatus xmlns:D=\"DAV:\"><D:response>", piece),
                     std::string("it ends before </D:multistatus>"));
            QCOMPARE(verdict("", piece), std::string("the answer is empty"));
            QVERIFY(verdict("<!DOCTYPE D:multistatus [<!ENTITY x \"y\">]>" + ok, piece).find("document type")
                    != std::string::npos);
        }
    }

    void s3ListingWithControlCharactersAndACut()
    {
        const std::string page = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                                 "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                                 "<Contents><Key>a\x01&#2;b</Key><Size>7</Size></Contents>"
                                 "<Contents><Key>&lt;c&gt;</Key><Size>8</Size></Contents>"
                                 "<CommonPrefixes><Prefix>d/</Prefix></CommonPrefixes>"
                                 "<IsTruncated>true</IsTruncated><NextContinuationToken>t</NextContinuationToken>"
                                 "</ListBucketResult>";
        auto list = strata::s3::parseList(page);
        QVERIFY2(list, list ? "" : list.error().message().c_str());
        QCOMPARE(list->objects.size(), std::size_t(2));
        QCOMPARE(list->objects[0].key, std::string("a\x01\x02") + "b");
        QCOMPARE(list->objects[0].size, std::uint64_t(7));
        QCOMPARE(list->objects[1].key, std::string("<c>"));
        QCOMPARE(list->prefixes, std::vector<std::string>{"d/"});
        QVERIFY(list->truncated);
        QCOMPARE(list->nextToken, std::string("t"));

        auto cut = strata::s3::parseList(page.substr(0, page.size() / 2));
        QVERIFY(!cut);
        QCOMPARE(cut.error().kind(), strata::ErrorKind::Corrupt);
    }
};

QTEST_GUILESS_MAIN(XmlStreamTest)
#include "test_xml_stream.moc"

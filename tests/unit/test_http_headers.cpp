// The response headers the HTTP client keeps inline (KeptHeaders): known names in any
// case, the last of a repeated header, long values, and a server that repeats a long
// header without end (memory stays bounded, no value is cut or shifted).
#include "backends/http/http_client.h"

#include <QtTest>

#include <string>

using strata::http::KeptHeaders;

class HttpHeadersTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void keepsKnownNamesInAnyCase()
    {
        KeptHeaders h;
        h.keep("Content-Length", "1234");
        h.keep("ETAG", "\"abc\"");
        h.keep("X-Other", "ignored");
        QCOMPARE(h.get("content-length"), std::string_view("1234"));
        QCOMPARE(h.get("etag"), std::string_view("\"abc\""));
        QVERIFY(h.get("location").empty());
        h.clear();
        QVERIFY(h.get("etag").empty());
    }

    void lastOfARepeatedHeaderWins()
    {
        KeptHeaders h;
        h.keep("Location", "/first");
        h.keep("location", "/second");
        QCOMPARE(h.get("location"), std::string_view("/second"));
    }

    void longValuesAreWhole()
    {
        KeptHeaders h;
        const std::string longValue(70000, 'x'); // longer than 64 KiB: no 16-bit truncation
        h.keep("Location", longValue);
        h.keep("ETag", "\"e\"");
        QCOMPARE(h.get("location").size(), longValue.size());
        QCOMPARE(h.get("etag"), std::string_view("\"e\""));
    }

    void endlessRepeatsStayBounded()
    {
        KeptHeaders h;
        const std::string value(40000, 'v');
        for (int i = 0; i < 100; ++i) // 4 MB of one header from a hostile server
            h.keep("Location", value + std::to_string(i));
        // Beyond the bound the header is dropped rather than kept wrong.
        const auto got = h.get("location");
        QVERIFY(got.empty() || got == std::string_view(value + "99"));
        h.keep("Content-Type", "text/plain"); // short values still fit inline
        QCOMPARE(h.get("content-type"), std::string_view("text/plain"));
    }
};

QTEST_APPLESS_MAIN(HttpHeadersTest)
#include "test_http_headers.moc"

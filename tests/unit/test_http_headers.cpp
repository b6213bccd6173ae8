// The response headers the HTTP client keeps inline (KeptHeaders): known names in any
// case, the last of a repeated header, long values, and a server that repeats a long
// header without end (memory stays bounded, no value is cut or shifted). And the times
// servers send: ISO 8601 (S3 listings) and HTTP dates (Last-Modified, WebDAV).
#include "backends/http/http_client.h"
#include "backends/http/http_time.h"

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

    void timesAsServersWriteThem()
    {
        using strata::http::parseTime;
        constexpr std::int64_t s = 1'000'000'000;
        const std::int64_t t = 1796020872; // 2026-11-30 06:41:12 UTC
        QCOMPARE(parseTime("2026-11-30T06:41:12.000Z"), std::optional(t * s));
        QCOMPARE(parseTime("2026-11-30T06:41:12.123456789Z"), std::optional(t * s + 123456789));
        QCOMPARE(parseTime("2026-11-30T06:41:12.5Z"), std::optional(t * s + 500'000'000));
        QCOMPARE(parseTime("2026-11-30T06:41:12Z"), std::optional(t * s));
        QCOMPARE(parseTime("2026-11-30T08:41:12+02:00"), std::optional(t * s));
        QCOMPARE(parseTime("2026-11-30T01:11:12-05:30"), std::optional(t * s));
        QCOMPARE(parseTime("Mon, 30 Nov 2026 06:41:12 GMT"), std::optional(t * s));
        QCOMPARE(parseTime("1970-01-01T00:00:00Z"), std::optional(std::int64_t(0)));
        // Not a moment, or not one 64-bit nanoseconds can hold.
        for (const char *bad : {"", "yesterday", "2026-11-30T06:41:12", "2026-11-30T06:41:12.Z", "2026-02-30T00:00:00Z",
                                "2026-11-30T25:00:00Z", "2026-11-30T06:41:12Zjunk", "2026-11-30T06:41:12+2:00",
                                "9999-12-31T23:59:59Z", "5", "Mon, 30 Nov 2026"})
            QVERIFY2(!parseTime(bad), bad);
    }
};

QTEST_APPLESS_MAIN(HttpHeadersTest)
#include "test_http_headers.moc"

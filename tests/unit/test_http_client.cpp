// The HTTP client against a loopback server that answers exactly the bytes each test
// scripts: framings (Content-Length, chunked, until close, HEAD, 1xx), kept connections
// and a server that closes them, bodies into the caller's buffer (skip, overflow), limits
// and broken answers (truncated, malformed, silent, an empty range), header injection.
#include "backends/http/http_client.h"
#include "tests/unit/loopback_http_server.h"

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace strata;
using namespace strata::testing;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<http::Client> makeClient(http::ClientOptions options = {})
{
    return std::make_unique<http::Client>(std::move(options));
}

// The request keeps a view of url: the caller keeps the string alive.
http::Request get(const std::string &url)
{
    http::Request r;
    r.url = url;
    return r;
}

} // namespace

class HttpClientTest : public QObject {
    Q_OBJECT

private:
    // A request to a server that answers with `reply` fails as a timeout within `withinMs`.
    static void expectTimeout(const Reply &reply, std::chrono::seconds stall, qint64 withinMs)
    {
        ScriptServer server([&](const Seen &, int) { return reply; });
        http::ClientOptions options;
        options.stallTimeout = stall;
        auto client = makeClient(options);
        QElapsedTimer timer;
        timer.start();
        auto r = client->perform(get(server.url()));
        QVERIFY(!r);
        QCOMPARE(r.error().kind(), ErrorKind::Timeout);
        QVERIFY2(timer.elapsed() < withinMs, std::to_string(timer.elapsed()).c_str());
    }

private Q_SLOTS:
    void initTestCase()
    {
        for (const char *name : {"http_proxy", "all_proxy", "ALL_PROXY"})
            ::unsetenv(name);
    }

    void keepsTheConnection()
    {
        ScriptServer server(
            [](const Seen &, int i) { return Reply{ok("body " + std::to_string(i), "ETag: \"e1\"\r\n")}; });
        auto client = makeClient();
        for (int i = 0; i < 3; ++i) {
            auto r = client->perform(get(server.url()));
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QCOMPARE(r->status, 200L);
            QCOMPARE(r->body, "body " + std::to_string(i));
            QCOMPARE(r->header("ETag"), std::string_view("\"e1\""));
        }
        QCOMPARE(server.connections(), 1);
        const auto seen = server.seen();
        QVERIFY(seen[0].head.starts_with("GET /x HTTP/1.1\r\n"));
        QVERIFY(seen[0].head.find("\r\nHost: 127.0.0.1:") != std::string::npos);
        QVERIFY(seen[0].head.find("\r\nUser-Agent: strata\r\n") != std::string::npos);
    }

    // A server that sends an answer's head and body apart, Nagle's algorithm on, sends the
    // body once the head is acknowledged: with Linux's delayed ACKs, 40 ms later on a
    // connection that looks interactive (from its second answer on), unless the client
    // acknowledges the head at once.
    void answersSentInTwoPartsAreNotHeldBack()
    {
        const std::string body(200, 'b');
        const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n";
        ScriptServer server([&](const Seen &, int) {
            Reply reply{head + body};
            reply.splitAt = head.size();
            return reply;
        });
        auto client = makeClient();
        constexpr int kAnswers = 12;
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < kAnswers; ++i) {
            auto r = client->perform(get(server.url()));
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QCOMPARE(r->body, body);
        }
        QCOMPARE(server.connections(), 1);
        // Held back, each answer after the first takes 40 ms or more: 440 ms in all.
        QVERIFY2(timer.elapsed() < 220, (std::to_string(timer.elapsed()) + " ms for 12 answers").c_str());
    }

    void readsChunkedBodies()
    {
        ScriptServer server([](const Seen &, int) {
            return Reply{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n"};
        });
        auto client = makeClient();
        for (int i = 0; i < 2; ++i) {
            auto r = client->perform(get(server.url()));
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QCOMPARE(r->body, std::string("hello 0123456789"));
        }
        QCOMPARE(server.connections(), 1);
    }

    void readsABodyThatEndsWithTheConnection()
    {
        ScriptServer server([](const Seen &, int) { return Reply{"HTTP/1.0 200 OK\r\n\r\nuntil the end", true}; });
        auto client = makeClient();
        for (int i = 0; i < 2; ++i) {
            auto r = client->perform(get(server.url()));
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QCOMPARE(r->body, std::string("until the end"));
        }
        QCOMPARE(server.connections(), 2);
    }

    void headHasNoBody()
    {
        ScriptServer server([](const Seen &s, int) {
            if (s.head.starts_with("HEAD"))
                return Reply{"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nLast-Modified: yesterday\r\n\r\n"};
            return Reply{ok("after")};
        });
        auto client = makeClient();
        const std::string url = server.url();
        http::Request head = get(url);
        head.method = "HEAD";
        auto r = client->perform(head);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->header("content-length"), std::string_view("1000"));
        QVERIFY(r->body.empty());
        auto after = client->perform(get(server.url()));
        QVERIFY2(after, after ? "" : after.error().message().c_str());
        QCOMPARE(after->body, std::string("after"));
        QCOMPARE(server.connections(), 1);
    }

    void skipsInterimAnswers()
    {
        ScriptServer server([](const Seen &, int) { return Reply{"HTTP/1.1 100 Continue\r\n\r\n" + ok("final")}; });
        auto client = makeClient();
        auto r = client->perform(get(server.url()));
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->status, 200L);
        QCOMPARE(r->body, std::string("final"));
    }

    void sendsBodies()
    {
        ScriptServer server(
            [](const Seen &, int) { return Reply{"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"}; });
        auto client = makeClient();
        std::string large(300000, '\0');
        for (std::size_t i = 0; i < large.size(); ++i)
            large[i] = char('a' + i % 26);
        const http::HeaderRef headers[] = {{"Content-Type", "text/plain"}, {"X-Empty", ""}};
        const std::string url = server.url("/p?partNumber=1");
        for (const std::string &payload : {std::string("small"), large, std::string()}) {
            http::Request put = get(url);
            put.method = "PUT";
            put.headers = headers;
            put.body = std::as_bytes(std::span(payload));
            auto r = client->perform(put);
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QCOMPARE(r->status, 201L);
        }
        const auto seen = server.seen();
        QCOMPARE(seen.size(), std::size_t(3));
        QVERIFY(seen[0].head.starts_with("PUT /p?partNumber=1 HTTP/1.1\r\n"));
        QCOMPARE(seen[0].body, std::string("small"));
        QCOMPARE(seen[1].body.size(), large.size());
        QVERIFY(seen[1].body == large);
        QVERIFY(seen[2].head.find("\r\nContent-Length: 0\r\n") != std::string::npos);
        QVERIFY(seen[0].head.find("\r\nContent-Type: text/plain\r\n") != std::string::npos);
        QVERIFY(seen[0].head.find("\r\nX-Empty:") != std::string::npos);
        QCOMPARE(server.connections(), 1);
    }

    void bodyIntoTheCallersBuffer()
    {
        ScriptServer server([](const Seen &s, int) {
            if (s.head.starts_with("GET /error"))
                return Reply{"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nNoSuchKey"};
            return Reply{ok("0123456789")};
        });
        auto client = makeClient();
        std::array<std::byte, 10> exact{};
        const std::string url = server.url(), errorUrl = server.url("/error");
        http::Request r = get(url);
        r.into = exact;
        auto a = client->perform(r);
        QVERIFY2(a, a ? "" : a.error().message().c_str());
        QCOMPARE(a->received, std::size_t(10));
        QVERIFY(!a->overflow);
        QCOMPARE(std::string(reinterpret_cast<const char *>(exact.data()), 10), std::string("0123456789"));
        // A server that ignored the range: the first bytes are dropped.
        std::array<std::byte, 6> tail{};
        r.into = tail;
        r.skip = 4;
        auto b = client->perform(r);
        QVERIFY2(b, b ? "" : b.error().message().c_str());
        QCOMPARE(b->received, std::size_t(6));
        QCOMPARE(std::string(reinterpret_cast<const char *>(tail.data()), 6), std::string("456789"));
        // More than the buffer holds: what fits, and overflow.
        std::array<std::byte, 4> small{};
        r.into = small;
        r.skip = 0;
        auto c = client->perform(r);
        QVERIFY2(c, c ? "" : c.error().message().c_str());
        QVERIFY(c->overflow);
        QCOMPARE(c->received, std::size_t(4));
        QCOMPARE(std::string(reinterpret_cast<const char *>(small.data()), 4), std::string("0123"));
        // An error answer is kept in body, not written into the buffer.
        http::Request e = get(errorUrl);
        e.into = exact;
        auto d = client->perform(e);
        QVERIFY2(d, d ? "" : d.error().message().c_str());
        QCOMPARE(d->status, 404L);
        QCOMPARE(d->body, std::string("NoSuchKey"));
        QCOMPARE(d->received, std::size_t(0));
        // The connection after the overflow was not reused (its rest was on the wire).
        auto f = client->perform(get(server.url()));
        QVERIFY2(f, f ? "" : f.error().message().c_str());
        QCOMPARE(f->body, std::string("0123456789"));
    }

    void reconnectsWhenTheServerClosedAKeptConnection()
    {
        // Each answer says nothing about closing, then the server closes: the client
        // finds its kept connection dead and must not fail the next request.
        ScriptServer server([](const Seen &, int i) { return Reply{ok("n" + std::to_string(i)), true}; });
        auto client = makeClient();
        for (int i = 0; i < 3; ++i) {
            auto r = client->perform(get(server.url()));
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QCOMPARE(r->body, "n" + std::to_string(i));
            // The next request goes out only once the server has closed this connection.
            const auto deadline = std::chrono::steady_clock::now() + 10s;
            while (server.closed() < i + 1 && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(1ms);
            QCOMPARE(server.closed(), i + 1);
        }
        QCOMPARE(server.connections(), 3);
    }

    void retriesARequestTheServerDroppedUnanswered()
    {
        // The second request arrives on a kept connection the server drops without an
        // answer (its idle timeout racing the request): sent again on a new connection.
        ScriptServer server([](const Seen &s, int i) {
            if (i == 1 && s.connection == 1)
                return Reply{"", true};
            return Reply{ok("r" + std::to_string(i))};
        });
        auto client = makeClient();
        auto first = client->perform(get(server.url()));
        QVERIFY2(first, first ? "" : first.error().message().c_str());
        auto second = client->perform(get(server.url()));
        QVERIFY2(second, second ? "" : second.error().message().c_str());
        QCOMPARE(second->body, std::string("r2"));
        QCOMPARE(server.connections(), 2);
    }

    void brokenAnswersAreErrors_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<int>("kind");
        const QByteArray truncated = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part";
        const QByteArray garbage = "SSH-2.0-OpenSSH_9.2\r\n\r\n";
        const QByteArray badStatus = "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n";
        const QByteArray badChunk = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n";
        const QByteArray noAnswer = "";
        QTest::newRow("truncated body") << truncated << int(ErrorKind::Network);
        QTest::newRow("not http") << garbage << int(ErrorKind::Network);
        QTest::newRow("bad status") << badStatus << int(ErrorKind::Network);
        QTest::newRow("bad chunk") << badChunk << int(ErrorKind::Network);
        QTest::newRow("closed without answer") << noAnswer << int(ErrorKind::Network);
    }
    void brokenAnswersAreErrors()
    {
        QFETCH(QByteArray, answer);
        QFETCH(int, kind);
        const std::string bytes = answer.toStdString();
        ScriptServer server([&](const Seen &, int) { return Reply{bytes, true}; });
        auto client = makeClient();
        auto r = client->perform(get(server.url()));
        QVERIFY2(!r, r ? ("answered " + std::to_string(r->status) + " " + r->body).c_str() : "");
        QCOMPARE(int(r.error().kind()), kind);
        const std::string message = r.error().message();
        QVERIFY2(message.find("127.0.0.1") != std::string::npos, message.c_str());
        // The same client goes on working with a server that answers.
        ScriptServer good([](const Seen &, int) { return Reply{ok("fine")}; });
        auto g = client->perform(get(good.url()));
        QVERIFY2(g, g ? "" : g.error().message().c_str());
        QCOMPARE(g->body, std::string("fine"));
    }

    void aSilentServerTimesOut() { expectTimeout(Reply{{}, false, true}, 1s, 5000); }

    void aDeadPortIsAClearError()
    {
        int port = 0;
        {
            ScriptServer gone([](const Seen &, int) { return Reply{}; });
            port = std::stoi(gone.url().substr(17));
        }
        auto client = makeClient();
        auto r = client->perform(get("http://127.0.0.1:" + std::to_string(port) + "/x"));
        QVERIFY(!r);
        QCOMPARE(r.error().kind(), ErrorKind::Network);
        QVERIFY2(r.error().message().find("cannot connect to 127.0.0.1:" + std::to_string(port)) != std::string::npos,
                 r.error().message().c_str());
    }

    void aBodyAboveTheLimitIsRefused()
    {
        ScriptServer server([](const Seen &, int) { return Reply{ok(std::string(5000, 'z'))}; });
        auto client = makeClient();
        const std::string url = server.url();
        http::Request r = get(url);
        r.maxBody = 1000;
        auto a = client->perform(r);
        QVERIFY(!a);
        QCOMPARE(a.error().kind(), ErrorKind::Corrupt);
    }

    void anEmptyRangeEndsAtOnce()
    {
        // s3rver's answer to a range of an empty object: one byte announced, none sent.
        ScriptServer server([](const Seen &, int) {
            return Reply{"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-0/0\r\nContent-Length: 1\r\n\r\n"};
        });
        http::ClientOptions options;
        options.stallTimeout = 10s;
        auto client = makeClient(options);
        std::array<std::byte, 16> into{};
        const std::string url = server.url();
        http::Request r = get(url);
        r.into = into;
        QElapsedTimer timer;
        timer.start();
        auto a = client->perform(r);
        QVERIFY2(a, a ? "" : a.error().message().c_str());
        QVERIFY(a->emptyRange);
        QCOMPARE(a->received, std::size_t(0));
        QVERIFY(timer.elapsed() < 5000);
    }

    void anEarlyAnswerToAnUploadIsRead()
    {
        // A server that refuses an upload after its head, without reading the 16 MiB body.
        ScriptServer server(
            [](const Seen &, int) {
                return Reply{"HTTP/1.1 403 Forbidden\r\nContent-Length: 13\r\nConnection: close\r\n\r\nAccessDenied!"};
            },
            Bodies::Unread);
        auto client = makeClient();
        const std::string url = server.url();
        const std::string payload(16u << 20, 'u');
        http::Request put = get(url);
        put.method = "PUT";
        put.body = std::as_bytes(std::span(payload));
        auto r = client->perform(put);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->status, 403L);
        QCOMPARE(r->body, std::string("AccessDenied!"));
    }

    void aResetIsNotTheEndOfABody()
    {
        // A body that ends with the connection: a reset cuts it, it does not end it.
        ScriptServer server([](const Seen &, int) {
            Reply r{"HTTP/1.1 200 OK\r\n\r\n" + std::string(100000, 'b')};
            r.reset = true;
            return r;
        });
        auto client = makeClient();
        auto r = client->perform(get(server.url()));
        QVERIFY2(!r, r ? ("got " + std::to_string(r->body.size()) + " bytes").c_str() : "");
        QCOMPARE(r.error().kind(), ErrorKind::Network);
    }

    void aDrippingServerTimesOut()
    {
        // One byte every 1.5 s: never silent for the stall timeout (2 s), yet under a byte a
        // second; the request fails instead of lasting as long as the server likes (the
        // answer would take a minute).
        Reply drip{ok(std::string(40, 'd'))};
        drip.dripMs = 1500;
        expectTimeout(drip, 2s, 30000); // the whole answer would take a minute
    }

    void endlessInterimAnswersEnd()
    {
        std::string flood;
        for (int i = 0; i < 60000; ++i) // 1.5 MB of "100 Continue"
            flood += "HTTP/1.1 100 Continue\r\n\r\n";
        ScriptServer server([&](const Seen &, int) { return Reply{flood + ok("never")}; });
        auto client = makeClient();
        auto r = client->perform(get(server.url()));
        QVERIFY2(!r, r ? r->body.c_str() : "");
    }

    void toleratedAndRefusedHeads_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("folded header") << QByteArray("HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 2\r\n\r\nok")
                                       << true;
        QTest::newRow("repeated length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok") << true;
        QTest::newRow("four-digit status") << QByteArray("HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok") << false;
        QTest::newRow("overlong status line")
            << QByteArray("HTTP/1.1 200 " + QByteArray(600000, 'x') + "\r\nContent-Length: 2\r\n\r\nok") << false;
    }
    void toleratedAndRefusedHeads()
    {
        QFETCH(QByteArray, answer);
        QFETCH(bool, accepted);
        const std::string bytes = answer.toStdString();
        ScriptServer server([&](const Seen &, int) { return Reply{bytes, true}; });
        auto client = makeClient();
        auto r = client->perform(get(server.url()));
        if (accepted) {
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QCOMPARE(r->body, std::string("ok"));
        } else {
            QVERIFY2(!r, r ? ("accepted, status " + std::to_string(r->status)).c_str() : "");
        }
    }

    void noStallLimitMeansWaiting()
    {
        ScriptServer server([](const Seen &, int) {
            std::this_thread::sleep_for(300ms);
            return Reply{ok("late")};
        });
        http::ClientOptions options;
        options.stallTimeout = 0s; // as libcurl's CURLOPT_LOW_SPEED_TIME 0: no limit
        auto client = makeClient(options);
        auto r = client->perform(get(server.url()));
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->body, std::string("late"));
    }

    void refusesLineBreaksInHeaders()
    {
        ScriptServer server([](const Seen &, int) { return Reply{ok("x")}; });
        auto client = makeClient();
        const http::HeaderRef headers[] = {{"X-Meta", "a\r\nX-Injected: 1"}};
        const std::string url = server.url();
        http::Request r = get(url);
        r.headers = headers;
        auto a = client->perform(r);
        QVERIFY(!a);
        QCOMPARE(a.error().kind(), ErrorKind::InvalidInput);
        QVERIFY(server.seen().empty());
    }
};

QTEST_GUILESS_MAIN(HttpClientTest)
#include "test_http_client.moc"

// SocketWatch on real loopback TCP connections: a socket waited on that moves no byte is
// shut down after the timeout (a blocked recv returns), one that moves bytes is not, one
// nobody waits on is never cut, and hangUp() cuts every socket, later ones too.
#include "tests/unit/unit_checks.h"

#include "core/io/socket_watch.h"

#include <QElapsedTimer>
#include <QTest>

#include <chrono>
#include <thread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace strata {

namespace {

using namespace std::chrono_literals;

// A connected pair on 127.0.0.1: `client` is ours, `server` the peer that answers or not.
struct Connection {
    int listener = -1, client = -1, server = -1;
    Connection()
    {
        listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in at{};
        at.sin_family = AF_INET;
        at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof at;
        ::bind(listener, reinterpret_cast<sockaddr *>(&at), sizeof at);
        ::listen(listener, 1);
        ::getsockname(listener, reinterpret_cast<sockaddr *>(&at), &size);
        client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ::connect(client, reinterpret_cast<sockaddr *>(&at), sizeof at);
        server = ::accept(listener, nullptr, nullptr);
    }
    ~Connection()
    {
        for (int fd : {listener, client, server})
            if (fd >= 0)
                ::close(fd);
    }
    bool ok() const { return listener >= 0 && client >= 0 && server >= 0; }
};

// A connection whose client side `watch` watches and waits on from the start; given back
// (end, remove) at the end of the test.
struct Watched {
    Connection c;
    SocketWatch &watch;
    bool waiting = true;
    explicit Watched(SocketWatch &w) : watch(w)
    {
        watch.add(c.client);
        watch.begin(c.client);
    }
    ~Watched()
    {
        end();
        watch.remove(c.client);
    }
    void end()
    {
        if (waiting)
            watch.end(c.client);
        waiting = false;
    }
};

// How long a recv on `fd` waits before it returns (0 at a shut-down socket).
qint64 recvReturnsAfter(int fd, ssize_t &got)
{
    QElapsedTimer timer;
    timer.start();
    char byte = 0;
    got = ::recv(fd, &byte, 1, 0);
    return timer.elapsed();
}

} // namespace

class TestSocketWatch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void silentPeerIsCutAfterTheTimeout()
    {
        SocketWatch watch(400ms);
        Watched w(watch);
        QVERIFY(w.c.ok());
        ssize_t got = -1;
        const qint64 ms = recvReturnsAfter(w.c.client, got); // waits for an answer that never comes
        QCOMPARE(got, ssize_t(0));
        QVERIFY2(ms >= 380 && ms < 400 + 250, std::to_string(ms).c_str());
        QCOMPARE(watch.cut(w.c.client), SocketWatch::Cut::Stalled);
    }

    void bytesMovingKeepItAlive()
    {
        SocketWatch watch(300ms);
        Watched w(watch);
        const Connection &c = w.c;
        QVERIFY(c.ok());
        // The peer answers a byte every 100 ms for a second: three timeouts long, never cut.
        std::jthread peer([&] {
            for (int i = 0; i < 10; ++i) {
                std::this_thread::sleep_for(100ms);
                ::send(c.server, "x", 1, MSG_NOSIGNAL);
            }
        });
        char buffer[16];
        std::size_t total = 0;
        while (total < 10) {
            const ssize_t n = ::recv(c.client, buffer, sizeof buffer, 0);
            QVERIFY(n > 0);
            total += std::size_t(n);
        }
        QCOMPARE(watch.cut(c.client), SocketWatch::Cut::No);
    }

    void nothingWaitingIsNeverCut()
    {
        SocketWatch watch(100ms);
        Watched w(watch);
        QVERIFY(w.c.ok());
        w.end(); // a lease given back: idle connections are not watched
        std::this_thread::sleep_for(400ms);
        QCOMPARE(watch.cut(w.c.client), SocketWatch::Cut::No);
    }

    void hangUpCutsEverySocketAtOnce()
    {
        Connection a, b;
        QVERIFY(a.ok() && b.ok());
        SocketWatch watch; // no timeout: only hung up
        watch.add(a.client);
        std::jthread later([&] {
            std::this_thread::sleep_for(100ms);
            watch.hangUp();
        });
        ssize_t got = -1;
        const qint64 ms = recvReturnsAfter(a.client, got);
        QCOMPARE(got, ssize_t(0));
        QVERIFY2(ms < 1000, std::to_string(ms).c_str());
        QCOMPARE(watch.cut(a.client), SocketWatch::Cut::HungUp);
        QVERIFY(watch.hungUp());
        watch.add(b.client); // made after: cut as it comes
        QCOMPARE(watch.cut(b.client), SocketWatch::Cut::HungUp);
        watch.remove(a.client);
        watch.remove(b.client);
    }

    void messages()
    {
        const Error stall = noAnswer("files.example.org:2222", 30s);
        QCOMPARE(stall.kind(), ErrorKind::Timeout);
        QVERIFY(stall.temporary());
        QCOMPARE(stall.cause(), std::string("no answer from files.example.org:2222 for 30 s"));
        QCOMPARE(interrupted().kind(), ErrorKind::Cancelled);
        QVERIFY(!interrupted().temporary());
    }
};

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestSocketWatch)
#include "test_socket_watch.moc"

// Bad input and faults of the WebDAV backend (issue 10), through Registry and Operator as
// the application uses them: each fails with one clear sentence of the right kind, and no
// secret is ever printed. Authentication, names and large listings run against the shared
// lighttpd; servers lighttpd cannot imitate (HTML to PROPFIND, hrefs outside the
// collection, cut-off XML, odd statuses, resets) are webdav_stub.js, whose log the tests read.
#include "tests/behavior/behavior_root.h"
#include "tests/lib/error_checks.h"
#include "tests/lib/scoped_env.h"
#include "tests/lib/stub_process.h"
#include "tests/unit/unit_checks.h"

#include "backends/builtin_backends.h"
#include "core/storage/registry.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <map>
#include <random>
#include <set>

#include <unistd.h>

namespace strata {

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

// One webdav_stub.js server (see its header for the modes).
class Stub : public StubProcess {
public:
    explicit Stub(const QString &mode, const QStringList &args = {})
        : StubProcess(QStringLiteral(STRATA_WEBDAV_STUB_JS), mode, args)
    {
    }
    std::string uri(std::string_view path) const { return "webdav://" + hostPort() + std::string(path); }
    // "METHOD url" of each request.
    std::vector<std::string> requests() const
    {
        std::vector<std::string> out;
        for (const QJsonObject &o : log())
            out.push_back(o.value(QStringLiteral("method")).toString().toStdString() + " "
                          + o.value(QStringLiteral("url")).toString().toStdString());
        return out;
    }
};

// Whether a message holds the secret.
bool leaks(const Error &error, std::string_view secret)
{
    return error.message().find(secret) != std::string::npos;
}

} // namespace

// Starts webdav_stub.js in `mode` as `stub` and declares `op`, the operator of its root.
#define OPEN_STUB(mode)                                  \
    Stub stub(QStringLiteral(mode));                     \
    QVERIFY2(stub.ok(), "webdav_stub.js did not start"); \
    auto stubRoot_ = m_registry.open(stub.uri("/"));     \
    REQUIRE_OK(stubRoot_);                               \
    Operator &op = *stubRoot_->op

// What the process writes to its stderr (fd 2) while one lives, read back by text().
class StderrCapture {
public:
    StderrCapture() : m_file(std::tmpfile())
    {
        std::fflush(stderr);
        m_saved = ::dup(2);
        if (m_file && m_saved >= 0)
            ::dup2(::fileno(m_file), 2);
    }
    ~StderrCapture()
    {
        restore();
        if (m_file)
            std::fclose(m_file);
    }
    StderrCapture(const StderrCapture &) = delete;
    StderrCapture &operator=(const StderrCapture &) = delete;
    std::string text()
    {
        restore();
        std::string out;
        if (!m_file)
            return out;
        std::rewind(m_file);
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, m_file)) > 0;)
            out.append(buf, n);
        return out;
    }

private:
    void restore()
    {
        if (m_saved < 0)
            return;
        std::fflush(stderr);
        ::dup2(m_saved, 2);
        ::close(m_saved);
        m_saved = -1;
    }
    std::FILE *m_file;
    int m_saved = -1;
};

class WebDavFaults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void wrongPasswordIsAuthenticationFailed_data();
    void wrongPasswordIsAuthenticationFailed();
    void missingCredentialsAreAskedFor();
    void aProfileSecretOpensTheArea();
    void passwordInUriIsRefused();
    void netrcSuppliesTheCredentials();
    void environmentPasswordStaysWithItsHost();
    void netrcDefaultIsNeverSent();
    void plainHttpPasswordIsWarnedAbout();
    void digestAuthStreamsLargeUploads();
    void tenThousandEntriesInOnePropfind();
    void htmlAnswerToPropfindIsNamed();
    void truncatedMultistatusIsCorrupt();
    void answersPastTheLimitsAreRefused();
    void hrefsOutsideTheCollectionAreIgnored();
    void statusesMapToKinds();
    void redirectIsNamedWithoutItsQuery();
    void connectionResetIsTemporary();
    void onlyOurTemporaryUploadsAreDiscarded();
    void failedMembersOfAMultistatusFail();

private:
    // A URI on the shared lighttpd: `area` is open, auth or digest.
    std::string uri(std::string_view area, std::string_view path = {}) const
    {
        return "webdav://" + m_hostPort + "/" + std::string(area) + "/" + m_prefix + std::string(path);
    }

    Registry m_registry;
    std::string m_hostPort;
    std::string m_user, m_password;
    std::string m_prefix;
};

void WebDavFaults::initTestCase()
{
    registerBuiltinBackends(m_registry);
    loadEnvFile(env("STRATA_WEBDAV_ENVFILE"));
    const std::string endpoint = env("STRATA_WEBDAV_ENDPOINT");
    if (endpoint.empty())
        QSKIP("no lighttpd: run through CTest (fixture lighttpd), which sets STRATA_WEBDAV_ENVFILE");
    QVERIFY2(endpoint.starts_with("http://127.0.0.1:"), "the test server must be on 127.0.0.1");
    m_hostPort = endpoint.substr(7);
    m_user = env("STRATA_WEBDAV_USER");
    m_password = env("STRATA_WEBDAV_PASSWORD");
    m_prefix = "webdav-faults-" + std::to_string(std::random_device{}());
    for (const char *area : {"open", "auth", "digest"}) {
        auto root = m_registry.open(uri(area));
        REQUIRE_OK(root);
        REQUIRE_OK(root->op->createDir(root->path));
    }
}

void WebDavFaults::cleanupTestCase()
{
    if (m_hostPort.empty())
        return;
    for (const char *area : {"open", "auth", "digest"})
        if (auto root = m_registry.open(uri(area)))
            (void)root->op->removeAll(root->path);
}

void WebDavFaults::wrongPasswordIsAuthenticationFailed_data()
{
    QTest::addColumn<QString>("area");
    QTest::newRow("basic") << QStringLiteral("auth");
    QTest::newRow("digest") << QStringLiteral("digest");
}

void WebDavFaults::wrongPasswordIsAuthenticationFailed()
{
    QFETCH(QString, area);
    const std::string secret = "Zq7-wrong-PASSWORD-do-not-print-4f1e";
    ScopedEnv password("STRATA_WEBDAV_PASSWORD", QByteArray::fromStdString(secret));
    Registry registry; // a fresh one: the shared registry's backend holds the right password
    registerBuiltinBackends(registry);
    auto root = registry.open(uri(area.toStdString()));
    REQUIRE_OK(root);
    Operator &op = *root->op;
    const std::string sentence = "authentication failed at " + m_hostPort
        + " (HTTP 401): the server refused the user name or password; check STRATA_WEBDAV_USER, STRATA_WEBDAV_PASSWORD "
          "or ~/.netrc";
    std::vector<std::byte> buffer(64, std::byte{0});
    auto listed = op.list(root->path);
    REQUIRE_ERROR(listed, ErrorKind::PermissionDenied, sentence);
    QVERIFY2(!leaks(listed.error(), secret), "the password was printed");
    REQUIRE_ERROR(op.stat(root->path + "/x"), ErrorKind::PermissionDenied, sentence);
    REQUIRE_ERROR(op.read(root->path + "/x", 0, buffer), ErrorKind::PermissionDenied, sentence);
    QVERIFY2(std::all_of(buffer.begin(), buffer.end(), [](std::byte b) { return b == std::byte{0}; }),
             "the error answer was written into the read buffer");
    auto written = op.writeAll(root->path + "/x", asBytes("data"));
    REQUIRE_ERROR(written, ErrorKind::PermissionDenied, sentence);
    QVERIFY2(!leaks(written.error(), secret), "the password was printed");
}

// The desktop app's saved connections hand their secret to the registry: it replaces the
// environment's, a wrong one fails with the same sentence, and setting it again reopens.
void WebDavFaults::aProfileSecretOpensTheArea()
{
    const std::string wrong = "profile-wrong-PASSWORD-9c2d";
    ScopedEnv noPassword("STRATA_WEBDAV_PASSWORD");
    Registry registry;
    registerBuiltinBackends(registry);
    const std::string area = uri("auth");
    REQUIRE_OK(registry.setSecret(area, {m_user, wrong, {}}));
    auto root = registry.open(area);
    REQUIRE_OK(root);
    auto refused = root->op->list(root->path);
    REQUIRE_ERROR(refused, ErrorKind::PermissionDenied, "authentication failed");
    QVERIFY2(!leaks(refused.error(), wrong), "the profile's password was printed");
    REQUIRE_OK(registry.setSecret(area, {m_user, m_password, {}}));
    auto reopened = registry.open(area);
    REQUIRE_OK(reopened);
    QVERIFY(reopened->op != root->op); // a new backend with the new secret
    REQUIRE_OK(reopened->op->list(reopened->path));
}

void WebDavFaults::missingCredentialsAreAskedFor()
{
    QTemporaryDir home; // no ~/.netrc
    ScopedEnv homeVar("HOME", home.path().toUtf8());
    ScopedEnv user("STRATA_WEBDAV_USER");
    ScopedEnv password("STRATA_WEBDAV_PASSWORD");
    Registry registry;
    registerBuiltinBackends(registry);
    auto root = registry.open(uri("auth"));
    REQUIRE_OK(root);
    REQUIRE_ERROR(root->op->list(root->path), ErrorKind::PermissionDenied,
                  "authentication failed at " + m_hostPort
                      + " (HTTP 401): the server wants a user name and password; "
                        "set STRATA_WEBDAV_HOST (this server), STRATA_WEBDAV_USER and STRATA_WEBDAV_PASSWORD, or add "
                        "the host to ~/.netrc");
    // The open area needs none.
    auto open = registry.open(uri("open"));
    REQUIRE_OK(open);
    REQUIRE_OK(open->op->list(open->path));
}

void WebDavFaults::passwordInUriIsRefused()
{
    const std::string secret = "Zq7-uri-SECRET-4f1e";
    auto opened = m_registry.open("webdav://strata:" + secret + "@" + m_hostPort + "/auth/");
    REQUIRE_ERROR(opened, ErrorKind::InvalidInput,
                  "a password never goes in a webdav:// URI; set STRATA_WEBDAV_PASSWORD");
    QVERIFY2(!leaks(opened.error(), secret), "the password was printed");
    // A user name alone is fine, and is not printed either (URIs show REDACTED@).
    auto named = m_registry.open("webdav://" + m_user + "@" + m_hostPort + "/auth/");
    REQUIRE_OK(named);
    QVERIFY(named->display().find("REDACTED@") != std::string::npos);
}

// STRATA_WEBDAV_PASSWORD goes only to the server STRATA_WEBDAV_HOST names.
void WebDavFaults::environmentPasswordStaysWithItsHost()
{
    QTemporaryDir home; // no ~/.netrc
    ScopedEnv homeVar("HOME", home.path().toUtf8());
    ScopedEnv user("STRATA_WEBDAV_USER", QByteArray::fromStdString(m_user));
    ScopedEnv password("STRATA_WEBDAV_PASSWORD", QByteArray::fromStdString(m_password));
    auto listWith = [&](const char *host) {
        ScopedEnv named("STRATA_WEBDAV_HOST", host ? QByteArray(host) : QByteArray());
        if (!host)
            qunsetenv("STRATA_WEBDAV_HOST");
        Registry registry;
        registerBuiltinBackends(registry);
        auto root = registry.open(uri("auth"));
        return root ? root->op->list(root->path) : Result<ListPage>(root.error());
    };
    const std::string wants = "the server wants a user name and password";
    REQUIRE_ERROR(listWith(nullptr), ErrorKind::PermissionDenied, wants);
    REQUIRE_ERROR(listWith("127.0.0.1:1"), ErrorKind::PermissionDenied, wants); // another port
    REQUIRE_ERROR(listWith("dav.example"), ErrorKind::PermissionDenied, wants); // another host
    REQUIRE_OK(listWith(m_hostPort.c_str()));
    REQUIRE_OK(listWith("127.0.0.1")); // the host, any port
}

// A "default" entry of ~/.netrc would go to any server: it is never used.
void WebDavFaults::netrcDefaultIsNeverSent()
{
    QTemporaryDir home;
    QFile netrc(home.filePath(QStringLiteral(".netrc")));
    QVERIFY(netrc.open(QIODevice::WriteOnly));
    netrc.write(QByteArray::fromStdString("machine elsewhere.example login x password y\ndefault login " + m_user
                                          + " password " + m_password + "\n"));
    netrc.close();
    netrc.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    ScopedEnv homeVar("HOME", home.path().toUtf8());
    ScopedEnv user("STRATA_WEBDAV_USER");
    ScopedEnv password("STRATA_WEBDAV_PASSWORD");
    for (const std::string &target : {uri("auth"), "webdav://" + m_user + "@" + m_hostPort + "/auth/"}) {
        Registry registry;
        registerBuiltinBackends(registry);
        auto root = registry.open(target);
        REQUIRE_OK(root);
        // With the default entry's password this would succeed.
        REQUIRE_ERROR(root->op->list(root->path), ErrorKind::PermissionDenied,
                      "authentication failed at " + m_hostPort);
    }
}

// A password that would cross a network in the clear is said so before any request.
void WebDavFaults::plainHttpPasswordIsWarnedAbout()
{
    ScopedEnv named("STRATA_WEBDAV_HOST", "dav.example:8080");
    ScopedEnv password("STRATA_WEBDAV_PASSWORD", "plain-PASSWORD-5b1f");
    Registry registry;
    registerBuiltinBackends(registry);
    std::string said;
    {
        StderrCapture captured;
        auto plain = registry.open("webdav://dav.example:8080/x"); // opening sends nothing
        // Over TLS, or to this machine, nothing to say.
        auto tls = registry.open("webdavs://dav.example:8080/x");
        ScopedEnv local("STRATA_WEBDAV_HOST", QByteArray::fromStdString(m_hostPort));
        auto here = registry.open(uri("auth"));
        said = captured.text();
        REQUIRE_OK(plain);
        REQUIRE_OK(tls);
        REQUIRE_OK(here);
    }
    const std::string warning = "strata: warning: the password for dav.example:8080 goes over plain HTTP";
    QVERIFY2(said.find(warning) != std::string::npos, said.c_str());
    QVERIFY2(said.find(warning) == said.rfind(warning), said.c_str()); // once only
    QVERIFY2(said.find("use webdavs://\n") != std::string::npos, said.c_str());
    QVERIFY2(said.find("plain-PASSWORD-5b1f") == std::string::npos, "the password was printed");
}

void WebDavFaults::netrcSuppliesTheCredentials()
{
    QTemporaryDir home;
    QFile netrc(home.filePath(QStringLiteral(".netrc")));
    QVERIFY(netrc.open(QIODevice::WriteOnly));
    netrc.write(QByteArray::fromStdString("machine 127.0.0.1 login " + m_user + " password " + m_password + "\n"));
    netrc.close();
    netrc.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    ScopedEnv homeVar("HOME", home.path().toUtf8());
    ScopedEnv user("STRATA_WEBDAV_USER");
    ScopedEnv password("STRATA_WEBDAV_PASSWORD");
    for (const std::string &target :
         {uri("auth", "/netrc.txt"), "webdav://" + m_user + "@" + m_hostPort + "/digest/" + m_prefix + "/netrc.txt"}) {
        Registry registry;
        registerBuiltinBackends(registry);
        auto file = registry.open(target);
        REQUIRE_OK(file);
        REQUIRE_OK(file->op->writeAll(file->path, asBytes("from netrc")));
        auto back = file->op->readAll(file->path);
        REQUIRE_OK(back);
        QCOMPARE(asString(*back), std::string("from netrc"));
    }
}

void WebDavFaults::digestAuthStreamsLargeUploads()
{
    // 20 MiB through a writer: past the writer's buffer, so the PUT streams while it is
    // written, and a streamed body cannot be sent twice for Digest's 401 round trip.
    auto root = m_registry.open(uri("digest", "/streamed"));
    REQUIRE_OK(root);
    Operator &op = *root->op;
    REQUIRE_OK(op.createDir(root->path));
    const std::string path = root->path + "/large.bin";
    const auto data = patternBytes(20u << 20, 11);
    for (const bool hinted : {true, false}) {
        WriteOptions options;
        if (hinted)
            options.sizeHint = data.size();
        auto writer = op.write(path, options);
        REQUIRE_OK(writer);
        for (std::size_t at = 0; at < data.size(); at += 1u << 20)
            REQUIRE_OK((*writer)->write(std::span(data).subspan(at, 1u << 20)));
        REQUIRE_OK((*writer)->commit());
        auto back = op.readAll(path);
        REQUIRE_OK(back);
        QVERIFY2(*back == data, hinted ? "announced length" : "chunked");
        QCOMPARE(op.listAll(root->path)->size(), std::size_t(1)); // no temporary left beside it
    }
}

void WebDavFaults::tenThousandEntriesInOnePropfind()
{
    // Made on the server's disk, so the names reach us as lighttpd encodes them itself.
    const QString datadir = QFileInfo(QString::fromStdString(env("STRATA_WEBDAV_ENVFILE")))
                                .dir()
                                .filePath(QStringLiteral("lighttpd.datadir"));
    QFile datadirFile(datadir);
    QVERIFY2(datadirFile.open(QIODevice::ReadOnly), "no lighttpd.datadir beside the env file");
    const QString dir = QString::fromUtf8(datadirFile.readAll().trimmed()) + QStringLiteral("/root/open/")
        + QString::fromStdString(m_prefix) + QStringLiteral("/many");
    QVERIFY(QDir().mkpath(dir));
    std::set<std::string> expected = {
        "with some spaces.txt", "données-日本語-ü.txt", "100% done %41.txt", "issue #42.txt", "what?.txt",
        "a+b&c=d.txt",          "<xml> & 'quotes'.txt"};
    for (int i = 0; expected.size() < 10000; ++i)
        expected.insert("entry-" + std::to_string(i));
    for (const auto &name : expected) {
        QFile file(dir + QLatin1Char('/') + QString::fromStdString(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(name));
    }
    Stub proxy(QStringLiteral("proxy"), {QStringLiteral("http://") + QString::fromStdString(m_hostPort)});
    QVERIFY2(proxy.ok(), "webdav_stub.js did not start");
    auto root = m_registry.open(proxy.uri("/open/" + m_prefix + "/many"));
    REQUIRE_OK(root);
    std::map<std::string, std::uint64_t> seen;
    ListOptions options;
    options.pageSize = 1000;
    std::size_t pages = 0, total = 0;
    do {
        auto page = root->op->list(root->path, options);
        REQUIRE_OK(page);
        QVERIFY(page->entries.size() <= options.pageSize);
        for (const auto &e : page->entries)
            seen[e.name] = e.size;
        total += page->entries.size();
        ++pages;
        options.pageToken = page->nextPageToken;
    } while (!options.pageToken.empty());
    QCOMPARE(total, std::size_t(10000));    // nothing repeated...
    QCOMPARE(seen.size(), expected.size()); // ...nothing lost
    for (const auto &name : expected)
        QVERIFY2(seen.count(name) && seen[name] == name.size(), name.c_str());
    // Pages as the answer arrives (ten at least) from one PROPFIND: the listing is kept
    // between pages.
    QVERIFY(pages >= 10);
    QCOMPARE(proxy.requests(), std::vector<std::string>{"PROPFIND /open/" + m_prefix + "/many"});
}

void WebDavFaults::htmlAnswerToPropfindIsNamed()
{
    OPEN_STUB("html");
    const std::string sentence =
        "the server answered PROPFIND with HTTP 200 and an HTML page, not a WebDAV multistatus (207); "
        "is WebDAV enabled at this address?";
    auto listed = op.list("/");
    REQUIRE_ERROR(listed, ErrorKind::Unsupported, sentence);
    QVERIFY2(listed.error().message().find("<html") == std::string::npos, "the page itself was quoted");
    REQUIRE_ERROR(op.stat("/a.txt"), ErrorKind::Unsupported, sentence);
    QCOMPARE(stub.requests().size(), std::size_t(2)); // a permanent error: not retried
}

void WebDavFaults::truncatedMultistatusIsCorrupt()
{
    OPEN_STUB("truncated");
    REQUIRE_ERROR(op.listAll("/dir"), ErrorKind::Corrupt, "the server's PROPFIND answer is malformed or cut short");
    QCOMPARE(stub.requests().size(), std::size_t(1)); // corrupt is permanent: not retried
}

void WebDavFaults::answersPastTheLimitsAreRefused()
{
    {
        OPEN_STUB("longhref");
        REQUIRE_ERROR(op.listAll("/dir"), ErrorKind::Corrupt, "a property is longer than 64 KiB");
    }
    {
        OPEN_STUB("endless");
        REQUIRE_ERROR(op.listAll("/dir"), ErrorKind::Corrupt, "the answer is larger than 512 MiB");
    }
}

void WebDavFaults::hrefsOutsideTheCollectionAreIgnored()
{
    OPEN_STUB("outside");
    // Hrefs that are no path of normal form are named, as sent, in the pages' skipped lists.
    std::vector<std::string> skipped;
    ListOptions options;
    do {
        auto page = op.list("/dir", options);
        REQUIRE_OK(page);
        skipped.insert(skipped.end(), page->skipped.begin(), page->skipped.end());
        options.pageToken = page->nextPageToken;
    } while (!options.pageToken.empty());
    for (const char *raw : {"/dir//double", "/dir/./dot", "/dir/x/../y", "/dir/sub//", "/dir/a%2Fb.txt", "/dir/.."})
        QVERIFY2(std::find(skipped.begin(), skipped.end(), raw) != skipped.end(), raw);
    auto listed = op.listAll("/dir");
    REQUIRE_OK(listed);
    std::map<std::string, std::pair<EntryKind, std::uint64_t>> got;
    for (const auto &e : *listed) {
        QCOMPARE(e.path, "/dir/" + e.name);
        got[e.name] = {e.kind, e.size};
    }
    const std::map<std::string, std::pair<EntryKind, std::uint64_t>> wanted = {
        {"good.txt", {EntryKind::File, 7}}, {"a b.txt", {EntryKind::File, 3}}, {"sub", {EntryKind::Directory, 0}}};
    QVERIFY2(got == wanted, (std::to_string(got.size()) + " entries listed").c_str());
    // A Depth 0 answer about another resource is never taken for the one asked about.
    REQUIRE_ERROR(op.stat("/dir/asked.txt"), ErrorKind::Corrupt, "does not describe the object asked for");
    auto good = op.stat("/dir/good.txt");
    REQUIRE_OK(good);
    QVERIFY(good->isFile()); // the collection of a 404 propstat does not count
}

void WebDavFaults::statusesMapToKinds()
{
    OPEN_STUB("status");
    REQUIRE_ERROR(op.stat("/401/x"), ErrorKind::PermissionDenied, "authentication failed at " + stub.hostPort());
    REQUIRE_ERROR(op.stat("/403/x"), ErrorKind::PermissionDenied,
                  "the server forbids PROPFIND here (HTTP 403 Forbidden)");
    REQUIRE_ERROR(op.stat("/404/x"), ErrorKind::NotFound, "HTTP 404");
    REQUIRE_ERROR(op.createDir("/405/x"), ErrorKind::AlreadyExists, "something already has that name (HTTP 405)");
    REQUIRE_ERROR(op.createDir("/409/x"), ErrorKind::NotFound,
                  "the parent directory does not exist (HTTP 409 Conflict)");
    REQUIRE_ERROR(op.rename("/412/x", "/412/y"), ErrorKind::AlreadyExists, "the destination already exists (HTTP 412)");
    REQUIRE_ERROR(op.stat("/423/x"), ErrorKind::Busy, "it is locked by another client (HTTP 423)");
    REQUIRE_ERROR(op.writeAll("/507/x", asBytes("x")), ErrorKind::NoSpace, "the server has no room left (HTTP 507)");
    const auto before = stub.requests().size();
    auto failed = op.stat("/500/x");
    REQUIRE_ERROR(failed, ErrorKind::Network, "the server failed (HTTP 500)");
    QVERIFY(failed.error().temporary());
    QCOMPARE(int(stub.requests().size() - before), RetryPolicy{}.maxAttempts); // 5xx is retried
}

void WebDavFaults::redirectIsNamedWithoutItsQuery()
{
    OPEN_STUB("redirect");
    auto stat = op.stat("/moved/x");
    REQUIRE_ERROR(stat, ErrorKind::InvalidInput,
                  "the server redirects PROPFIND to " + stub.endpoint() + "/elsewhere/ (HTTP 301); use that address");
    QVERIFY2(!leaks(stat.error(), "SECRET-TOKEN"), "the redirect's query was printed");
}

void WebDavFaults::onlyOurTemporaryUploadsAreDiscarded()
{
    // A journal names the temporary uploads a killed run left (WriteOptions::onPending);
    // whatever it says, only a name of that form, next to the file, is ever deleted.
    OPEN_STUB("status");
    const auto before = stub.requests().size();
    for (const char *hostile :
         {"../file.bin", "file.bin", ".strata-upload-0123456789abcdef/../../x", ".strata-upload-xyz",
          ".strata-upload-0123456789ABCDEF-file.bin", ".strata-upload-0123456789abcdefX", ""})
        op.discardPending("/404/file.bin", hostile);
    QCOMPARE(stub.requests().size(), before);
    op.discardPending("/404/file.bin", ".strata-upload-0123456789abcdef-file.bin");
    op.discardPending("/404/sub/other", ".strata-upload-fedcba9876543210");
    const auto all = stub.requests();
    const std::vector<std::string> sent(all.begin() + std::ptrdiff_t(before), all.end());
    const std::vector<std::string> wanted = {"DELETE /404/.strata-upload-0123456789abcdef-file.bin",
                                             "DELETE /404/sub/.strata-upload-fedcba9876543210"};
    QCOMPARE(sent, wanted);
}

void WebDavFaults::connectionResetIsTemporary()
{
    OPEN_STUB("reset");
    auto stat = op.stat("/x");
    REQUIRE_ERROR(stat, ErrorKind::Network, stub.hostPort());
    QVERIFY(stat.error().temporary());
    QCOMPARE(int(stub.requests().size()), RetryPolicy{}.maxAttempts);
}

void WebDavFaults::failedMembersOfAMultistatusFail()
{
    // A 207 answer to MOVE, COPY or DELETE lists what became of each member: one failure
    // fails the request, named by the member's path and status (issue 42: mv said it moved
    // a folder of which nothing moved).
    OPEN_STUB("multistatus");
    // The 424 of the collection follows from its member's 412: the 412 is the one named.
    REQUIRE_ERROR(op.rename("/src", "/dst"), ErrorKind::Unexpected,
                  "MOVE failed for /src/f.txt with HTTP 412 (in the server's 207 Multi-Status, with 1 other failure)");
    REQUIRE_ERROR(op.copy("/src", "/dst"), ErrorKind::Unexpected,
                  "COPY failed for /src/f.txt with HTTP 412 (in the server's 207 Multi-Status, with 1 other failure)");
    REQUIRE_ERROR(op.remove("/locked.txt"), ErrorKind::Busy,
                  "DELETE failed for /locked.txt with HTTP 423 (in the server's 207 Multi-Status): it is locked");
    // A member's name is server text: escaped, never sent to a terminal as it came.
    auto esc = op.rename("/esc", "/dst");
    REQUIRE_ERROR(esc, ErrorKind::PermissionDenied, "MOVE failed for /esc/\\x1b[31mred with HTTP 403");
    QVERIFY2(esc.error().message().find('\x1b') == std::string::npos, "an ESC byte reached the message");
    REQUIRE_ERROR(op.rename("/silent", "/dst"), ErrorKind::Corrupt, "MOVE did not say what became of /silent");
    REQUIRE_ERROR(op.rename("/broken", "/dst"), ErrorKind::Corrupt, "the server's MOVE answer is malformed");
    // Every member succeeded: so did the request.
    REQUIRE_OK(op.rename("/ok", "/dst-ok"));
    REQUIRE_OK(op.copy("/ok", "/dst-ok"));
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::WebDavFaults)
#include "webdav_faults.moc"

// Bad input and faults of the S3 backend (issue 4), through Registry and Operator as the
// application uses them: each fails with one clear sentence of the right kind. What s3rver
// can show runs against the shared fixture; a stalled server, HTML error pages, truncated
// XML and the multipart request pattern (s3rver has no AbortMultipartUpload) run against
// s3_stub.js, whose request log the tests read.
#include "tests/behavior/behavior_root.h"
#include "tests/lib/error_checks.h"
#include "tests/lib/scoped_env.h"
#include "tests/lib/stub_process.h"
#include "tests/unit/unit_checks.h"

#include "backends/builtin_backends.h"
#include "core/storage/path.h"
#include "core/storage/registry.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <algorithm>
#include <cstdlib>
#include <random>

namespace strata {

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

struct Request {
    std::string method;
    std::string url; // path and query as received
    std::uint64_t bytes = 0;
    std::string body; // POST bodies only
};

// One s3_stub.js server (see its header for the modes).
class Stub : public StubProcess {
public:
    explicit Stub(const QString &mode, const QStringList &args = {})
        : StubProcess(QStringLiteral(STRATA_S3_STUB_JS), mode, args)
    {
    }
    std::string uri(std::string_view path, std::string_view extra = {}) const
    {
        return "s3://strata-test" + std::string(path) + "?endpoint=" + endpoint() + std::string(extra);
    }

    std::vector<Request> requests() const
    {
        std::vector<Request> out;
        for (const QJsonObject &o : log()) {
            if (o.contains(QStringLiteral("connect"))) {
                out.push_back({"CONNECT", {}, 0, {}});
                continue;
            }
            out.push_back({o.value(QStringLiteral("method")).toString().toStdString(),
                           o.value(QStringLiteral("url")).toString().toStdString(),
                           std::uint64_t(o.value(QStringLiteral("bytes")).toDouble()),
                           o.value(QStringLiteral("body")).toString().toStdString()});
        }
        return out;
    }
};

// "(PartNumber, ETag)" pairs of a CompleteMultipartUpload body, in document order.
std::vector<std::pair<int, std::string>> completedParts(const std::string &xml)
{
    std::vector<std::pair<int, std::string>> parts;
    QXmlStreamReader reader(QByteArray::fromStdString(xml));
    while (!reader.atEnd()) {
        if (reader.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (reader.name() == QLatin1String("PartNumber"))
            parts.emplace_back(reader.readElementText().toInt(), std::string());
        else if (reader.name() == QLatin1String("ETag") && !parts.empty())
            parts.back().second = reader.readElementText().toStdString();
    }
    return parts;
}

// `base` (a path) extended with segments of at most 200 bytes until its key (the path
// without the leading '/') is exactly `keyBytes` long.
std::string pathWithKeyOf(std::size_t keyBytes, std::string base)
{
    while (base.size() - 1 + 201 < keyBytes)
        base += "/" + std::string(200, 'k');
    base += "/" + std::string(keyBytes - base.size(), 'z');
    return base;
}

// "METHOD url bytes" per request; the lines in [from, to) sorted (parts sent in parallel).
std::string requestLines(const std::vector<Request> &log, std::size_t from = 0, std::size_t to = 0)
{
    std::vector<std::string> lines;
    for (const auto &r : log)
        lines.push_back(r.method + " " + r.url + " " + std::to_string(r.bytes));
    if (from < to && to <= lines.size())
        std::sort(lines.begin() + std::ptrdiff_t(from), lines.begin() + std::ptrdiff_t(to));
    std::string out;
    for (const auto &line : lines)
        out += line + "\n";
    return out;
}

} // namespace

// Starts s3_stub.js in `mode` as `stub` and declares `op`, the operator of its bucket.
#define OPEN_STUB(mode, extra)                              \
    Stub stub(QStringLiteral(mode));                        \
    QVERIFY2(stub.ok(), "s3_stub.js did not start");        \
    auto stubRoot_ = m_registry.open(stub.uri("/", extra)); \
    REQUIRE_OK(stubRoot_);                                  \
    Operator &op = *stubRoot_->op

class S3Faults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void wrongKeysArePermissionDeniedWithoutTheSecret();
    void missingBucketIsNamed();
    void climbingPathIsRefusedBeforeAnyRequest();
    void doubleSlashCollapses();
    void unicodeKeyRoundTrips();
    void longestKeyRoundTrips();
    void tooLongKeyIsRefusedBeforeAnyRequest();
    void stalledServerTimesOut();
    void htmlErrorPageIsNamed();
    void truncatedListingIsCorrupt();
    void abortedMultipartUploadIsAborted();
    void committedMultipartUploadCompletesPartsInOrder();
    void storageClassIsReported();
    void pagesOfKeysHoldingNewlines();

private:
    // Writes 20 MiB (two full 8 MiB parts and 4 MiB more) to /big.bin on a multipart stub,
    // then commits or aborts the writer.
    void writeTwentyMiB(Operator &op, bool commit);
    // A URI on the shared s3rver, below this run's prefix.
    std::string fixtureUri(std::string_view path = {}, const std::string &bucket = {}) const
    {
        return "s3://" + (bucket.empty() ? m_bucket : bucket) + "/" + m_prefix + std::string(path)
            + "?endpoint=" + m_endpoint;
    }

    Registry m_registry;
    std::string m_endpoint;
    std::string m_bucket;
    std::string m_prefix;
};

void S3Faults::initTestCase()
{
    registerBuiltinBackends(m_registry);
    loadEnvFile(env("STRATA_S3_ENVFILE"));
    m_endpoint = env("STRATA_S3_ENDPOINT");
    m_bucket = env("STRATA_S3_BUCKET");
    if (m_endpoint.empty())
        QSKIP("no s3rver: run through CTest (fixture s3rver), which sets STRATA_S3_ENVFILE");
    QVERIFY2(m_endpoint.starts_with("http://127.0.0.1:"), "the test server must be on 127.0.0.1");
    m_prefix = "s3-faults-" + std::to_string(std::random_device{}());
}

void S3Faults::cleanupTestCase()
{
    if (m_endpoint.empty())
        return;
    if (auto root = m_registry.open(fixtureUri()))
        (void)root->op->removeAll(root->path);
}

void S3Faults::wrongKeysArePermissionDeniedWithoutTheSecret()
{
    // A secret no message could hold by accident; s3rver knows only the key S3RVER.
    const std::string secret = "Zq7-wrong-SECRET-do-not-print-4f1e";
    ScopedEnv id("AWS_ACCESS_KEY_ID", "WRONG");
    ScopedEnv key("AWS_SECRET_ACCESS_KEY", QByteArray::fromStdString(secret));
    Registry registry; // a fresh one: the shared registry's backend holds the right keys
    registerBuiltinBackends(registry);
    auto root = registry.open(fixtureUri());
    REQUIRE_OK(root);
    auto listed = root->op->list(root->path);
    REQUIRE_ERROR(listed, ErrorKind::PermissionDenied, "the server refused the credentials (InvalidAccessKeyId");
    QVERIFY2(listed.error().message().find(secret) == std::string::npos, "the secret was printed");
    // HEAD answers have no body, hence no error code: the sentence still names the keys.
    auto stat = root->op->stat(root->path + "/x");
    REQUIRE_ERROR(stat, ErrorKind::PermissionDenied, "check the credentials");
    QVERIFY2(stat.error().message().find(secret) == std::string::npos, "the secret was printed");
    // A ranged GET's error answer is read for its code, not poured into the caller's buffer.
    std::vector<std::byte> buffer(4096, std::byte{0});
    auto read = root->op->read(root->path + "/x", 0, buffer);
    REQUIRE_ERROR(read, ErrorKind::PermissionDenied, "the server refused the credentials (InvalidAccessKeyId");
    QVERIFY2(read.error().message().find(secret) == std::string::npos, "the secret was printed");
    QVERIFY2(std::all_of(buffer.begin(), buffer.end(), [](std::byte b) { return b == std::byte{0}; }),
             "the error answer was written into the read buffer");
}

void S3Faults::missingBucketIsNamed()
{
    const std::string sentence = "the bucket 'no-such-bucket-xyz' does not exist";
    auto root = m_registry.open(fixtureUri({}, "no-such-bucket-xyz"));
    REQUIRE_OK(root);
    Operator &op = *root->op;
    const std::string file = root->path + "/file.txt";
    std::vector<std::byte> buffer(16);
    REQUIRE_ERROR(op.stat(file), ErrorKind::NotFound, sentence);
    REQUIRE_ERROR(op.stat("/"), ErrorKind::NotFound, sentence);
    REQUIRE_ERROR(op.list(root->path), ErrorKind::NotFound, sentence);
    REQUIRE_ERROR(op.read(file, 0, buffer), ErrorKind::NotFound, sentence);
    REQUIRE_ERROR(op.writeAll(file, asBytes("data")), ErrorKind::NotFound, sentence);
}

void S3Faults::climbingPathIsRefusedBeforeAnyRequest()
{
    OPEN_STUB("multipart", "");
    REQUIRE_ERROR(m_registry.open(stub.uri("/../etc/passwd")), ErrorKind::InvalidInput, "climbs above the root");
    std::vector<std::byte> buffer(16);
    REQUIRE_ERROR(op.stat("/a/../../x"), ErrorKind::InvalidInput, "climbs above the root");
    REQUIRE_ERROR(op.read("/../x", 0, buffer), ErrorKind::InvalidInput, "climbs above the root");
    REQUIRE_ERROR(op.write("/a/../../x"), ErrorKind::InvalidInput, "climbs above the root");
    REQUIRE_ERROR(op.list("/.."), ErrorKind::InvalidInput, "climbs above the root");
    QCOMPARE(requestLines(stub.requests()), std::string());

    // A ".." that stays inside is resolved like a file path: no "../" ever reaches S3.
    REQUIRE_OK(op.writeAll("/dir/../inside.txt", asBytes("x")));
    QCOMPARE(requestLines(stub.requests()), std::string("PUT /strata-test/inside.txt 1\n"));
}

void S3Faults::doubleSlashCollapses()
{
    auto root = m_registry.open(fixtureUri());
    REQUIRE_OK(root);
    Operator &op = *root->op;
    REQUIRE_OK(op.writeAll(root->path + "//slashes///a.txt", asBytes("slashes")));
    auto entry = op.stat(root->path + "/slashes/a.txt");
    REQUIRE_OK(entry);
    QCOMPARE(entry->size, std::uint64_t(7));
    auto listed = op.listAll(root->path + "/slashes");
    REQUIRE_OK(listed);
    QCOMPARE(listed->size(), std::size_t(1));
    QCOMPARE(listed->front().name, std::string("a.txt")); // not "" (an empty segment)
    // The same in a URI.
    auto viaUri = m_registry.open("s3://" + m_bucket + "//" + m_prefix + "//slashes//a.txt?endpoint=" + m_endpoint);
    REQUIRE_OK(viaUri);
    QCOMPARE(viaUri->path, "/" + m_prefix + "/slashes/a.txt");
    REQUIRE_OK(viaUri->op->stat(viaUri->path));
}

// The storage class comes with listings and stat (HEAD names it only when not STANDARD);
// the desktop app's properties show it.
// A page token carries the last common prefix of its page: keys may hold any byte ('\n'
// included), so nothing in it is split on a separator a key can contain.
void S3Faults::pagesOfKeysHoldingNewlines()
{
    QTemporaryDir dir;
    const QString seed = dir.filePath(QStringLiteral("bucket.json"));
    QFile file(seed);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        R"({"bucket": "strata-test", "objects": {"a\nb/x": "1", "a\nc/y": "2", "a\nd": "3", "e\n\nf/z": "4", "plain": "5"}})");
    file.close();
    Stub stub(QStringLiteral("store"), {seed});
    QVERIFY2(stub.ok(), "s3_stub.js did not start");
    auto root = m_registry.open(stub.uri("/"));
    REQUIRE_OK(root);
    std::vector<std::string> names;
    ListOptions options;
    options.pageSize = 1; // a token after every entry
    int pages = 0;
    do {
        auto page = root->op->list("/", options);
        REQUIRE_OK(page);
        QVERIFY(page->skipped.empty());
        for (const auto &e : page->entries)
            names.push_back(e.name + (e.isDir() ? "/" : ""));
        options.pageToken = page->nextPageToken;
        QVERIFY(++pages < 20);
    } while (!options.pageToken.empty());
    std::sort(names.begin(), names.end());
    QCOMPARE(names, (std::vector<std::string>{"a\nb/", "a\nc/", "a\nd", "e\n\nf/", "plain"}));
    // A token from elsewhere is refused, not taken apart.
    options.pageToken = "not a token";
    REQUIRE_KIND(root->op->list("/", options), ErrorKind::InvalidInput);
}

void S3Faults::storageClassIsReported()
{
    auto root = m_registry.open(fixtureUri());
    REQUIRE_OK(root);
    Operator &op = *root->op;
    const std::string dir = root->path + "/classes";
    REQUIRE_OK(op.writeAll(dir + "/a.txt", asBytes("a")));
    auto entry = op.stat(dir + "/a.txt");
    REQUIRE_OK(entry);
    QCOMPARE(entry->storageClass, std::string("STANDARD"));
    auto listed = op.listAll(dir);
    REQUIRE_OK(listed);
    QCOMPARE(listed->size(), std::size_t(1));
    QCOMPARE(listed->front().storageClass, std::string("STANDARD"));
}

void S3Faults::unicodeKeyRoundTrips()
{
    auto root = m_registry.open(fixtureUri());
    REQUIRE_OK(root);
    Operator &op = *root->op;
    const std::string dirName = "ünïcødé Ωμέγα";
    const std::string name = "日本語 ファイル 🌍 +&=?#%.txt"; // and characters that need encoding
    const std::string dir = root->path + "/" + dirName;
    const std::string content = "contenu: è, 中文, 🚀";
    REQUIRE_OK(op.writeAll(dir + "/" + name, asBytes(content)));
    auto entry = op.stat(dir + "/" + name);
    REQUIRE_OK(entry);
    QCOMPARE(entry->size, std::uint64_t(content.size()));
    QCOMPARE(entry->name, name);
    auto listed = op.listAll(dir);
    REQUIRE_OK(listed);
    QCOMPARE(listed->size(), std::size_t(1));
    QCOMPARE(listed->front().name, name);
    auto parent = op.listAll(root->path);
    REQUIRE_OK(parent);
    QVERIFY(
        std::any_of(parent->begin(), parent->end(), [&](const Entry &e) { return e.name == dirName && e.isDir(); }));
    auto back = op.readAll(dir + "/" + name);
    REQUIRE_OK(back);
    QCOMPARE(asString(*back), content);
}

void S3Faults::longestKeyRoundTrips()
{
    auto root = m_registry.open(fixtureUri());
    REQUIRE_OK(root);
    Operator &op = *root->op;
    // s3rver stores each key segment as a file name and crashes on segments over ~240
    // bytes: the 1024 bytes are made of segments of at most 200.
    const std::string path = pathWithKeyOf(1024, root->path + "/long");
    const auto data = patternBytes(3000, 7);
    REQUIRE_OK(op.writeAll(path, data));
    auto entry = op.stat(path);
    REQUIRE_OK(entry);
    QCOMPARE(entry->size, std::uint64_t(data.size()));
    auto listed = op.listAll(std::string(parentPath(path)));
    REQUIRE_OK(listed);
    QCOMPARE(listed->size(), std::size_t(1));
    QCOMPARE(listed->front().name, std::string(baseName(path)));
    auto back = op.readAll(path);
    REQUIRE_OK(back);
    QVERIFY(*back == data);
}

void S3Faults::tooLongKeyIsRefusedBeforeAnyRequest()
{
    OPEN_STUB("multipart", "");
    const std::string path = pathWithKeyOf(1025, {});
    std::vector<std::byte> buffer(16);
    REQUIRE_ERROR(op.writeAll(path, asBytes("x")), ErrorKind::InvalidInput, "S3 keys are at most 1024 bytes");
    REQUIRE_ERROR(op.stat(path), ErrorKind::InvalidInput, "S3 keys are at most 1024 bytes");
    REQUIRE_ERROR(op.read(path, 0, buffer), ErrorKind::InvalidInput, "S3 keys are at most 1024 bytes");
    QCOMPARE(requestLines(stub.requests()), std::string());
}

void S3Faults::stalledServerTimesOut()
{
    OPEN_STUB("silent", "&timeout=2");
    QElapsedTimer timer;
    timer.start();
    auto stat = op.stat("/stalled.txt");
    const qint64 ms = timer.elapsed();
    REQUIRE_ERROR(stat, ErrorKind::Timeout, "no answer from " + stub.hostPort() + " for 2 s");
    // A timeout is temporary: the retry layer tries again, each time on a new connection,
    // until its attempts run out: ~2 s an attempt plus backoff.
    const auto attempts = stub.requests().size();
    qInfo("stalled server: failed after %lld ms and %zu attempts: %s", ms, attempts, stat.error().message().c_str());
    QCOMPARE(int(attempts), RetryPolicy{}.maxAttempts);
    // It ends: within the retry layer's time budget, not when the server would answer.
    QVERIFY2(ms < RetryPolicy{}.budget.count() + 10000, std::to_string(ms).c_str());
}

void S3Faults::htmlErrorPageIsNamed()
{
    OPEN_STUB("html", "");
    const std::string sentence = "the server answered with an HTML page (HTTP 502), not S3 XML";
    std::vector<std::byte> buffer(64);
    auto listed = op.list("/");
    REQUIRE_ERROR(listed, ErrorKind::Network, sentence);
    QVERIFY2(listed.error().message().find("<html") == std::string::npos, "the page itself was quoted");
    REQUIRE_ERROR(op.stat("/a.txt"), ErrorKind::Network, sentence); // HEAD: only the content type tells
    REQUIRE_ERROR(op.read("/a.txt", 0, buffer), ErrorKind::Network, sentence);
}

void S3Faults::truncatedListingIsCorrupt()
{
    OPEN_STUB("truncated", "");
    REQUIRE_ERROR(op.listAll("/"), ErrorKind::Corrupt, "the server's XML answer is malformed or cut short");
    QCOMPARE(stub.requests().size(), std::size_t(1)); // corrupt is permanent: not retried
}

void S3Faults::writeTwentyMiB(Operator &op, bool commit)
{
    auto writer = op.write("/big.bin");
    REQUIRE_OK(writer);
    const auto mib = patternBytes(1u << 20, 3);
    for (int i = 0; i < 20; ++i)
        REQUIRE_OK((*writer)->write(mib));
    if (commit)
        REQUIRE_OK((*writer)->commit());
    else
        (*writer)->abort();
}

void S3Faults::abortedMultipartUploadIsAborted()
{
    OPEN_STUB("multipart", "");
    writeTwentyMiB(op, false);
    if (QTest::currentTestFailed())
        return;
    // The two full 8 MiB parts (sent in parallel: either order), then the abort; never the
    // complete, and the last 4 MiB are not sent at all.
    QCOMPARE(requestLines(stub.requests(), 1, 3),
             std::string("POST /strata-test/big.bin?uploads= 0\n"
                         "PUT /strata-test/big.bin?partNumber=1&uploadId=stub-upload-1 8388608\n"
                         "PUT /strata-test/big.bin?partNumber=2&uploadId=stub-upload-1 8388608\n"
                         "DELETE /strata-test/big.bin?uploadId=stub-upload-1 0\n"));
}

void S3Faults::committedMultipartUploadCompletesPartsInOrder()
{
    OPEN_STUB("multipart", "");
    writeTwentyMiB(op, true);
    if (QTest::currentTestFailed())
        return;
    const auto log = stub.requests();
    QCOMPARE(requestLines(log, 1, 4),
             std::string("POST /strata-test/big.bin?uploads= 0\n"
                         "PUT /strata-test/big.bin?partNumber=1&uploadId=stub-upload-1 8388608\n"
                         "PUT /strata-test/big.bin?partNumber=2&uploadId=stub-upload-1 8388608\n"
                         "PUT /strata-test/big.bin?partNumber=3&uploadId=stub-upload-1 4194304\n"
                         "POST /strata-test/big.bin?uploadId=stub-upload-1 "
                         + std::to_string(log.back().bytes) + "\n"));
    // Every part, in order, with the ETag the server gave it.
    QCOMPARE(completedParts(log.back().body),
             (std::vector<std::pair<int, std::string>>{
                 {1, "\"part-1-8388608\""}, {2, "\"part-2-8388608\""}, {3, "\"part-3-4194304\""}}));
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::S3Faults)
#include "s3_faults.moc"

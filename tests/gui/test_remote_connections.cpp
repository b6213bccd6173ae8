// The desktop app on real servers (s3rver and lighttpd, CTest fixtures): the connection
// dialog's Test with the right and a wrong secret (the sentence never shows the secret),
// a pane browsing each connection once its secret is handed to the registry, and the Usage
// page scanning a tree put on each server (sizes, order, URIs; failures say why, no secret).
#include "tests/gui/gui_fixture.h"
#include "tests/lib/scoped_env.h"

#include "tests/behavior/behavior_root.h"
#include "tests/gui/dialog_fields.h"
#include "tests/lib/stub_process.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"
#include "ui/browser/file_actions.h"
#include "ui/browser/path_bar.h"
#include "ui/connections/connection_dialog.h"
#include "ui/usage/usage_view.h"

#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUrl>

#include <map>

namespace strata {

using namespace gui_test;

namespace {

QString env(const char *name)
{
    return qEnvironmentVariable(name);
}

void test(ConnectionDialog &d)
{
    testButton(d)->click();
}

QString stamp()
{
    return QString::number(QDateTime::currentMSecsSinceEpoch());
}

// The tree the Usage page scans: 20 files of distinct sizes in three folders and the top,
// gamma/deep/deeper two levels below a folder. Folder totals differ, so the order is known.
const std::map<QString, int> &usageFiles()
{
    static const std::map<QString, int> files = {
        {QStringLiteral("top-big.dat"), 5000},
        {QStringLiteral("top-small.txt"), 17},
        {QStringLiteral("alpha/a1.txt"), 101},
        {QStringLiteral("alpha/a2.txt"), 202},
        {QStringLiteral("alpha/a3.txt"), 303},
        {QStringLiteral("alpha/a4.txt"), 404},
        {QStringLiteral("alpha/a5.txt"), 505},
        {QStringLiteral("alpha/a6.txt"), 606},
        {QStringLiteral("beta/b1.bin"), 1111},
        {QStringLiteral("beta/b2.bin"), 1222},
        {QStringLiteral("beta/b3.bin"), 1333},
        {QStringLiteral("beta/b4.bin"), 1444},
        {QStringLiteral("beta/b5.bin"), 1555},
        {QStringLiteral("gamma/g1.log"), 31},
        {QStringLiteral("gamma/g2.log"), 62},
        {QStringLiteral("gamma/deep/d1.log"), 93},
        {QStringLiteral("gamma/deep/d2.log"), 124},
        {QStringLiteral("gamma/deep/deeper/e1.log"), 155},
        {QStringLiteral("gamma/deep/deeper/e2.log"), 186},
        {QStringLiteral("gamma/deep/deeper/e3.log"), 2170},
    };
    return files;
}

// Bytes of the files whose path starts with `prefix` ("" for all), and how many.
std::pair<std::uint64_t, std::uint64_t> usageTotal(const QString &prefix = {})
{
    std::uint64_t bytes = 0, count = 0;
    for (const auto &[path, size] : usageFiles())
        if (path.startsWith(prefix)) {
            bytes += std::uint64_t(size);
            ++count;
        }
    return {bytes, count};
}

// Puts the tree below `base` (a folder URI without a query; `query` goes after each path).
void putUsageTree(Registry &registry, const QString &base, const QString &query = {})
{
    for (const auto &[path, size] : usageFiles()) {
        // Distinct content per file: the first letter of its name, repeated.
        put(registry, base + QLatin1Char('/') + path + query,
            QByteArray(size, path.section(QLatin1Char('/'), -1).at(0).toLatin1()));
    }
}

const UsageNode *childNamed(const UsageNode *node, const QString &name)
{
    if (!node)
        return nullptr;
    for (const auto &c : node->children)
        if (c->name == name)
            return c.get();
    return nullptr;
}

struct ScanEnd {
    bool ok = false;
    QString message;
};

// Starts a scan and waits for its end; ok false and a note in the message on a timeout.
ScanEnd scanAndWait(UsageView &view, const std::function<void()> &start)
{
    QSignalSpy finished(&view, &UsageView::scanFinished);
    start();
    if (!finished.wait(30000) && finished.isEmpty())
        return {false, QStringLiteral("(no scanFinished within 30 s)")};
    // One end per scan.
    QTest::qWait(50);
    if (finished.count() != 1)
        return {false, QStringLiteral("(scanFinished %1 times)").arg(finished.count())};
    return {finished[0][0].toBool(), finished[0][1].toString()};
}

// What every scan of the tree must show: the files with their sizes (no more, no fewer),
// totals, largest first at every level, the nested folder's sum, and URIs that name the
// files on the server (read back through `registry`) and hold no secret.
void checkUsageTree(UsageView &view, Registry &registry, const QString &baseDisplay, const QString &secret)
{
    QVERIFY(!view.scanning());
    const UsageNode *root = view.current();
    QVERIFY(root);
    QVERIFY(!root->parent);
    QVERIFY(root->dir);
    const auto [total, count] = usageTotal();
    QCOMPARE(root->bytes, total);
    QCOMPARE(root->files, count);

    // Every file and its size, and every folder's total and order, walked from the root.
    std::map<QString, int> seen;
    std::vector<const UsageNode *> stack{root};
    while (!stack.empty()) {
        const UsageNode *node = stack.back();
        stack.pop_back();
        if (!node->dir) {
            QVERIFY2(!seen.count(node->path()), qPrintable(node->path()));
            seen[node->path()] = int(node->bytes);
            QCOMPARE(node->files, std::uint64_t(1));
            continue;
        }
        std::uint64_t bytes = 0, files = 0;
        for (std::size_t i = 0; i < node->children.size(); ++i) {
            const UsageNode *c = node->children[i].get();
            QCOMPARE(c->parent, node);
            bytes += c->bytes;
            files += c->files;
            if (i > 0)
                QVERIFY2(node->children[i - 1]->bytes >= c->bytes,
                         qPrintable(node->children[i - 1]->path() + QLatin1String(" before ") + c->path()));
            stack.push_back(c);
        }
        QCOMPARE(node->bytes, bytes);
        QCOMPARE(node->files, files);
        if (node != root) {
            const auto [expectBytes, expectFiles] = usageTotal(node->path() + QLatin1Char('/'));
            QCOMPARE(node->bytes, expectBytes);
            QCOMPARE(node->files, expectFiles);
        }
    }
    QCOMPARE(seen, usageFiles());

    // The top level, largest first: beta 6665, top-big.dat 5000, gamma 2821, alpha 2121, top-small.txt 17.
    QStringList order;
    for (const auto &c : root->children)
        order << c->name;
    QCOMPARE(order,
             (QStringList{QStringLiteral("beta"), QStringLiteral("top-big.dat"), QStringLiteral("gamma"),
                          QStringLiteral("alpha"), QStringLiteral("top-small.txt")}));

    // The folder two levels down: the sum of its three files, e3 (the largest) first.
    const UsageNode *deeper = childNamed(childNamed(childNamed(root, QStringLiteral("gamma")), QStringLiteral("deep")),
                                         QStringLiteral("deeper"));
    QVERIFY(deeper);
    QVERIFY(deeper->dir);
    QCOMPARE(deeper->bytes, std::uint64_t(155 + 186 + 2170));
    QCOMPARE(deeper->files, std::uint64_t(3));
    QCOMPARE(deeper->children.size(), std::size_t(3));
    QCOMPARE(deeper->children.front()->name, QStringLiteral("e3.log"));
    QCOMPARE(deeper->path(), QStringLiteral("gamma/deep/deeper"));

    // URIs: the root names the folder scanned, a file its own object, and opening that
    // URI reads the file's bytes back from the server.
    const QString rootUri = view.uriOf(root);
    QVERIFY2(rootUri.startsWith(baseDisplay), qPrintable(rootUri + QLatin1String(" vs ") + baseDisplay));
    const UsageNode *e3 = deeper->children.front().get();
    const QString fileUri = view.uriOf(e3);
    QVERIFY2(fileUri.startsWith(baseDisplay + QLatin1String("/gamma/deep/deeper/e3.log")), qPrintable(fileUri));
    QVERIFY2(!fileUri.contains(secret), qPrintable(fileUri));
    QVERIFY2(!rootUri.contains(secret), qPrintable(rootUri));
    const QByteArray back = get(registry, fileUri);
    QCOMPARE(back.size(), qsizetype(2170));
    QCOMPARE(back, QByteArray(2170, 'e'));
    const QString folderUri = view.uriOf(deeper);
    QVERIFY2(folderUri.startsWith(baseDisplay + QLatin1String("/gamma/deep/deeper")), qPrintable(folderUri));

    const QString status = view.statusText();
    QVERIFY2(status.contains(QLatin1String("20 files")), qPrintable(status));
    QVERIFY2(!status.contains(secret), qPrintable(status));
}

} // namespace

class TestRemoteConnections : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void webdavDialogAndPane();
    void s3DialogAndPane();
    void webdavUsageScan();
    void s3UsageScan();
    void deleteInABucketWithHostileKeys();
};

void TestRemoteConnections::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    loadEnvFile(env("STRATA_WEBDAV_ENVFILE").toStdString());
    loadEnvFile(env("STRATA_S3_ENVFILE").toStdString());
    if (env("STRATA_WEBDAV_ENDPOINT").isEmpty() || env("STRATA_S3_ENDPOINT").isEmpty())
        QSKIP("no servers: run through CTest (fixtures lighttpd and s3rver)");
}

void TestRemoteConnections::webdavDialogAndPane()
{
    const QString endpoint = env("STRATA_WEBDAV_ENDPOINT"), user = env("STRATA_WEBDAV_USER");
    const QString password = env("STRATA_WEBDAV_PASSWORD");
    // The environment's password must not help: the dialog's secret is what is tried.
    qunsetenv("STRATA_WEBDAV_PASSWORD");
    auto registry = makeRegistry();
    const QString dir = endpoint + QStringLiteral("/auth/gui-") + QString::number(QDateTime::currentMSecsSinceEpoch());
    QString webdavDir = dir;
    webdavDir.replace(QStringLiteral("http://"), QStringLiteral("webdav://"));
    {
        ConnectionSecret secret{user.toStdString(), password.toStdString(), {}};
        QVERIFY(registry->setSecret(webdavDir.toStdString(), secret).ok());
        put(*registry, webdavDir + QStringLiteral("/hello.txt"), "hello over WebDAV");
    }

    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(QStringLiteral("webdav"));
    fill(dialog, QStringLiteral("url"), dir);
    fill(dialog, QStringLiteral("user"), user);
    const QString wrong = QStringLiteral("not-the-PASSWORD-7b1e");
    fill(dialog, QStringLiteral("password"), wrong);
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    test(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 15000);
    QCOMPARE(done[0][0].toBool(), false);
    QVERIFY2(done[0][1].toString().contains(QLatin1String("authentication failed")), qPrintable(done[0][1].toString()));
    QVERIFY(!done[0][1].toString().contains(wrong));
    fill(dialog, QStringLiteral("password"), password);
    test(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 15000);
    QVERIFY2(done[1][0].toBool(), qPrintable(done[1][1].toString()));
    QVERIFY(!done[1][1].toString().contains(password));
    QCOMPARE(dialog.profile().uri, webdavDir);

    BrowserPane pane(*registry);
    pane.openUri(webdavDir);
    QVERIFY(waitFor([&] { return pane.model()->rowCount() == 1 && !pane.model()->loading(); }, 15000));
    QCOMPARE(pane.model()->index(0, DirectoryModel::Name).data().toString(), QStringLiteral("hello.txt"));
    qputenv("STRATA_WEBDAV_PASSWORD", password.toUtf8());
}

void TestRemoteConnections::s3DialogAndPane()
{
    const QString endpoint = env("STRATA_S3_ENDPOINT"), bucket = env("STRATA_S3_BUCKET");
    const QString key = env("AWS_ACCESS_KEY_ID"), secret = env("AWS_SECRET_ACCESS_KEY");
    auto registry = makeRegistry();
    const QString prefix = QStringLiteral("gui-") + QString::number(QDateTime::currentMSecsSinceEpoch());
    const QString uri = QStringLiteral("s3://%1/%2?endpoint=%3").arg(bucket, prefix, endpoint);
    put(*registry, QStringLiteral("s3://%1/%2/a.txt?endpoint=%3").arg(bucket, prefix, endpoint), "object");

    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(QStringLiteral("s3"));
    fill(dialog, QStringLiteral("bucket"), bucket);
    fill(dialog, QStringLiteral("prefix"), prefix);
    fill(dialog, QStringLiteral("endpoint"), endpoint);
    fill(dialog, QStringLiteral("accessKey"), key);
    fill(dialog, QStringLiteral("secretKey"), secret);
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    test(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 15000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QVERIFY(!done[0][1].toString().contains(secret));

    const QString place = QUrl(endpoint).host() + QLatin1Char(':') + QString::number(QUrl(endpoint).port());
    QCOMPARE(dialog.profile().name, QStringLiteral("%1/%2 on %3").arg(bucket, prefix, place));

    BrowserPane pane(*registry);
    pane.openUri(uri);
    QVERIFY(waitFor([&] { return pane.model()->rowCount() == 1 && !pane.model()->loading(); }, 15000));
    QCOMPARE(pane.model()->index(0, DirectoryModel::Name).data().toString(), QStringLiteral("a.txt"));

    // The path bar reads "bucket on host:port › prefix"; the URI with its options is the
    // crumb's tooltip, and the filter box keeps room for a word however narrow the pane.
    auto *bar = pane.findChild<PathBar *>();
    QVERIFY(bar);
    auto crumbs = [&] {
        QStringList shown;
        for (auto *button : bar->findChildren<QToolButton *>())
            if (button->property("crumb").isValid() && button->isVisibleTo(bar))
                shown << button->property("crumb").toString();
        return shown;
    };
    pane.resize(900, 400);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QCOMPARE(crumbs(), (QStringList{QStringLiteral("%1 on %2").arg(bucket, place), prefix}));
    const auto buttons = bar->findChildren<QToolButton *>();
    for (auto *button : buttons) {
        QVERIFY2(!button->text().contains(QLatin1String("endpoint")), qPrintable(button->text()));
        QVERIFY(!button->toolTip().contains(secret));
    }
    auto *filter = pane.findChild<QLineEdit *>(QStringLiteral("filter"));
    QVERIFY(filter);
    auto *more = bar->findChild<QToolButton *>(QStringLiteral("hiddenCrumbs"));
    QVERIFY(more);
    QVERIFY(!more->isVisibleTo(bar));
    const QByteArray shots = qgetenv("STRATA_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        pane.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/location-s3.png"));
    // Narrow: the bucket goes into the "…" menu, the folder stays, the filter keeps its room.
    pane.resize(320, 400);
    QVERIFY(waitFor([&] { return crumbs() == QStringList{prefix}; }, 5000));
    QVERIFY(more->isVisibleTo(bar));
    QCOMPARE(more->menu()->actions().size(), 1);
    QCOMPARE(more->menu()->actions()[0]->text(), QStringLiteral("%1 on %2").arg(bucket, place));
    QVERIFY2(filter->width() >= filter->fontMetrics().averageCharWidth() * 12,
             qPrintable(QString::number(filter->width())));
    if (!shots.isEmpty())
        pane.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/location-s3-narrow.png"));
    // The menu's entry opens the bucket's root.
    more->menu()->actions()[0]->trigger();
    QVERIFY(waitFor([&] { return crumbs() == QStringList{QStringLiteral("%1 on %2").arg(bucket, place)}; }, 15000));
}

// The Usage page on the WebDAV server: the tree put in a fresh folder, scanned once typed
// (opened by the view's registry, which holds the password) and once opened by the caller;
// a wrong password and a folder that is not there end the scan with a reason, no secret.
void TestRemoteConnections::webdavUsageScan()
{
    const QString endpoint = env("STRATA_WEBDAV_ENDPOINT"), user = env("STRATA_WEBDAV_USER");
    const QString password = env("STRATA_WEBDAV_PASSWORD");
    QVERIFY(endpoint.startsWith(QLatin1String("http://")));
    QVERIFY(!password.isEmpty());
    // Only the registry's secret may help: not the environment's password.
    qunsetenv("STRATA_WEBDAV_PASSWORD");
    const auto restore = qScopeGuard([&] { qputenv("STRATA_WEBDAV_PASSWORD", password.toUtf8()); });
    QString dir = endpoint + QStringLiteral("/auth/usage-") + stamp();
    dir.replace(QStringLiteral("http://"), QStringLiteral("webdav://"));
    auto registry = makeRegistry();
    QVERIFY(registry->setSecret(dir.toStdString(), {user.toStdString(), password.toStdString(), {}}).ok());
    putUsageTree(*registry, dir);

    {
        UsageView view;
        view.setRegistry(registry.get());
        view.locationBox()->setEditText(dir);
        const ScanEnd end = scanAndWait(view, [&] { view.scanTyped(); });
        QVERIFY2(end.ok, qPrintable(end.message));
        QVERIFY2(!end.message.contains(password), qPrintable(end.message));
        checkUsageTree(view, *registry, dir, password);
        if (QTest::currentTestFailed())
            return;
        // Again, from a location opened by the caller (the Files tab's Ctrl+U).
        auto at = registry->open(dir.toStdString());
        QVERIFY2(at, at ? "" : at.error().message().c_str());
        const ScanEnd again = scanAndWait(view, [&] { view.scan(*at); });
        QVERIFY2(again.ok, qPrintable(again.message));
        checkUsageTree(view, *registry, dir, password);
        if (QTest::currentTestFailed())
            return;
    }

    // A wrong password: the server refuses, the page says so without the password tried.
    {
        const QString wrong = QStringLiteral("wrong-PASSWORD-usage-93c2");
        auto other = makeRegistry();
        QVERIFY(other->setSecret(dir.toStdString(), {user.toStdString(), wrong.toStdString(), {}}).ok());
        UsageView view;
        view.setRegistry(other.get());
        view.locationBox()->setEditText(dir);
        const ScanEnd end = scanAndWait(view, [&] { view.scanTyped(); });
        QVERIFY2(!end.ok, qPrintable(end.message));
        QVERIFY(!end.message.isEmpty());
        QVERIFY2(end.message.contains(QLatin1String("authentication failed")), qPrintable(end.message));
        QVERIFY2(!end.message.contains(wrong) && !end.message.contains(password), qPrintable(end.message));
        QVERIFY(!view.statusText().contains(wrong));
        QCOMPARE(view.current(), nullptr);
    }

    // A folder that is not there.
    {
        UsageView view;
        view.setRegistry(registry.get());
        view.locationBox()->setEditText(dir + QStringLiteral("/no-such-folder"));
        const ScanEnd end = scanAndWait(view, [&] { view.scanTyped(); });
        QVERIFY2(!end.ok, qPrintable(end.message));
        QVERIFY2(end.message.contains(QLatin1String("no-such-folder")), qPrintable(end.message));
        QVERIFY2(!end.message.contains(password), qPrintable(end.message));
        QCOMPARE(view.current(), nullptr);
    }
}

// The Usage page on s3rver: the tree put under a fresh prefix, scanned once typed and once
// opened by the caller, with a secret of the registry's own (s3rver checks the key id, not
// the signature, so a made-up secret key works and shows if it leaks); a bucket that is not
// there and a key id the server does not know end the scan with a reason, no secret.
void TestRemoteConnections::s3UsageScan()
{
    const QString endpoint = env("STRATA_S3_ENDPOINT"), bucket = env("STRATA_S3_BUCKET");
    const QString key = env("AWS_ACCESS_KEY_ID");
    QVERIFY(!endpoint.isEmpty() && !bucket.isEmpty() && !key.isEmpty());
    const QString secret = QStringLiteral("usage-SECRET-key-4d7e19");
    const QString query = QStringLiteral("?endpoint=") + endpoint;
    const QString base = QStringLiteral("s3://%1/usage-%2").arg(bucket, stamp());
    const QString uri = base + query;
    auto registry = makeRegistry();
    QVERIFY(registry->setSecret(uri.toStdString(), {key.toStdString(), secret.toStdString(), {}}).ok());
    putUsageTree(*registry, base, query);

    {
        UsageView view;
        view.setRegistry(registry.get());
        view.locationBox()->setEditText(uri);
        const ScanEnd end = scanAndWait(view, [&] { view.scanTyped(); });
        QVERIFY2(end.ok, qPrintable(end.message));
        QVERIFY2(!end.message.contains(secret), qPrintable(end.message));
        checkUsageTree(view, *registry, base, secret);
        if (QTest::currentTestFailed())
            return;
        // The URI of a file carries the endpoint: it is on this server, not on AWS.
        const UsageNode *big = childNamed(view.current(), QStringLiteral("top-big.dat"));
        QVERIFY(big);
        const QString bigUri = view.uriOf(big);
        QVERIFY2(bigUri.startsWith(base + QStringLiteral("/top-big.dat")), qPrintable(bigUri));
        QVERIFY2(bigUri.contains(endpoint.section(QStringLiteral("://"), 1)), qPrintable(bigUri));
        QVERIFY2(!bigUri.contains(secret), qPrintable(bigUri));

        auto at = registry->open(uri.toStdString());
        QVERIFY2(at, at ? "" : at.error().message().c_str());
        const ScanEnd again = scanAndWait(view, [&] { view.scan(*at); });
        QVERIFY2(again.ok, qPrintable(again.message));
        checkUsageTree(view, *registry, base, secret);
        if (QTest::currentTestFailed())
            return;
    }

    // A bucket that is not there.
    {
        UsageView view;
        view.setRegistry(registry.get());
        const QString missing = QStringLiteral("strata-no-such-bucket-") + stamp();
        QVERIFY(registry
                    ->setSecret(QStringLiteral("s3://%1/%2").arg(missing, query).toStdString(),
                                {key.toStdString(), secret.toStdString(), {}})
                    .ok());
        view.locationBox()->setEditText(QStringLiteral("s3://%1/%2").arg(missing, query));
        const ScanEnd end = scanAndWait(view, [&] { view.scanTyped(); });
        QVERIFY2(!end.ok, qPrintable(end.message));
        QVERIFY2(end.message.contains(missing), qPrintable(end.message));
        QVERIFY2(!end.message.contains(secret), qPrintable(end.message));
        QCOMPARE(view.current(), nullptr);
    }

    // A prefix with nothing below it, in the bucket that is there.
    {
        UsageView view;
        view.setRegistry(registry.get());
        view.locationBox()->setEditText(base + QStringLiteral("/no-such-prefix") + query);
        const ScanEnd end = scanAndWait(view, [&] { view.scanTyped(); });
        QVERIFY2(!end.ok, qPrintable(end.message));
        QVERIFY2(end.message.contains(QLatin1String("no-such-prefix")), qPrintable(end.message));
        QVERIFY2(!end.message.contains(secret), qPrintable(end.message));
        QCOMPARE(view.current(), nullptr);
    }

    // A key id the server does not know.
    {
        auto other = makeRegistry();
        const QString wrongSecret = QStringLiteral("wrong-SECRET-key-0a55");
        QVERIFY(other->setSecret(uri.toStdString(), {"NOT-S3RVER", wrongSecret.toStdString(), {}}).ok());
        UsageView view;
        view.setRegistry(other.get());
        view.locationBox()->setEditText(uri);
        const ScanEnd end = scanAndWait(view, [&] { view.scanTyped(); });
        QVERIFY2(!end.ok, qPrintable(end.message));
        QVERIFY(!end.message.isEmpty());
        QVERIFY2(!end.message.contains(wrongSecret) && !end.message.contains(secret), qPrintable(end.message));
        QVERIFY(!view.statusText().contains(wrongSecret));
        QCOMPARE(view.current(), nullptr);
    }
}

// A bucket holding keys as S3 keeps them ("dst/..", "dst//x"), served by s3_stub.js: the
// pane says what it left out, and deleting the folder "dst" from it removes what is below
// dst/ that has a name, and nothing else in the bucket.
void TestRemoteConnections::deleteInABucketWithHostileKeys()
{
    QTemporaryDir dir;
    const QString seed = dir.filePath(QStringLiteral("bucket.json"));
    QFile file(seed);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"bucket": "b", "objects": {"dst/..": "1", "dst//x": "2", "dst/a.txt": "3", "dst/sub/b.txt": "4",
                   "other/keep.txt": "5", "top.txt": "6", "..": "7"}})");
    file.close();
    StubProcess stub(QStringLiteral(STRATA_S3_STUB_JS), QStringLiteral("store"), {seed});
    QVERIFY2(stub.ok(), "s3_stub.js did not start");
    // The stub's keys for this case only: later cases read the fixture's.
    const ScopedEnv stubKey("AWS_ACCESS_KEY_ID", "stub");
    const ScopedEnv stubSecret("AWS_SECRET_ACCESS_KEY", "stub");
    auto registry = makeRegistry();
    BrowserPane pane(*registry);
    pane.openUri(QStringLiteral("s3://b/?endpoint=http://") + QString::fromStdString(stub.hostPort()));
    QVERIFY(waitFor([&] { return pane.model()->rowCount() == 3 && !pane.model()->loading(); }, 15000));
    QVERIFY2(pane.model()->warning().contains(QLatin1String("'..'")), qPrintable(pane.model()->warning()));
    std::vector<Entry> selected;
    for (int row = 0; row < pane.model()->rowCount(); ++row)
        if (const auto e = pane.model()->entryAt(row); e && e->name == "dst")
            selected.push_back(*e);
    QCOMPARE(selected.size(), std::size_t(1));

    QWidget window;
    FileActions actions(&window);
    QSignalSpy notes(&actions, &FileActions::notify);
    actions.removeEntries(pane.location(), selected);
    QVERIFY(waitFor([&] { return !notes.isEmpty(); }, 15000));
    // "dst//x" and "dst/.." stay (no path names them), so dst/ cannot go: said so.
    QVERIFY2(notes.last()[1].toBool() && notes.last()[0].toString().contains(QLatin1String("a name that is no path")),
             qPrintable(notes.last()[0].toString()));
    QFile keysFile(seed + QStringLiteral(".keys"));
    QVERIFY(keysFile.open(QIODevice::ReadOnly));
    const QByteArray keys = keysFile.readAll();
    for (const char *kept : {"\"dst/..\"", "\"dst//x\"", "\"other/keep.txt\"", "\"top.txt\"", "\"..\""})
        QVERIFY2(keys.contains(kept), keys.constData());
    for (const char *gone : {"\"dst/a.txt\"", "\"dst/sub/b.txt\""})
        QVERIFY2(!keys.contains(gone), keys.constData());
}

} // namespace strata

QTEST_MAIN(strata::TestRemoteConnections)
#include "test_remote_connections.moc"

// The desktop app on real servers (s3rver and lighttpd, CTest fixtures): the connection
// dialog's Test with the right and a wrong secret (the sentence never shows the secret),
// and a pane browsing each connection once its secret is handed to the registry.
#include "tests/gui/gui_fixture.h"

#include "tests/behavior/behavior_root.h"
#include "tests/gui/dialog_fields.h"
#include "tests/lib/stub_process.h"
#include "ui/browser_pane.h"
#include "ui/connection_dialog.h"
#include "ui/directory_model.h"
#include "ui/file_actions.h"

#include <QDateTime>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

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

} // namespace

class TestRemoteConnections : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void webdavDialogAndPane();
    void s3DialogAndPane();
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
    dialog.setKind(ConnectionDialog::WebDav);
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
    dialog.setKind(ConnectionDialog::S3);
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

    BrowserPane pane(*registry);
    pane.openUri(uri);
    QVERIFY(waitFor([&] { return pane.model()->rowCount() == 1 && !pane.model()->loading(); }, 15000));
    QCOMPARE(pane.model()->index(0, DirectoryModel::Name).data().toString(), QStringLiteral("a.txt"));
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
    qputenv("AWS_ACCESS_KEY_ID", "stub");
    qputenv("AWS_SECRET_ACCESS_KEY", "stub");
    auto registry = makeRegistry();
    BrowserPane pane(*registry);
    pane.openUri(QStringLiteral("s3://b/?endpoint=http://") + QString::fromStdString(stub.hostPort()));
    QVERIFY(waitFor([&] { return pane.model()->rowCount() == 3 && !pane.model()->loading(); }, 15000));
    QVERIFY2(pane.model()->warning().contains(QLatin1String("'..'")), qPrintable(pane.model()->warning()));
    std::vector<Entry> selected;
    for (int row = 0; row < pane.model()->rowCount(); ++row)
        if (const Entry *e = pane.model()->entryAt(row); e && e->name == "dst")
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

// The connection dialog: each kind of storage builds the URI its fields describe, wrong
// fields keep OK off with a sentence naming the problem, Test connects off the GUI thread
// and reports; saved profiles come back from the settings; secrets go to a file only the
// user can read when no keychain runs, and never into the settings.
#include "tests/gui/gui_fixture.h"

#include "ui/connection_dialog.h"
#include "ui/connection_profile.h"
#include "ui/secret_store.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

namespace strata {

using namespace gui_test;

class TestConnectionDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void validation_data();
    void validation();
    void testButtonReports();
    void editingAProfileRestoresItsFields();
    void profilesAndSecretsAreStoredApart();

private:
    static void fill(ConnectionDialog &d, const QString &fields)
    {
        for (const auto &pair : fields.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
            const auto eq = pair.indexOf(QLatin1Char('='));
            QWidget *w = d.field(pair.left(eq));
            QVERIFY2(w, qPrintable(pair));
            if (auto *edit = qobject_cast<QLineEdit *>(w))
                edit->setText(pair.mid(eq + 1));
            else if (auto *box = qobject_cast<QCheckBox *>(w))
                box->setChecked(pair.mid(eq + 1) == QLatin1String("1"));
        }
    }
    static bool okEnabled(ConnectionDialog &d)
    {
        return d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled();
    }
};

void TestConnectionDialog::validation_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("fields");
    QTest::addColumn<QString>("uri");     // empty: refused
    QTest::addColumn<QString>("problem"); // part of the sentence shown
    QTest::addColumn<QString>("name");    // the name it is given unless one is typed

    QTest::newRow("folder") << int(ConnectionDialog::LocalFolder) << "path=/srv/data"
                            << "file:///srv/data"
                            << "" << QStringLiteral("/srv/data");
    QTest::newRow("relative folder") << int(ConnectionDialog::LocalFolder) << "path=data"
                                     << ""
                                     << "absolute path" << QString();
    QTest::newRow("memory") << int(ConnectionDialog::MemoryStore) << "store=scratch"
                            << "memory://scratch/"
                            << "" << QStringLiteral("scratch (memory)");
    QTest::newRow("memory bad name") << int(ConnectionDialog::MemoryStore) << "store=a/b"
                                     << ""
                                     << "store name" << QString();
    QTest::newRow("s3 local") << int(ConnectionDialog::S3)
                              << "bucket=photos;endpoint=http://127.0.0.1:9000;region=eu-west-1"
                              << "s3://photos/?endpoint=http://127.0.0.1:9000&region=eu-west-1"
                              << "" << QStringLiteral("photos on 127.0.0.1:9000");
    QTest::newRow("s3 prefix anonymous") << int(ConnectionDialog::S3) << "bucket=open-data;prefix=2026/runs;anonymous=1"
                                         << "s3://open-data/2026/runs?anonymous=1"
                                         << "" << QStringLiteral("open-data/2026/runs on S3");
    QTest::newRow("s3 profile") << int(ConnectionDialog::S3) << "bucket=team;profile=work"
                                << "s3://team/?profile=work"
                                << "" << QStringLiteral("team on S3");
    QTest::newRow("s3 bad bucket") << int(ConnectionDialog::S3) << "bucket=Bad_Bucket"
                                   << ""
                                   << "bucket name" << QString();
    QTest::newRow("s3 bad endpoint") << int(ConnectionDialog::S3) << "bucket=ok-bucket;endpoint=ftp://host"
                                     << ""
                                     << "endpoint" << QString();
    QTest::newRow("s3 half keys") << int(ConnectionDialog::S3) << "bucket=ok-bucket;accessKey=AKIA"
                                  << ""
                                  << "both" << QString();
    QTest::newRow("webdav https") << int(ConnectionDialog::WebDav) << "url=https://cloud.example.com/dav/me;user=me"
                                  << "webdavs://cloud.example.com/dav/me"
                                  << "" << QStringLiteral("dav/me on cloud.example.com");
    QTest::newRow("webdav user in url") << int(ConnectionDialog::WebDav) << "url=http://me:pw@host/dav"
                                        << ""
                                        << "User field" << QString();
    QTest::newRow("nbd tcp") << int(ConnectionDialog::Nbd) << "host=10.0.0.5;port=10810;export=disk0"
                             << "nbd://10.0.0.5:10810/disk0"
                             << "" << QStringLiteral("disk0 on 10.0.0.5:10810");
    QTest::newRow("nbd socket") << int(ConnectionDialog::Nbd) << "host=;socket=/run/nbd.sock"
                                << "nbd+unix:///?socket=/run/nbd.sock"
                                << "" << QStringLiteral("nbd.sock");
    QTest::newRow("nbd bad port") << int(ConnectionDialog::Nbd) << "host=h;port=70000"
                                  << ""
                                  << "port" << QString();
}

void TestConnectionDialog::validation()
{
    QFETCH(int, kind);
    QFETCH(QString, fields);
    QFETCH(QString, uri);
    QFETCH(QString, problem);
    QFETCH(QString, name);
    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(ConnectionDialog::Kind(kind));
    fill(dialog, fields);
    const auto built = dialog.build();
    QCOMPARE(built.uri, uri);
    QCOMPARE(okEnabled(dialog), uri.isEmpty() ? false : true);
    if (!problem.isEmpty())
        QVERIFY2(built.problem.contains(problem), qPrintable(built.problem));
    if (!uri.isEmpty())
        QCOMPARE(dialog.profile().name, name); // read like a place, not a URI with options
    // Whatever was typed, the URI never carries the secret.
    fill(dialog, kind == ConnectionDialog::S3 ? QStringLiteral("secretKey=TOPSECRET") : QString());
    QVERIFY(!dialog.build().uri.contains(QLatin1String("TOPSECRET")));
}

void TestConnectionDialog::testButtonReports()
{
    auto registry = makeRegistry();
    put(*registry, QStringLiteral("memory://probe/a"), "x"); // another registry: Test must not see it
    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(ConnectionDialog::MemoryStore);
    fill(dialog, QStringLiteral("store=probe"));
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    for (auto *b : dialog.findChildren<QPushButton *>())
        if (b->text() == QLatin1String("&Test"))
            b->click();
    // A quick answer may come within the click itself.
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 5000);
    QCOMPARE(done[0][0].toBool(), true);
    QVERIFY2(done[0][1].toString().contains(QLatin1String("memory://probe/")), qPrintable(done[0][1].toString()));
    QVERIFY(dialog.testResult().startsWith(QStringLiteral("✔")));

    dialog.setKind(ConnectionDialog::LocalFolder);
    fill(dialog, QStringLiteral("path=/no/such/folder/here"));
    for (auto *b : dialog.findChildren<QPushButton *>())
        if (b->text() == QLatin1String("&Test"))
            b->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 5000);
    QCOMPARE(done[1][0].toBool(), false);
    QVERIFY2(done[1][1].toString().contains(QLatin1String("/no/such/folder/here")), qPrintable(done[1][1].toString()));
    QVERIFY(dialog.testResult().startsWith(QStringLiteral("✘")));
}

void TestConnectionDialog::editingAProfileRestoresItsFields()
{
    ConnectionProfile profile{QStringLiteral("id-1"), QStringLiteral("Lab store"),
                              QStringLiteral("s3://lab/runs?endpoint=http://127.0.0.1:4569&region=us-east-2"),
                              QStringLiteral("AKIDEXAMPLE"), true};
    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setProfile(profile);
    QCOMPARE(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("bucket")))->text(), QStringLiteral("lab"));
    QCOMPARE(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("endpoint")))->text(),
             QStringLiteral("http://127.0.0.1:4569"));
    QCOMPARE(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("accessKey")))->text(),
             QStringLiteral("AKIDEXAMPLE"));
    fill(dialog, QStringLiteral("secretKey=s3cr3t"));
    const ConnectionProfile back = dialog.profile();
    QCOMPARE(back.id, profile.id);
    QCOMPARE(back.name, profile.name);
    QCOMPARE(back.uri, QStringLiteral("s3://lab/runs?endpoint=http://127.0.0.1:4569&region=us-east-2"));
    QVERIFY(back.hasSecret);
    QCOMPARE(dialog.secret(), QStringLiteral("s3cr3t"));
}

void TestConnectionDialog::profilesAndSecretsAreStoredApart()
{
    QVERIFY(qEnvironmentVariable("STRATA_SECRETS") == QLatin1String("file"));
    const ConnectionProfile p{ConnectionList::newId(), QStringLiteral("Share"),
                              QStringLiteral("webdav://127.0.0.1:8080/dav"), QStringLiteral("alice"), true};
    ConnectionList::save({p});
    SecretStore store;
    QString where, error;
    bool written = false;
    store.write(p.id, QStringLiteral("very-secret-password"), [&](QString w, QString e) {
        where = w;
        error = e;
        written = true;
    });
    QVERIFY(waitFor([&] { return written; }));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(where.contains(QLatin1String("only you can read")), qPrintable(where)); // the user is told
    QFile file(store.filePath());
    QCOMPARE(
        file.permissions()
            & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup | QFileDevice::WriteOther),
        QFileDevice::Permissions());
    std::optional<QString> back;
    bool read = false;
    store.read(p.id, [&](std::optional<QString> s, QString) {
        back = s;
        read = true;
    });
    QVERIFY(waitFor([&] { return read; }));
    QCOMPARE(back.value_or(QString()), QStringLiteral("very-secret-password"));

    const auto loaded = ConnectionList::load();
    QCOMPARE(loaded.size(), 1);
    QCOMPARE(loaded.front().uri, p.uri);
    QCOMPARE(loaded.front().user, QStringLiteral("alice"));
    QSettings settings;
    settings.sync();
    QFile ini(settings.fileName());
    QVERIFY(ini.open(QIODevice::ReadOnly));
    QVERIFY2(!ini.readAll().contains("very-secret-password"), "a secret went into the settings");

    store.remove(p.id);
    read = false;
    store.read(p.id, [&](std::optional<QString> s, QString) {
        back = s;
        read = true;
    });
    QVERIFY(waitFor([&] { return read; }));
    QVERIFY(!back);
}

} // namespace strata

QTEST_MAIN(strata::TestConnectionDialog)
#include "test_connection_dialog.moc"

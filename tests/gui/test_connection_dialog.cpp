// STRATA_SCREENSHOT_DIR=dir saves the SFTP page and the host key question.
// The connection dialog: each kind of storage builds the URI its fields describe, wrong
// fields keep OK off with a sentence naming the problem, Test connects off the GUI thread
// and reports; saved profiles come back from the settings; secrets go to a file only the
// user can read when no keychain runs, and never into the settings.
#include "tests/gui/gui_fixture.h"
#include "tests/lib/frob_factory.h"

#include "ui/connections/connection_dialog.h"
#include "ui/connections/connection_profile.h"
#include "ui/connections/connection_prompts.h"
#include "ui/connections/secret_store.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <unistd.h>

namespace strata {

using namespace gui_test;

class TestConnectionDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void validation_data();
    void validation();
    void testButtonReports();
    void aRegisteredBackendBringsItsForm();
    void editingAProfileRestoresItsFields();
    void editingKeepsEveryNameAndOption_data();
    void editingKeepsEveryNameAndOption();
    void profilesAndSecretsAreStoredApart();
    void sftpTestAsksAboutAnUnknownHostKey();
    void sftpAsksForAKeysPassphrase();
    void sftpTestUsesThePasswordField();
    void ftpsTestUsesThePasswordField();

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
    // Clicks the dialog's Test button (its answer comes as testFinished).
    static void pressTest(ConnectionDialog &dialog)
    {
        for (auto *b : dialog.findChildren<QPushButton *>())
            if (b->text() == QLatin1String("&Test"))
                b->click();
    }
    // The sshd fixture's env file (STRATA_SFTP_ENVFILE) as KEY -> VALUE; empty without one.
    static QMap<QString, QString> sshdFixture() { return fixtureEnv("STRATA_SFTP_ENVFILE"); }
    // A fixture's env file (shell lines KEY=VALUE), named by the variable, as a map.
    static QMap<QString, QString> fixtureEnv(const char *variable)
    {
        QMap<QString, QString> env;
        QFile file(qEnvironmentVariable(variable));
        if (file.open(QIODevice::ReadOnly))
            for (const QByteArray &line : file.readAll().split('\n'))
                if (const auto eq = line.indexOf('='); eq > 0)
                    env[QString::fromUtf8(line.left(eq))] = QString::fromUtf8(line.mid(eq + 1));
        return env;
    }
    static bool okEnabled(ConnectionDialog &d)
    {
        return d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled();
    }
};

void TestConnectionDialog::validation_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("fields");
    QTest::addColumn<QString>("uri");     // empty: refused
    QTest::addColumn<QString>("problem"); // part of the sentence shown
    QTest::addColumn<QString>("name");    // the name it is given unless one is typed

    QTest::newRow("folder") << QStringLiteral("file") << "path=/srv/data"
                            << "file:///srv/data"
                            << "" << QStringLiteral("/srv/data");
    QTest::newRow("relative folder") << QStringLiteral("file") << "path=data"
                                     << ""
                                     << "absolute path" << QString();
    QTest::newRow("memory") << QStringLiteral("memory") << "store=scratch"
                            << "memory://scratch/"
                            << "" << QStringLiteral("scratch (memory)");
    QTest::newRow("memory bad name") << QStringLiteral("memory") << "store=a/b"
                                     << ""
                                     << "store name" << QString();
    QTest::newRow("s3 local") << QStringLiteral("s3") << "bucket=photos;endpoint=http://127.0.0.1:9000;region=eu-west-1"
                              << "s3://photos/?endpoint=http://127.0.0.1:9000&region=eu-west-1"
                              << "" << QStringLiteral("photos on 127.0.0.1:9000");
    QTest::newRow("s3 prefix anonymous") << QStringLiteral("s3") << "bucket=open-data;prefix=2026/runs;anonymous=1"
                                         << "s3://open-data/2026/runs?anonymous=1"
                                         << "" << QStringLiteral("open-data/2026/runs on S3");
    QTest::newRow("s3 profile") << QStringLiteral("s3") << "bucket=team;profile=work"
                                << "s3://team/?profile=work"
                                << "" << QStringLiteral("team on S3");
    QTest::newRow("s3 bad bucket") << QStringLiteral("s3") << "bucket=Bad_Bucket"
                                   << ""
                                   << "bucket name" << QString();
    QTest::newRow("s3 bad endpoint") << QStringLiteral("s3") << "bucket=ok-bucket;endpoint=ftp://host"
                                     << ""
                                     << "endpoint" << QString();
    QTest::newRow("s3 half keys") << QStringLiteral("s3") << "bucket=ok-bucket;accessKey=AKIA"
                                  << ""
                                  << "both" << QString();
    QTest::newRow("webdav https") << QStringLiteral("webdav") << "url=https://cloud.example.com/dav/me;user=me"
                                  << "webdavs://cloud.example.com/dav/me"
                                  << "" << QStringLiteral("dav/me on cloud.example.com");
    QTest::newRow("webdav user in url") << QStringLiteral("webdav") << "url=http://me:pw@host/dav"
                                        << ""
                                        << "User field" << QString();
    QTest::newRow("nbd tcp") << QStringLiteral("nbd") << "host=10.0.0.5;port=10810;export=disk0"
                             << "nbd://10.0.0.5:10810/disk0"
                             << "" << QStringLiteral("disk0 on 10.0.0.5:10810");
    QTest::newRow("nbd socket") << QStringLiteral("nbd") << "host=;socket=/run/nbd.sock"
                                << "nbd+unix:///?socket=/run/nbd.sock"
                                << "" << QStringLiteral("nbd.sock");
    QTest::newRow("sftp alias") << QStringLiteral("sftp") << "sshHost=myserver"
                                << "sftp://myserver/~"
                                << "" << QStringLiteral("myserver");
    QTest::newRow("sftp full") << QStringLiteral("sftp")
                               << "sshHost=files.example.org;sshPort=2222;sshUser=ann;sshFolder=/srv/share;"
                                  "sshKey=/home/ann/.ssh/work_ed25519"
                               << "sftp://ann@files.example.org:2222/srv/share?identity=/home/ann/.ssh/work_ed25519"
                               << "" << QStringLiteral("/srv/share on ann@files.example.org:2222");
    QTest::newRow("sftp below home") << QStringLiteral("sftp") << "sshHost=10.0.0.7;sshFolder=backups/2026"
                                     << "sftp://10.0.0.7/~/backups/2026"
                                     << "" << QStringLiteral("~/backups/2026 on 10.0.0.7");
    QTest::newRow("sftp bad host") << QStringLiteral("sftp") << "sshHost=a/b"
                                   << ""
                                   << "host name" << QString();
    QTest::newRow("sftp user with @") << QStringLiteral("sftp") << "sshHost=h;sshUser=me@h"
                                      << ""
                                      << "user name" << QString();
    QTest::newRow("sftp relative key") << QStringLiteral("sftp") << "sshHost=h;sshKey=id_rsa"
                                       << ""
                                       << "key file" << QString();
    QTest::newRow("ftps") << QStringLiteral("ftp") << "ftpHost=files.example.org;ftpUser=ann;ftpFolder=/pub/isos"
                          << "ftps://ann@files.example.org/pub/isos"
                          << "" << QStringLiteral("pub/isos on ann@files.example.org (FTPS)");
    QTest::newRow("ftp plain with port") << QStringLiteral("ftp") << "ftpHost=10.0.0.9;ftpPort=2121;ftpTls=0"
                                         << "ftp://10.0.0.9:2121/"
                                         << "" << QStringLiteral("10.0.0.9:2121 (FTP)");
    QTest::newRow("ftps ca") << QStringLiteral("ftp") << "ftpHost=h;ftpCa=/etc/ssl/lab.pem"
                             << "ftps://h/?ca=/etc/ssl/lab.pem"
                             << "" << QStringLiteral("h (FTPS)");
    QTest::newRow("ftp ca without tls") << QStringLiteral("ftp") << "ftpHost=h;ftpTls=0;ftpCa=/etc/ssl/lab.pem"
                                        << ""
                                        << "FTPS" << QString();
    QTest::newRow("ftp user with :") << QStringLiteral("ftp") << "ftpHost=h;ftpUser=a:b"
                                     << ""
                                     << "user name" << QString();
    // Names and options as values: '%' before hex digits, '#', '?', '&' and spaces stay
    // part of the prefix, folder or option they are typed in.
    QTest::newRow("s3 hostile prefix") << QStringLiteral("s3")
                                       << "bucket=b-1;prefix=a b%41#c?d&e;endpoint=http://127.0.0.1:9000"
                                       << "s3://b-1/a%20b%2541%23c%3Fd&e?endpoint=http://127.0.0.1:9000"
                                       << "" << QStringLiteral("b-1/a b%41#c?d&e on 127.0.0.1:9000");
    QTest::newRow("nbd hostile socket") << QStringLiteral("nbd") << "host=;socket=/run/a&b #1%41.sock"
                                        << "nbd+unix:///?socket=/run/a%26b%20%231%2541.sock"
                                        << "" << QStringLiteral("a&b #1%41.sock");
    QTest::newRow("sftp hostile folder and key")
        << QStringLiteral("sftp") << "sshHost=h;sshFolder=/srv/50% #1 ?x;sshKey=/k/my key#1&2"
        << "sftp://h/srv/50%25%20%231%20%3Fx?identity=/k/my%20key%231%262"
        << "" << QStringLiteral("/srv/50% #1 ?x on h");
    QTest::newRow("webdav hostile url with an option")
        << QStringLiteral("webdav") << "url=http://h:8080/dav/100%25 %23 ?timeout=20"
        << "webdav://h:8080/dav/100%25%20%23%20?timeout=20"
        << "" << QStringLiteral("dav/100% #  on h:8080");
    // How long a request may move no byte (issue 43): ?timeout=, as the command line has it.
    QTest::newRow("sftp timeout") << QStringLiteral("sftp") << "sshHost=h;sshTimeout=7"
                                  << "sftp://h/~?timeout=7"
                                  << "" << QStringLiteral("h");
    QTest::newRow("ftp ca and timeout") << QStringLiteral("ftp") << "ftpHost=h;ftpCa=/etc/ssl/lab.pem;ftpTimeout=90"
                                        << "ftps://h/?ca=/etc/ssl/lab.pem&timeout=90"
                                        << "" << QStringLiteral("h (FTPS)");
    QTest::newRow("s3 timeout") << QStringLiteral("s3") << "bucket=ok-bucket;s3Timeout=5"
                                << "s3://ok-bucket/?timeout=5"
                                << "" << QStringLiteral("ok-bucket on S3");
    QTest::newRow("s3 bad timeout") << QStringLiteral("s3") << "bucket=ok-bucket;s3Timeout=0"
                                    << ""
                                    << "timeout" << QString();
    QTest::newRow("nbd bad port") << QStringLiteral("nbd") << "host=h;port=70000"
                                  << ""
                                  << "port" << QString();
}

void TestConnectionDialog::validation()
{
    QFETCH(QString, kind);
    QFETCH(QString, fields);
    QFETCH(QString, uri);
    QFETCH(QString, problem);
    QFETCH(QString, name);
    ConnectionDialog dialog([] { return makeRegistry(); });
    QVERIFY(dialog.setKind(kind));
    fill(dialog, fields);
    const auto built = dialog.build();
    QCOMPARE(built.uri, uri);
    QCOMPARE(okEnabled(dialog), uri.isEmpty() ? false : true);
    if (!problem.isEmpty())
        QVERIFY2(built.problem.contains(problem), qPrintable(built.problem));
    if (!uri.isEmpty())
        QCOMPARE(dialog.profile().name, name); // read like a place, not a URI with options
    // Whatever was typed, the URI never carries the secret.
    fill(dialog,
         kind == QLatin1String("s3")         ? QStringLiteral("secretKey=TOPSECRET")
             : kind == QLatin1String("sftp") ? QStringLiteral("sshPassword=TOPSECRET")
             : kind == QLatin1String("ftp")  ? QStringLiteral("ftpPassword=TOPSECRET")
                                             : QString());
    QVERIFY(!dialog.build().uri.contains(QLatin1String("TOPSECRET")));
}

void TestConnectionDialog::aRegisteredBackendBringsItsForm()
{
    ConnectionDialog dialog([] {
        auto registry = makeRegistry();
        registry->add(std::make_unique<test::FrobFactory>());
        return registry;
    });
    QVERIFY2(dialog.kinds().contains(QStringLiteral("Frobnicator box")), qPrintable(dialog.kinds().join(u',')));
    // A new connection opens on the first kind that logs in with a secret (a server).
    QCOMPARE(dialog.findChild<QComboBox *>()->currentText(), QStringLiteral("S3 object storage"));
    QCOMPARE(dialog.kinds().count(QStringLiteral("Frobnicator box")), 1);
    QVERIFY(dialog.setKind(QStringLiteral("frob")));
    // Its fields as it describes them: the initial answers, the secret hidden.
    QCOMPARE(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("box")))->text(), QStringLiteral("crate"));
    QCOMPARE(qobject_cast<QLineEdit *>(dialog.field(QStringLiteral("token")))->echoMode(), QLineEdit::Password);
    QVERIFY(qobject_cast<QCheckBox *>(dialog.field(QStringLiteral("gentle")))->isChecked());
    QCOMPARE(dialog.build().uri, QStringLiteral("frob://crate/?gentle"));
    fill(dialog, QStringLiteral("box=a/b"));
    QCOMPARE(dialog.build().problem, QStringLiteral("A box has a name without '/'"));
    QVERIFY(!okEnabled(dialog));
    fill(dialog, QStringLiteral("box=shed;owner=ann;token=TOPSECRET;gentle=0"));
    QCOMPARE(dialog.build().uri, QStringLiteral("frob://shed/"));
    QCOMPARE(dialog.profile().user, QStringLiteral("ann"));
    QCOMPARE(dialog.secret(), QStringLiteral("TOPSECRET"));
    QVERIFY(!dialog.profile().uri.contains(QLatin1String("TOPSECRET")));

    // A saved one comes back into its form.
    ConnectionDialog again([] {
        auto registry = makeRegistry();
        registry->add(std::make_unique<test::FrobFactory>());
        return registry;
    });
    ConnectionProfile saved = dialog.profile();
    saved.uri = QStringLiteral("frob://barn/?gentle");
    again.setProfile(saved);
    QCOMPARE(qobject_cast<QLineEdit *>(again.field(QStringLiteral("box")))->text(), QStringLiteral("barn"));
    QCOMPARE(qobject_cast<QLineEdit *>(again.field(QStringLiteral("owner")))->text(), QStringLiteral("ann"));
    QVERIFY(qobject_cast<QCheckBox *>(again.field(QStringLiteral("gentle")))->isChecked());
    QCOMPARE(again.build().uri, QStringLiteral("frob://barn/?gentle"));
}

void TestConnectionDialog::testButtonReports()
{
    auto registry = makeRegistry();
    put(*registry, QStringLiteral("memory://probe/a"), "x"); // another registry: Test must not see it
    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(QStringLiteral("memory"));
    fill(dialog, QStringLiteral("store=probe"));
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    pressTest(dialog);
    // A quick answer may come within the click itself.
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 5000);
    QCOMPARE(done[0][0].toBool(), true);
    QVERIFY2(done[0][1].toString().contains(QLatin1String("memory://probe/")), qPrintable(done[0][1].toString()));
    QVERIFY(dialog.testResult().startsWith(QStringLiteral("✔")));

    dialog.setKind(QStringLiteral("file"));
    fill(dialog, QStringLiteral("path=/no/such/folder/here"));
    pressTest(dialog);
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

// A saved connection opened for editing shows each part decoded in its field, and saved
// again without a change is the very same URI (one parser for both: Uri, never QUrl).
void TestConnectionDialog::editingKeepsEveryNameAndOption_data()
{
    QTest::addColumn<QString>("uri");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("shown");
    QTest::newRow("s3 prefix") << "s3://b-1/a%20b%2541%23c%3Fd&e?endpoint=http://127.0.0.1:9000&region=eu-west-3"
                               << "prefix" << QStringLiteral("a b%41#c?d&e");
    QTest::newRow("s3 endpoint") << "s3://b-1/?endpoint=http://127.0.0.1:9000&region=eu-west-3"
                                 << "endpoint" << QStringLiteral("http://127.0.0.1:9000");
    QTest::newRow("nbd socket") << "nbd+unix:///?socket=/run/a%26b%20%231%2541.sock"
                                << "socket" << QStringLiteral("/run/a&b #1%41.sock");
    QTest::newRow("nbd ipv6") << "nbd://[::1]:10810/disk0"
                              << "host" << QStringLiteral("::1");
    QTest::newRow("sftp ipv6") << "sftp://[::1]:2222/~"
                               << "sshHost" << QStringLiteral("::1");
    QTest::newRow("sftp key") << "sftp://h/srv/50%25%20%231%20%3Fx?identity=/k/my%20key%231%262"
                              << "sshKey" << QStringLiteral("/k/my key#1&2");
    QTest::newRow("sftp folder") << "sftp://h/srv/50%25%20%231%20%3Fx?identity=/k/my%20key%231%262"
                                 << "sshFolder" << QStringLiteral("/srv/50% #1 ?x");
    QTest::newRow("ftps ca") << "ftps://h/pub%20%23?ca=/etc/ssl/a%26b.pem"
                             << "ftpCa" << QStringLiteral("/etc/ssl/a&b.pem");
    QTest::newRow("sftp timeout") << "sftp://h/~?identity=/k/id&timeout=7"
                                  << "sshTimeout" << QStringLiteral("7");
    QTest::newRow("ftp timeout") << "ftp://h/?timeout=5"
                                 << "ftpTimeout" << QStringLiteral("5");
    QTest::newRow("webdav") << "webdav://h:8080/dav/100%25%20%23%20?timeout=20"
                            << "url" << QStringLiteral("http://h:8080/dav/100%25%20%23%20?timeout=20");
}

void TestConnectionDialog::editingKeepsEveryNameAndOption()
{
    QFETCH(QString, uri);
    QFETCH(QString, field);
    QFETCH(QString, shown);
    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setProfile({QStringLiteral("id-2"), QStringLiteral("Edited"), uri, QString(), false});
    auto *edit = qobject_cast<QLineEdit *>(dialog.field(field));
    QVERIFY(edit);
    QCOMPARE(edit->text(), shown);
    QCOMPARE(dialog.build().problem, QString());
    QCOMPARE(dialog.profile().uri, uri);
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

// On OpenSSH's sshd (fixture sshd) with an empty known_hosts: Test asks about the server's
// key, showing the fingerprint ssh-keygen shows; Cancel refuses and writes nothing, Trust
// connects and remembers the key. The connection opens off the GUI thread, which keeps
// running while the question waits.
void TestConnectionDialog::sftpTestAsksAboutAnUnknownHostKey()
{
    const QMap<QString, QString> env = sshdFixture();
    QVERIFY2(!env.isEmpty(), "no sshd fixture (STRATA_SFTP_ENVFILE)");
    QTemporaryDir home;
    const QByteArray oldHome = qgetenv("HOME");
    qputenv("HOME", home.path().toUtf8()); // an empty ~/.ssh: the key is unknown
    const QString known = home.path() + QStringLiteral("/.ssh/known_hosts");
    QString expected; // ssh-keygen -lf's fingerprint of the fixture's host key
    {
        QProcess keygen;
        keygen.start(QStringLiteral("ssh-keygen"),
                     {QStringLiteral("-lf"),
                      QFileInfo(env[QStringLiteral("STRATA_SFTP_KEY")]).path() + QStringLiteral("/host_ed25519.pub")});
        QVERIFY(keygen.waitForFinished(10000));
        expected = QString::fromUtf8(keygen.readAllStandardOutput()).split(QLatin1Char(' ')).value(1);
        QVERIFY2(expected.startsWith(QLatin1String("SHA256:")), qPrintable(expected));
    }

    ConnectionDialog dialog([&dialog] {
        auto registry = makeRegistry();
        registry->setPrompts(windowPrompts(&dialog));
        return registry;
    });
    dialog.setKind(QStringLiteral("sftp"));
    fill(dialog,
         QStringLiteral("sshHost=127.0.0.1;sshPort=%1;sshUser=%2;sshFolder=/upload;sshKey=%3")
             .arg(env[QStringLiteral("STRATA_SFTP_PORT")], env[QStringLiteral("STRATA_SFTP_USER")],
                  env[QStringLiteral("STRATA_SFTP_KEY")]));
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    auto question = []() -> QMessageBox * {
        for (auto *w : QApplication::topLevelWidgets())
            if (w->objectName() == QLatin1String("hostKeyPrompt") && w->isVisible())
                return qobject_cast<QMessageBox *>(w);
        return nullptr;
    };

    // The question runs its own event loop (exec) inside the test's waiting: a timer answers.
    QString asked;
    bool cancelIsDefault = false;
    QString choice = QStringLiteral("cancel");
    QTimer answer;
    answer.setInterval(20);
    connect(&answer, &QTimer::timeout, [&] {
        QMessageBox *box = question();
        if (!box)
            return;
        if (const QString dir = qEnvironmentVariable("STRATA_SCREENSHOT_DIR");
            !dir.isEmpty() && choice == QLatin1String("cancel")) {
            dialog.grab().save(dir + QStringLiteral("/connection-sftp.png"));
            box->grab().save(dir + QStringLiteral("/host-key-prompt.png"));
        }
        asked = box->text();
        cancelIsDefault = box->defaultButton() == box->button(QMessageBox::Cancel); // Return never trusts
        if (choice == QLatin1String("cancel"))
            box->button(QMessageBox::Cancel)->click();
        else
            box->findChild<QPushButton *>(QStringLiteral("trust"))->click();
    });
    answer.start();

    pressTest(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
    QVERIFY2(asked.contains(expected), qPrintable(asked));
    QVERIFY(asked.contains(known.toHtmlEscaped()));
    QVERIFY(cancelIsDefault);
    QCOMPARE(done[0][0].toBool(), false);
    QVERIFY2(done[0][1].toString().contains(QLatin1String("is not known")), qPrintable(done[0][1].toString()));
    QVERIFY(!QFile::exists(known));

    asked.clear();
    choice = QStringLiteral("trust");
    pressTest(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 10000);
    QVERIFY(!asked.isEmpty());
    QVERIFY2(done[1][0].toBool(), qPrintable(done[1][1].toString()));
    QFile added(known);
    QVERIFY(added.open(QIODevice::ReadOnly));
    const QByteArray line =
        QByteArray("[127.0.0.1]:") + env[QStringLiteral("STRATA_SFTP_PORT")].toUtf8() + " ssh-ed25519 ";
    QVERIFY(added.readAll().startsWith(line));

    // Known now: no question the next time.
    asked.clear();
    pressTest(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 3, 10000);
    QVERIFY(done[2][0].toBool());
    QVERIFY(asked.isEmpty());
    qputenv("HOME", oldHome);
}

// A key with a passphrase and no password saved: Test asks for it (password echo), and the
// answer logs in; a wrong one does not.
void TestConnectionDialog::sftpAsksForAKeysPassphrase()
{
    const QMap<QString, QString> env = sshdFixture();
    QVERIFY2(!env.isEmpty(), "no sshd fixture (STRATA_SFTP_ENVFILE)");
    QTemporaryDir home;
    const QByteArray oldHome = qgetenv("HOME");
    qputenv("HOME", home.path().toUtf8());
    QDir().mkpath(home.path() + QStringLiteral("/.ssh"));
    QVERIFY(
        QFile::copy(env[QStringLiteral("STRATA_SFTP_KNOWN_HOSTS")], home.path() + QStringLiteral("/.ssh/known_hosts")));
    const QString key = home.path() + QStringLiteral("/locked_ed25519");
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
                  QStringLiteral("open sesame"), QStringLiteral("-f"), key});
    QVERIFY(keygen.waitForFinished(10000) && keygen.exitCode() == 0);
    {
        QFile authorized(QFileInfo(env[QStringLiteral("STRATA_SFTP_KEY")]).path() + QStringLiteral("/authorized_keys"));
        QFile pub(key + QStringLiteral(".pub"));
        QVERIFY(authorized.open(QIODevice::Append) && pub.open(QIODevice::ReadOnly));
        authorized.write(pub.readAll());
    }

    ConnectionDialog dialog([&dialog] {
        auto registry = makeRegistry();
        registry->setPrompts(windowPrompts(&dialog));
        return registry;
    });
    dialog.setKind(QStringLiteral("sftp"));
    fill(dialog,
         QStringLiteral("sshHost=127.0.0.1;sshPort=%1;sshUser=%2;sshFolder=/upload;sshKey=%3")
             .arg(env[QStringLiteral("STRATA_SFTP_PORT")], env[QStringLiteral("STRATA_SFTP_USER")], key));
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    QString typed = QStringLiteral("not it"), label;
    bool hidden = false;
    QTimer answer;
    answer.setInterval(20);
    connect(&answer, &QTimer::timeout, [&] {
        for (auto *w : QApplication::topLevelWidgets())
            if (auto *box = qobject_cast<QInputDialog *>(w);
                box && box->isVisible() && box->objectName() == QLatin1String("passphrasePrompt")) {
                label = box->labelText();
                hidden = box->textEchoMode() == QLineEdit::Password;
                box->setTextValue(typed);
                box->accept();
            }
    });
    answer.start();
    for (int round = 0; round < 2; ++round) {
        pressTest(dialog);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), round + 1, 10000);
        QVERIFY2(label.contains(key), qPrintable(label));
        QVERIFY(hidden);
        QCOMPARE(done[round][0].toBool(), round == 1);
        QVERIFY(!done[round][1].toString().contains(typed));
        typed = QStringLiteral("open sesame");
    }
    qputenv("HOME", oldHome);
}

// On sshd with a password login (the fixture offers one when run as root) and no key at
// all: Test logs in with the password typed in the dialog; a wrong one is refused with a
// sentence that shows neither.
void TestConnectionDialog::sftpTestUsesThePasswordField()
{
    const QMap<QString, QString> env = sshdFixture();
    QVERIFY2(!env.isEmpty(), "no sshd fixture (STRATA_SFTP_ENVFILE)");
    const QString password = env.value(QStringLiteral("STRATA_SFTP_LOGIN_PASSWORD"));
    if (password.isEmpty()) {
        // Only as root can the fixture give sshd a password file of its own.
        QVERIFY2(::geteuid() != 0, "the sshd fixture runs as root but offers no password login");
        QSKIP("the sshd fixture offers password logins only when run as root");
    }
    QVERIFY(qEnvironmentVariableIsEmpty("STRATA_SFTP_PASSWORD"));
    QTemporaryDir home;
    const QByteArray oldHome = qgetenv("HOME");
    qputenv("HOME", home.path().toUtf8()); // no key in ~/.ssh
    QDir().mkpath(home.path() + QStringLiteral("/.ssh"));
    QVERIFY(
        QFile::copy(env[QStringLiteral("STRATA_SFTP_KNOWN_HOSTS")], home.path() + QStringLiteral("/.ssh/known_hosts")));
    const QByteArray agent = qgetenv("SSH_AUTH_SOCK");
    qunsetenv("SSH_AUTH_SOCK");

    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(QStringLiteral("sftp"));
    fill(dialog,
         QStringLiteral("sshHost=127.0.0.1;sshPort=%1;sshUser=%2;sshFolder=/upload;sshPassword=%3")
             .arg(env[QStringLiteral("STRATA_SFTP_PORT")], env[QStringLiteral("STRATA_SFTP_USER")], password));
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    pressTest(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QVERIFY(!done[0][1].toString().contains(password));

    fill(dialog, QStringLiteral("sshPassword=not-the-password"));
    pressTest(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 20000);
    QCOMPARE(done[1][0].toBool(), false);
    const QString refused = done[1][1].toString();
    QVERIFY2(refused.contains(QLatin1String("refused the login")), qPrintable(refused));
    QVERIFY(!refused.contains(QLatin1String("not-the-password")));
    QVERIFY(!refused.contains(password));
    qputenv("HOME", oldHome);
    if (!agent.isEmpty())
        qputenv("SSH_AUTH_SOCK", agent);
}

// On Pure-FTPd (fixture pureftpd) over explicit TLS with the fixture's CA: Test logs in with
// the password typed in the dialog (the environment has none), and a wrong one is refused
// with a clear sentence that never shows it.
void TestConnectionDialog::ftpsTestUsesThePasswordField()
{
    const QMap<QString, QString> env = fixtureEnv("STRATA_FTP_ENVFILE");
    QVERIFY2(!env.isEmpty(), "no FTP fixture (STRATA_FTP_ENVFILE)");
    QVERIFY(qEnvironmentVariableIsEmpty("STRATA_FTP_PASSWORD"));
    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(QStringLiteral("ftp"));
    fill(dialog,
         QStringLiteral("ftpHost=127.0.0.1;ftpPort=%1;ftpUser=%2;ftpFolder=upload;ftpCa=%3;ftpPassword=%4")
             .arg(env[QStringLiteral("STRATA_FTP_PORT")], env[QStringLiteral("STRATA_FTP_USER")],
                  env[QStringLiteral("STRATA_FTP_CA")], env[QStringLiteral("STRATA_FTP_PASSWORD")]));
    QVERIFY2(dialog.build().uri.startsWith(QLatin1String("ftps://")), qPrintable(dialog.build().uri));
    QSignalSpy done(&dialog, &ConnectionDialog::testFinished);
    pressTest(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    QVERIFY2(done[0][0].toBool(), qPrintable(done[0][1].toString()));
    QVERIFY2(done[0][1].toString().contains(QLatin1String("a folder")), qPrintable(done[0][1].toString()));
    if (const QString dir = qEnvironmentVariable("STRATA_SCREENSHOT_DIR"); !dir.isEmpty()) {
        dialog.show();
        QCoreApplication::processEvents();
        dialog.grab().save(dir + QStringLiteral("/connection-ftps.png"));
    }

    fill(dialog, QStringLiteral("ftpPassword=not-the-password"));
    pressTest(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 20000);
    QCOMPARE(done[1][0].toBool(), false);
    const QString refused = done[1][1].toString();
    QVERIFY2(refused.contains(QLatin1String("refused the user name or password")), qPrintable(refused));
    QVERIFY(!refused.contains(QLatin1String("not-the-password")));
    QVERIFY(!refused.contains(env[QStringLiteral("STRATA_FTP_PASSWORD")]));
}

} // namespace strata

QTEST_MAIN(strata::TestConnectionDialog)
#include "test_connection_dialog.moc"

// Drops onto remote connections whose URIs carry options (issue 42): an SFTP connection
// made with a key file (?identity=), an S3 connection with an endpoint and a region, a
// WebDAV connection with a timeout, each made in the connection dialog and saved and read
// back as a profile, on the real servers (sshd, s3rver, lighttpd: CTest fixtures). Files
// dragged from a local pane (the pane's own QMimeData) must arrive byte-exact, as must the
// copy kept beside one already there ("Keep both"), a copy to the other pane (F6), and a
// drop into a folder made by New Folder and a file renamed, all with names holding '%',
// '#', '?', '&', spaces and non-ASCII letters. Joining a name to the printed URI put it
// after the last option instead ("?identity=/k/key/"): the login then found no key.
#include "tests/gui/gui_fixture.h"

#include "core/storage/uri.h"
#include "tests/behavior/behavior_root.h"
#include "tests/gui/dialog_fields.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"
#include "ui/browser/file_actions.h"
#include "ui/connections/connection_dialog.h"
#include "ui/connections/connection_profile.h"
#include "ui/main_window.h"
#include "ui/transfers/transfer_queue_model.h"
#include "ui/transfers/transfer_starter.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMimeData>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

namespace strata {

using namespace gui_test;

namespace {

QString env(const char *name)
{
    return qEnvironmentVariable(name);
}

QString stamp()
{
    return QString::number(QDateTime::currentMSecsSinceEpoch());
}

// Names that a string join mangles: '%' before hex digits, '#', '?', '&', '=', spaces, é.
const QString kHostile = QStringLiteral("50% off %41 #1 ?x=y&z é.txt");
const QString kHostileCopy = QStringLiteral("50% off %41 #1 ?x=y&z é (2).txt");
const QString kFolder = QStringLiteral("new 100% #2 ?dir é");
const QString kRenamed = QStringLiteral("renamed %25 #3 ?.bin");

// "?a=1&b=2" of a URI's options, for failure messages (secrets redacted).
QString optionsText(const std::vector<Uri::QueryItem> &options)
{
    Uri uri;
    uri.setScheme("x");
    uri.setPath("/");
    uri.setQuery(options);
    return QString::fromStdString(uri.redacted());
}

QByteArray randomBytes(int size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (char &c : bytes)
        c = char(QRandomGenerator::global()->bounded(256));
    return bytes;
}

// The URI of `name` in the folder `folderUri` names: a value, as the window must join it.
QString childOf(const QString &folderUri, const QString &name)
{
    auto folder = Uri::parse(folderUri.toStdString());
    if (!folder)
        return {};
    return QString::fromStdString(folder->child(name.toStdString()).toString());
}

} // namespace

class TestRemoteDrops : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();
    void dropOntoSftpMadeWithAKeyFile();
    void dropOntoS3WithEndpointAndRegion();
    void dropOntoWebDavWithOptions();

private:
    // The connection the dialog makes from `fields`, saved and loaded again as a profile:
    // its URI must come back the same, and is returned.
    QString savedConnection(const QString &kind, const QString &fields);
    // Drops a plain and a hostile file from a local folder onto `connection` (open in the
    // right pane), then the hostile one again with "Keep both", then copies a third with F6;
    // makes a folder and renames a file there, and drops into that folder. Every file is
    // read back through `check` (a fresh registry: not the window's) and compared.
    void dropEverything(const QString &connection, const QString &renameTo = kRenamed);
    QModelIndex rowNamed(BrowserPane *pane, const QString &name);
    void show(BrowserPane *pane, const QString &uri);
    void drag(BrowserPane *from, const QStringList &names, BrowserPane *to, const QString &onto = {});
    bool waitForJobs(int count);
    bool lastJobOk() const { return !m_finished.isEmpty() && m_finished.last().startsWith(QLatin1String("ok ")); }
    // What went wrong in the last job finished, for the failure message.
    QString lastJobProblem() const;
    // The options the last job's destination carried (a server may ignore a mangled one:
    // s3rver takes any region).
    std::vector<Uri::QueryItem> lastJobOptions() const;
    void expectOnServer(const QString &folderUri, const QString &name, const QByteArray &bytes);

    QTemporaryDir m_home; // ~/.ssh/known_hosts knows the fixture's sshd
    QByteArray m_oldHome;
    QTemporaryDir m_local;
    std::shared_ptr<Registry> m_registry;
    std::shared_ptr<Registry> m_check;
    std::unique_ptr<MainWindow> m_window;
    QStringList m_finished;
};

void TestRemoteDrops::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    loadEnvFile(env("STRATA_SFTP_ENVFILE").toStdString());
    loadEnvFile(env("STRATA_S3_ENVFILE").toStdString());
    loadEnvFile(env("STRATA_WEBDAV_ENVFILE").toStdString());
    QVERIFY2(!env("STRATA_SFTP_KEY").isEmpty(), "no sshd fixture: run through CTest (STRATA_SFTP_ENVFILE)");
    QVERIFY2(!env("STRATA_S3_ENDPOINT").isEmpty(), "no s3rver fixture: run through CTest (STRATA_S3_ENVFILE)");
    QVERIFY2(!env("STRATA_WEBDAV_ENDPOINT").isEmpty(), "no lighttpd fixture: run through CTest");
    // The key file is the only way in: no password from the environment.
    qunsetenv("STRATA_SFTP_PASSWORD");
    // A home whose known_hosts holds the fixture's host key, as after a first "Trust".
    m_oldHome = qgetenv("HOME");
    QVERIFY(QDir(m_home.path()).mkpath(QStringLiteral(".ssh")));
    QVERIFY(QFile::copy(env("STRATA_SFTP_KNOWN_HOSTS"), m_home.filePath(QStringLiteral(".ssh/known_hosts"))));
    qputenv("HOME", m_home.path().toUtf8());
}

void TestRemoteDrops::cleanupTestCase()
{
    qputenv("HOME", m_oldHome);
}

void TestRemoteDrops::init()
{
    m_registry = makeRegistry();
    m_check = makeRegistry();
    m_window = std::make_unique<MainWindow>(
        *m_registry, [] { return makeRegistry(); }, QueueOptions{});
    m_window->resize(1200, 760);
    m_window->show();
    m_finished.clear();
    connect(m_window->queue(), &TransferQueueModel::jobFinished, this, [this](const QString &id, bool ok) {
        m_finished << (ok ? QStringLiteral("ok ") : QStringLiteral("failed ")) + id;
    });
}

void TestRemoteDrops::cleanup()
{
    m_window.reset();
    m_registry.reset();
    m_check.reset();
}

QString TestRemoteDrops::savedConnection(const QString &kind, const QString &fields)
{
    ConnectionDialog dialog([] { return makeRegistry(); });
    dialog.setKind(kind);
    for (const auto &pair : fields.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const auto eq = pair.indexOf(QLatin1Char('='));
        fill(dialog, pair.left(eq), pair.mid(eq + 1));
    }
    const ConnectionDialog::Built built = dialog.build();
    if (!built.problem.isEmpty()) {
        qWarning("the dialog refused the connection: %s", qPrintable(built.problem));
        return {};
    }
    ConnectionList::save({dialog.profile()});
    const auto loaded = ConnectionList::load();
    if (loaded.size() != 1)
        return {};
    // Edited again and saved unchanged: the very same URI.
    ConnectionDialog again([] { return makeRegistry(); });
    again.setProfile(loaded.front());
    if (again.profile().uri != built.uri) {
        qWarning("the profile came back as %s, not %s", qPrintable(again.profile().uri), qPrintable(built.uri));
        return {};
    }
    return built.uri;
}

// What the pane says above its list (an error opening, listing…).
QString banner(BrowserPane *pane)
{
    auto *label = pane->findChild<QLabel *>(QStringLiteral("paneBanner"));
    return label ? label->text() : QString();
}

void TestRemoteDrops::show(BrowserPane *pane, const QString &uri)
{
    // Shown once the pane's folder is this one (its URI may order the options otherwise).
    const auto wanted = Uri::parse(uri.toStdString());
    QVERIFY(wanted);
    pane->openUri(uri);
    const auto same = [&] {
        if (!pane->location().op || pane->model()->loading())
            return false;
        const Uri shown = pane->location().op->uriFor(pane->location().path);
        return shown.scheme() == wanted->scheme() && shown.host() == wanted->host()
            && shown.asFolder().path() == wanted->asFolder().path();
    };
    QVERIFY2(waitFor(same, 20000),
             qPrintable(uri + QStringLiteral(" not shown: ") + pane->displayUri() + QLatin1Char(' ') + banner(pane)));
}

QModelIndex TestRemoteDrops::rowNamed(BrowserPane *pane, const QString &name)
{
    auto *proxy = pane->view()->model();
    for (int r = 0; r < proxy->rowCount(); ++r)
        if (proxy->index(r, DirectoryModel::Name).data().toString() == name)
            return proxy->index(r, DirectoryModel::Name);
    return {};
}

void TestRemoteDrops::drag(BrowserPane *from, const QStringList &names, BrowserPane *to, const QString &onto)
{
    QModelIndexList rows;
    for (const auto &name : names) {
        rows << rowNamed(from, name);
        QVERIFY2(rows.back().isValid(), qPrintable(name + QStringLiteral(" is not shown")));
    }
    std::unique_ptr<QMimeData> mime(from->view()->model()->mimeData(rows));
    QVERIFY(mime);
    auto *target = to->view()->model();
    const QModelIndex parent = onto.isEmpty() ? QModelIndex() : rowNamed(to, onto);
    QVERIFY(onto.isEmpty() || parent.isValid());
    QVERIFY(target->canDropMimeData(mime.get(), Qt::CopyAction, -1, -1, parent));
    target->dropMimeData(mime.get(), Qt::CopyAction, -1, -1, parent);
}

bool TestRemoteDrops::waitForJobs(int count)
{
    return waitFor([&] { return m_finished.size() >= count; }, 30000);
}

QString TestRemoteDrops::lastJobProblem() const
{
    if (m_finished.isEmpty())
        return QStringLiteral("no job finished");
    const QString id = m_finished.last().section(QLatin1Char(' '), 1);
    auto *queue = m_window->queue();
    for (int r = 0; r < queue->rowCount(); ++r)
        if (const QModelIndex index = queue->index(r, 0); index.data(TransferQueueModel::JobIdRole).toString() == id)
            return m_finished.last() + QStringLiteral(": ") + queue->failures(index).join(QLatin1Char('\n'));
    return m_finished.last();
}

std::vector<Uri::QueryItem> TestRemoteDrops::lastJobOptions() const
{
    if (m_finished.isEmpty())
        return {};
    const auto spec = m_window->queue()->specOf(m_finished.last().section(QLatin1Char(' '), 1).toStdString());
    auto destination = spec ? Uri::parse(spec->destination) : Result<Uri>(Error(ErrorKind::NotFound, "no job"));
    return destination ? destination->query() : std::vector<Uri::QueryItem>{{"unreadable", "destination"}};
}

void TestRemoteDrops::expectOnServer(const QString &folderUri, const QString &name, const QByteArray &bytes)
{
    const QString uri = childOf(folderUri, name);
    const QByteArray back = get(*m_check, uri);
    QVERIFY2(back == bytes,
             qPrintable(QStringLiteral("%1: %2 bytes back, %3 sent")
                            .arg(uri, QString::number(back.size()), QString::number(bytes.size()))));
}

void TestRemoteDrops::dropEverything(const QString &connection, const QString &renameTo)
{
    QVERIFY(!connection.isEmpty());
    const QByteArray plain = randomBytes(300 * 1024), hostile = randomBytes(70 * 1024 + 3);
    const QByteArray newer = randomBytes(4096), third = randomBytes(1000), renamed = randomBytes(77);
    const QString local = m_local.filePath(stamp());
    QVERIFY(QDir().mkpath(local));
    auto write = [&](const QString &name, const QByteArray &bytes) {
        QFile file(local + QLatin1Char('/') + name);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(bytes), qint64(bytes.size()));
    };
    write(QStringLiteral("plain.bin"), plain);
    write(kHostile, hostile);
    write(QStringLiteral("third é#.dat"), third);
    write(QStringLiteral("to rename.bin"), renamed);
    auto *left = m_window->pane(0), *right = m_window->pane(1);
    show(left, QString::fromStdString(Uri::fromLocalPath(local.toStdString()).toString()));
    show(right, connection);
    QVERIFY2(right->model()->error().isEmpty(), qPrintable(right->model()->error()));
    const QString folder = right->uriOf(right->location().path);
    const auto options = right->location().op->uriFor("/").query();

    // A drop of two files onto the connection's folder.
    drag(left, {QStringLiteral("plain.bin"), kHostile}, right);
    QVERIFY(waitForJobs(1));
    QVERIFY2(lastJobOk(), qPrintable(lastJobProblem()));
    QVERIFY2(lastJobOptions() == options, qPrintable(optionsText(lastJobOptions())));
    expectOnServer(folder, QStringLiteral("plain.bin"), plain);
    expectOnServer(folder, kHostile, hostile);
    QVERIFY(waitFor([&] { return rowNamed(right, kHostile).isValid(); }, 15000));
    if (const QByteArray dir = qgetenv("STRATA_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir)
                              + QStringLiteral("/drop-%1.png").arg(QLatin1String(QTest::currentTestFunction())));

    // The same name again, kept beside the first as "… (2).txt".
    write(kHostile, newer);
    m_window->starter()->setConflictAnswer(TransferStarter::Conflict::KeepBoth);
    drag(left, {kHostile}, right);
    QVERIFY(waitForJobs(2));
    QVERIFY2(lastJobOk(), qPrintable(lastJobProblem()));
    QVERIFY2(lastJobOptions() == options, qPrintable(optionsText(lastJobOptions())));
    expectOnServer(folder, kHostile, hostile);
    expectOnServer(folder, kHostileCopy, newer);

    // Copy to the other pane (F6).
    left->view()->setFocus();
    const QModelIndex row = rowNamed(left, QStringLiteral("third é#.dat"));
    QVERIFY(row.isValid());
    left->view()->selectionModel()->select(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    left->view()->setCurrentIndex(row);
    QTest::keyClick(m_window.get(), Qt::Key_F6);
    QVERIFY(waitForJobs(3));
    QVERIFY2(lastJobOk(), qPrintable(lastJobProblem()));
    QVERIFY2(lastJobOptions() == options, qPrintable(optionsText(lastJobOptions())));
    expectOnServer(folder, QStringLiteral("third é#.dat"), third);

    // New folder, then a drop onto its row: into it.
    QSignalSpy notes(m_window->actions(), &FileActions::notify);
    m_window->actions()->createFolder(right->location(), kFolder);
    QVERIFY(waitFor([&] { return !notes.isEmpty(); }, 15000));
    QVERIFY2(!notes.last()[1].toBool(), qPrintable(notes.last()[0].toString()));
    QVERIFY(waitFor([&] { return rowNamed(right, kFolder).isValid(); }, 15000));
    drag(left, {QStringLiteral("to rename.bin")}, right, kFolder);
    QVERIFY(waitForJobs(4));
    QVERIFY2(lastJobOk(), qPrintable(lastJobProblem()));
    QVERIFY2(lastJobOptions() == options, qPrintable(optionsText(lastJobOptions())));
    const QString inside = childOf(folder, kFolder);
    expectOnServer(inside, QStringLiteral("to rename.bin"), renamed);

    // Rename, in the connection's folder.
    const auto entry = right->model()->entryAt(rowNamed(right, QStringLiteral("plain.bin")).row());
    QVERIFY(entry);
    notes.clear();
    m_window->actions()->renameEntry(right->location(), *entry, renameTo);
    QVERIFY(waitFor([&] { return !notes.isEmpty(); }, 15000));
    QVERIFY2(!notes.last()[1].toBool(), qPrintable(notes.last()[0].toString()));
    expectOnServer(folder, renameTo, plain);
    QVERIFY(!exists(*m_check, childOf(folder, QStringLiteral("plain.bin"))));
    QVERIFY(waitFor([&] { return rowNamed(right, renameTo).isValid(); }, 15000));
}

// sftp://user@127.0.0.1:PORT/upload/…?identity=KEY, as the dialog makes it from a key file.
void TestRemoteDrops::dropOntoSftpMadeWithAKeyFile()
{
    const QString dir = QStringLiteral("/upload/drops 50% #") + stamp();
    {
        auto base = Uri::parse(env("STRATA_SFTP_URI").toStdString());
        QVERIFY(base);
        base->setQuery({{"identity", env("STRATA_SFTP_KEY").toStdString()}});
        auto at = m_check->open(base->withPath(dir.toStdString()));
        QVERIFY2(at, at ? "" : at.error().message().c_str());
        const Status made = at->op->createDir(at->path, true);
        QVERIFY2(made, made ? "" : made.error().message().c_str());
    }
    const QString connection =
        savedConnection(QStringLiteral("sftp"),
                        QStringLiteral("sshHost=127.0.0.1;sshPort=%1;sshUser=%2;sshFolder=%3;sshKey=%4")
                            .arg(env("STRATA_SFTP_PORT"), env("STRATA_SFTP_USER"), dir, env("STRATA_SFTP_KEY")));
    QVERIFY2(connection.contains(QLatin1String("?identity=")), qPrintable(connection));
    dropEverything(connection);
    if (QTest::currentTestFailed())
        return;
    // On the server's disk, byte for byte (the chroot's root is the fixture's).
    QFile copy(env("STRATA_SFTP_ROOT") + dir + QLatin1Char('/') + kHostileCopy);
    QVERIFY2(copy.open(QIODevice::ReadOnly), qPrintable(copy.fileName()));
    QCOMPARE(copy.size(), qint64(4096));
}

// s3://BUCKET/PREFIX?endpoint=http://127.0.0.1:PORT&region=eu-west-3&profile=strata-drops,
// from the dialog, the keys in ~/.aws/credentials under that profile.
void TestRemoteDrops::dropOntoS3WithEndpointAndRegion()
{
    QVERIFY(QDir(m_home.path()).mkpath(QStringLiteral(".aws")));
    QFile credentials(m_home.filePath(QStringLiteral(".aws/credentials")));
    QVERIFY(credentials.open(QIODevice::WriteOnly));
    credentials.write(QStringLiteral("[strata-drops]\naws_access_key_id = %1\naws_secret_access_key = %2\n")
                          .arg(env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"))
                          .toUtf8());
    credentials.close();
    // s3rver reads x-amz-copy-source with decodeURI, which leaves %23 and %3F encoded: a
    // rename (a server-side copy) of a key with '#' or '?' finds nothing there, on s3rver only.
    const QString prefix = QStringLiteral("drops 50% é ") + stamp();
    const QString connection =
        savedConnection(QStringLiteral("s3"),
                        QStringLiteral("bucket=%1;prefix=%2;endpoint=%3;region=eu-west-3;profile=strata-drops")
                            .arg(env("STRATA_S3_BUCKET"), prefix, env("STRATA_S3_ENDPOINT")));
    QVERIFY2(connection.contains(QLatin1String("&region=eu-west-3")), qPrintable(connection));
    put(*m_check, childOf(connection, QStringLiteral(".keep")), "");
    dropEverything(connection, QStringLiteral("renamed 100% %41 é.bin"));
}

// webdav://127.0.0.1:PORT/open/…?timeout=20: the URL typed in the dialog carries the option.
void TestRemoteDrops::dropOntoWebDavWithOptions()
{
    const QString endpoint = env("STRATA_WEBDAV_ENDPOINT");
    const QString folder = QStringLiteral("/open/drops 50%25 %23") + stamp();
    const QString connection =
        savedConnection(QStringLiteral("webdav"), QStringLiteral("url=%1%2?timeout=20").arg(endpoint, folder));
    QVERIFY2(connection.endsWith(QLatin1String("?timeout=20")), qPrintable(connection));
    QVERIFY2(connection.contains(QLatin1String("drops%2050%25%20%23")), qPrintable(connection));
    put(*m_check, childOf(connection, QStringLiteral(".keep")), "");
    dropEverything(connection);
}

} // namespace strata

QTEST_MAIN(strata::TestRemoteDrops)
#include "test_remote_drops.moc"

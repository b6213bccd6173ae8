// The desktop app keeps secrets where it says (issue 12): a WebDAV and an S3 connection are
// added through the main window's connection dialog with known secrets, tested against the
// real servers (a wrong password first, then the right one) and saved. Then the settings
// (XDG_CONFIG_HOME), everything under XDG_DATA_HOME and STRATA_STATE_DIR but the secret
// store's file, every qDebug/qWarning line and every visible text of the dialog and the
// window hold none of the secrets (nor their URL-encoded or base64 forms); the secret store's
// file (STRATA_SECRETS=file) holds them, with mode 0600.
#include "tests/behavior/behavior_root.h"
#include "tests/gui/dialog_fields.h"
#include "tests/gui/gui_fixture.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"
#include "ui/connections/connection_dialog.h"
#include "ui/main_window.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMutex>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <QUrl>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

namespace strata {

using namespace gui_test;

namespace {

QMutex g_logMutex;
QStringList g_log; // every message Qt was given, as formatted

void keepMessage(QtMsgType, const QMessageLogContext &, const QString &message)
{
    QMutexLocker lock(&g_logMutex);
    g_log << message;
}

QString env(const char *name)
{
    return qEnvironmentVariable(name);
}

// What a person can read in a widget tree: labels, buttons, line edits as displayed
// (a password field shows dots), window titles, tool tips, the status bar.
QString visibleTexts(QWidget *root)
{
    QStringList out{root->windowTitle(), root->toolTip()};
    for (QWidget *w : root->findChildren<QWidget *>()) {
        out << w->toolTip() << w->windowTitle();
        if (auto *l = qobject_cast<QLabel *>(w))
            out << l->text();
        else if (auto *b = qobject_cast<QAbstractButton *>(w))
            out << b->text();
        else if (auto *e = qobject_cast<QLineEdit *>(w))
            out << e->displayText() << e->placeholderText();
        else if (auto *s = qobject_cast<QStatusBar *>(w))
            out << s->currentMessage();
    }
    return out.join(QLatin1Char('\n'));
}

} // namespace

class TestGuiSecrets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void secretsStayInTheSecretStore();

private:
    // Adds a connection through File > New Connection: fills it, tests it (a wrong secret
    // first when given), and saves it with OK.
    void addConnection(MainWindow &window, const QString &kind, const QList<QPair<QString, QString>> &fields,
                       const QString &secretField, const QString &wrong, const QString &right);
    void expectNoSecret(const QString &where, const QString &text);

    QStringList m_forms; // each secret as given, URL-encoded and in base64
    QString m_visible;   // texts the dialogs showed
};

void TestGuiSecrets::initTestCase()
{
    QVERIFY(env("STRATA_SECRETS") == QLatin1String("file"));
    // The folders of this test only (set by CTest): emptied, so only this run is searched.
    for (const char *name : {"XDG_CONFIG_HOME", "XDG_DATA_HOME", "STRATA_STATE_DIR"}) {
        const QString dir = env(name);
        QVERIFY2(dir.endsWith(QLatin1String(".security")), name);
        QDir(dir).removeRecursively();
        QVERIFY(QDir().mkpath(dir));
    }
    QApplication::setApplicationName(QStringLiteral("Strata"));
    QApplication::setOrganizationName(QStringLiteral("Strata"));
    loadEnvFile(env("STRATA_WEBDAV_ENVFILE").toStdString());
    loadEnvFile(env("STRATA_S3_ENVFILE").toStdString());
    if (env("STRATA_WEBDAV_ENDPOINT").isEmpty() || env("STRATA_S3_ENDPOINT").isEmpty())
        QFAIL("no servers: run through CTest (fixtures lighttpd and s3rver)");
    qInstallMessageHandler(keepMessage);
}

void TestGuiSecrets::expectNoSecret(const QString &where, const QString &text)
{
    for (const QString &form : m_forms) {
        const qsizetype at = text.indexOf(form);
        const qsizetype from = std::max<qsizetype>(0, at - 60);
        if (at >= 0) // what comes before the secret, never the secret itself
            QFAIL(qPrintable(QStringLiteral("a secret (%1…) leaked into %2, after: …%3")
                                 .arg(form.left(4), where, text.mid(from, at - from))));
    }
}

void TestGuiSecrets::addConnection(MainWindow &window, const QString &kind,
                                   const QList<QPair<QString, QString>> &fields, const QString &secretField,
                                   const QString &wrong, const QString &right)
{
    QAction *add = nullptr;
    for (QAction *a : window.findChildren<QAction *>())
        if (a->text().contains(QLatin1String("New Connection")))
            add = a;
    QVERIFY(add);
    add->trigger();
    ConnectionDialog *dialog = nullptr;
    QVERIFY(waitFor([&] { return (dialog = window.findChild<ConnectionDialog *>()) != nullptr; }));
    dialog->setKind(kind);
    for (const auto &[name, value] : fields)
        fill(*dialog, name, value);
    QPushButton *test = testButton(*dialog);
    QVERIFY(test);
    QSignalSpy done(dialog, &ConnectionDialog::testFinished);
    int expected = 0;
    if (!wrong.isEmpty()) {
        fill(*dialog, secretField, wrong);
        test->click();
        ++expected;
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), expected, 15000);
        QVERIFY2(!done.last()[0].toBool(), "a wrong secret passed the test: the secret is not what is checked");
        m_visible += visibleTexts(dialog) + QLatin1Char('\n');
    }
    fill(*dialog, secretField, right);
    test->click();
    ++expected;
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), expected, 15000);
    QVERIFY2(done.last()[0].toBool(), qPrintable(done.last()[1].toString()));
    m_visible += visibleTexts(dialog) + QLatin1Char('\n');
    for (const auto &args : done)
        m_visible += args[1].toString() + QLatin1Char('\n');
    auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    ok->click();
    QVERIFY(waitFor([&] { return window.findChild<ConnectionDialog *>() == nullptr; }));
}

void TestGuiSecrets::secretsStayInTheSecretStore()
{
    const QString davEndpoint = env("STRATA_WEBDAV_ENDPOINT"), user = env("STRATA_WEBDAV_USER");
    const QString password = env("STRATA_WEBDAV_PASSWORD");
    const QString wrongPassword = QStringLiteral("Gui+Wrong/Pass-5c2e91");
    // s3rver checks only the access key: any secret key passes, so this one is distinctive.
    const QString s3Secret = QStringLiteral("Gui/S3SecretKey+Hk42mWq/Zr7");
    // The environment must not help: the dialog's secrets are the ones used.
    qunsetenv("STRATA_WEBDAV_PASSWORD");
    qunsetenv("STRATA_WEBDAV_USER");
    qunsetenv("AWS_SECRET_ACCESS_KEY");
    qunsetenv("AWS_ACCESS_KEY_ID");
    for (const QString &s : {password, wrongPassword, s3Secret}) {
        m_forms << s << QString::fromLatin1(QUrl::toPercentEncoding(s)) << QString::fromLatin1(s.toUtf8().toBase64());
    }
    m_forms << QString::fromLatin1((user + QLatin1Char(':') + password).toUtf8().toBase64())
            << QString::fromLatin1((user + QLatin1Char(':') + wrongPassword).toUtf8().toBase64());
    m_forms.removeDuplicates();

    auto registry = makeRegistry();
    {
        MainWindow window(
            *registry, [] { return makeRegistry(); }, QueueOptions{});
        window.resize(1000, 700);
        window.show();
        addConnection(
            window, QStringLiteral("webdav"),
            {{QStringLiteral("url"), davEndpoint + QStringLiteral("/digest/")}, {QStringLiteral("user"), user}},
            QStringLiteral("password"), wrongPassword, password);
        if (QTest::currentTestFailed())
            return;
        addConnection(window, QStringLiteral("s3"),
                      {{QStringLiteral("bucket"), env("STRATA_S3_BUCKET")},
                       {QStringLiteral("endpoint"), env("STRATA_S3_ENDPOINT")},
                       {QStringLiteral("accessKey"), QStringLiteral("S3RVER")}},
                      QStringLiteral("secretKey"), QString(), s3Secret);
        if (QTest::currentTestFailed())
            return;
        // Saved: both secrets reach the store, and the panes open the connections.
        const QString store = env("XDG_DATA_HOME") + QStringLiteral("/Strata/Strata/secrets.json");
        QVERIFY(waitFor(
            [&] {
                QFile f(store);
                if (!f.open(QIODevice::ReadOnly))
                    return false;
                const QByteArray all = f.readAll();
                return all.contains(password.toUtf8()) && all.contains(s3Secret.toUtf8());
            },
            15000));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(store).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
        // The panes have loaded what was saved: the last connection shown, nothing loading.
        QVERIFY(waitFor(
            [&] {
                const auto panes = window.findChildren<BrowserPane *>();
                const bool s3Shown = std::any_of(panes.begin(), panes.end(), [](BrowserPane *p) {
                    return p->displayUri().startsWith(QStringLiteral("s3://"));
                });
                return s3Shown
                    && std::none_of(panes.begin(), panes.end(), [](BrowserPane *p) { return p->model()->loading(); });
            },
            15000));
        m_visible += visibleTexts(&window);
    }

    // Nowhere else.
    expectNoSecret(QStringLiteral("the dialogs' and the window's texts"), m_visible);
    {
        QMutexLocker lock(&g_logMutex);
        expectNoSecret(QStringLiteral("Qt's messages"), g_log.join(QLatin1Char('\n')));
    }
    int files = 0;
    bool settingsSeen = false;
    for (const char *name : {"XDG_CONFIG_HOME", "XDG_DATA_HOME", "STRATA_STATE_DIR"}) {
        QDirIterator it(env(name), QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.endsWith(QLatin1String("/Strata/Strata/secrets.json")))
                continue;
            QFile f(path);
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
            const QString text = QString::fromUtf8(f.readAll());
            if (path.endsWith(QLatin1String(".conf"))) {
                settingsSeen = true;
                QVERIFY2(text.contains(QLatin1String("digest")), qPrintable(path + QStringLiteral(": ") + text));
            }
            expectNoSecret(path, text);
            ++files;
        }
    }
    QVERIFY2(settingsSeen, "the profiles were not saved in a settings file under XDG_CONFIG_HOME");
    std::fprintf(stderr, "searched %d files, %lld messages, %lld characters of visible text\n", files,
                 qlonglong(g_log.size()), qlonglong(m_visible.size()));
}

} // namespace strata

QTEST_MAIN(strata::TestGuiSecrets)
#include "test_gui_secrets.moc"

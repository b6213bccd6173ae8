#include "ui/connections/connection_dialog.h"

#include "core/storage/uri.h"
#include "ui/common/entry_format.h"
#include "ui/common/io_pool.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace strata {

namespace {

QString text(const ConnectionDialog *d, const char *name)
{
    auto *edit = qobject_cast<QLineEdit *>(d->field(QLatin1String(name)));
    return edit ? edit->text().trimmed() : QString();
}

bool checked(const ConnectionDialog *d, const char *name)
{
    auto *box = qobject_cast<QCheckBox *>(d->field(QLatin1String(name)));
    return box && box->isChecked();
}

// Host names and address literals as the forms take them (a '[' is added for IPv6).
const QRegularExpression &hostCharacters()
{
    static const QRegularExpression chars(QStringLiteral("^[A-Za-z0-9_.:%-]+$"));
    return chars;
}

// The host as a form field shows it: an IPv6 literal without its brackets.
QString hostField(const Uri &uri)
{
    QString host = QString::fromStdString(uri.host());
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    return host;
}

// An http(s)://host[:port][/path] URL read as the backends read it (Uri, not QUrl: they
// disagree on '%' and '#'), or the sentence saying why it is not one.
Result<Uri> httpUrl(const QString &value, const QString &what)
{
    auto url = Uri::parse(value.toStdString());
    const QString host = url && url->hasAuthority() ? hostField(*url) : QString();
    if (!url || (url->scheme() != "http" && url->scheme() != "https") || !hostCharacters().match(host).hasMatch())
        return Error(
            ErrorKind::InvalidInput,
            ConnectionDialog::tr("%1 must be a URL like http://host:port or https://host").arg(what).toStdString());
    return url;
}

QString printed(const Uri &uri)
{
    return QString::fromStdString(uri.toString());
}

// A server's host and port fields: the host as a URI wants it ("[::1]" for an IPv6
// literal) and the port (0: the protocol's), or the sentence saying what is wrong.
struct Server {
    QString host;
    int port = 0;
    QString problem;
};
Server serverOf(const QString &host, const QString &port, const QString &hostProblem)
{
    if (host.isEmpty() || !hostCharacters().match(host).hasMatch())
        return {{}, 0, hostProblem};
    bool ok = true;
    const int number = port.isEmpty() ? 0 : port.toInt(&ok);
    if (!ok || number < 0 || number > 65535)
        return {{}, 0, ConnectionDialog::tr("The port is a number from 1 to 65535")};
    return {host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host, number, {}};
}

// "scheme://[user@]host[:port]/" from checked fields: the server a path and options are
// then set on, as values.
Result<Uri> serverUri(const char *scheme, const QString &user, const Server &server)
{
    std::string text = std::string(scheme) + "://";
    if (!user.isEmpty())
        text += percentEncode(user.toStdString()) + '@';
    text += server.host.toStdString();
    if (server.port > 0)
        text += ':' + std::to_string(server.port);
    return Uri::parse(text + '/');
}

// The user a URI names, as the form shows it (decoded).
QString userField(const Uri &uri)
{
    auto user = percentDecode(uri.userInfo(), Escapes::Lenient);
    return QString::fromStdString(user ? *user : uri.userInfo());
}

struct TestOutcome {
    bool ok = false;
    QString message;
};

} // namespace

ConnectionDialog::ConnectionDialog(RegistryMaker makeRegistry, QWidget *parent)
    : QDialog(parent), m_makeRegistry(std::move(makeRegistry)), m_id(ConnectionList::newId())
{
    setWindowTitle(tr("Connection"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QFormLayout;
    m_kind = new QComboBox(this);
    m_kind->addItems({tr("Local folder"), tr("Memory store"), tr("S3 object storage"), tr("WebDAV"),
                      tr("NBD disk image"), tr("SFTP (SSH)"), tr("FTP / FTPS")});
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("A name for the sidebar"));
    top->addRow(tr("&Kind:"), m_kind);
    top->addRow(tr("&Name:"), m_name);
    layout->addLayout(top);

    m_pages = new QStackedWidget(this);
    for (int i = 0; i <= Ftp; ++i) {
        auto *page = new QWidget(m_pages);
        auto *form = new QFormLayout(page);
        form->setContentsMargins(0, 0, 0, 0);
        m_pages->addWidget(page);
    }
    auto *folder = addLine(m_pages->widget(LocalFolder), QStringLiteral("path"), tr("&Folder:"), QDir::homePath());
    auto *browse = new QPushButton(tr("&Browse…"), m_pages->widget(LocalFolder));
    static_cast<QFormLayout *>(m_pages->widget(LocalFolder)->layout())->addRow(QString(), browse);
    connect(browse, &QPushButton::clicked, this, [this, folder] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder"), folder->text());
        if (!dir.isEmpty())
            folder->setText(dir);
    });
    addLine(m_pages->widget(MemoryStore), QStringLiteral("store"), tr("&Store:"), QStringLiteral("scratch"));
    addLine(m_pages->widget(S3), QStringLiteral("bucket"), tr("&Bucket:"), QStringLiteral("my-bucket"));
    addLine(m_pages->widget(S3), QStringLiteral("prefix"), tr("&Prefix:"), tr("optional, e.g. backups/2026"));
    addLine(m_pages->widget(S3), QStringLiteral("endpoint"), tr("&Endpoint:"),
            tr("http://127.0.0.1:9000 (empty: AWS)"));
    addLine(m_pages->widget(S3), QStringLiteral("region"), tr("&Region:"), QStringLiteral("us-east-1"));
    addLine(m_pages->widget(S3), QStringLiteral("profile"), tr("Pro&file:"), tr("optional, from ~/.aws/credentials"));
    addLine(m_pages->widget(S3), QStringLiteral("accessKey"), tr("&Access key:"), tr("empty: environment or ~/.aws"));
    addLine(m_pages->widget(S3), QStringLiteral("secretKey"), tr("&Secret key:"), QString())
        ->setEchoMode(QLineEdit::Password);
    // A request that moves no byte for this long fails (?timeout=); WebDAV's is an option of
    // its URL.
    const QString timeoutHint = tr("seconds without a byte before a request fails (empty: 30)");
    addLine(m_pages->widget(S3), QStringLiteral("s3Timeout"), tr("Time&out:"), timeoutHint);
    auto *anonymous = new QCheckBox(tr("Public bucket (no credentials)"), m_pages->widget(S3));
    anonymous->setObjectName(QStringLiteral("anonymous"));
    static_cast<QFormLayout *>(m_pages->widget(S3)->layout())->addRow(QString(), anonymous);
    connect(anonymous, &QCheckBox::toggled, this, &ConnectionDialog::validate);
    addLine(m_pages->widget(WebDav), QStringLiteral("url"), tr("&URL:"),
            QStringLiteral("https://cloud.example.com/remote.php/dav/files/me"));
    addLine(m_pages->widget(WebDav), QStringLiteral("user"), tr("&User:"), QString());
    addLine(m_pages->widget(WebDav), QStringLiteral("password"), tr("&Password:"), QString())
        ->setEchoMode(QLineEdit::Password);
    addLine(m_pages->widget(Nbd), QStringLiteral("host"), tr("&Host:"), QStringLiteral("127.0.0.1"));
    addLine(m_pages->widget(Nbd), QStringLiteral("port"), tr("&Port:"), QStringLiteral("10809"));
    addLine(m_pages->widget(Nbd), QStringLiteral("export"), tr("&Export:"), tr("optional"));
    addLine(m_pages->widget(Nbd), QStringLiteral("socket"), tr("Unix &socket:"), tr("instead of host and port"));
    addLine(m_pages->widget(Sftp), QStringLiteral("sshHost"), tr("&Host:"),
            tr("server.example.org, or a Host of ~/.ssh/config"));
    addLine(m_pages->widget(Sftp), QStringLiteral("sshPort"), tr("&Port:"), tr("22, or as ~/.ssh/config says"));
    addLine(m_pages->widget(Sftp), QStringLiteral("sshUser"), tr("&User:"), tr("empty: ~/.ssh/config or your login"));
    addLine(m_pages->widget(Sftp), QStringLiteral("sshFolder"), tr("&Folder:"), tr("empty: the login folder"));
    addLine(m_pages->widget(Sftp), QStringLiteral("sshKey"), tr("&Key file:"),
            tr("empty: ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa"));
    addLine(m_pages->widget(Sftp), QStringLiteral("sshPassword"), tr("Pass&word:"),
            tr("the password, or the key's passphrase"))
        ->setEchoMode(QLineEdit::Password);
    addLine(m_pages->widget(Sftp), QStringLiteral("sshTimeout"), tr("Time&out:"), timeoutHint);
    addLine(m_pages->widget(Ftp), QStringLiteral("ftpHost"), tr("&Host:"), QStringLiteral("ftp.example.org"));
    addLine(m_pages->widget(Ftp), QStringLiteral("ftpPort"), tr("&Port:"), QStringLiteral("21"));
    addLine(m_pages->widget(Ftp), QStringLiteral("ftpUser"), tr("&User:"), tr("empty: anonymous"));
    addLine(m_pages->widget(Ftp), QStringLiteral("ftpFolder"), tr("&Folder:"), tr("empty: the login folder"));
    addLine(m_pages->widget(Ftp), QStringLiteral("ftpPassword"), tr("Pass&word:"), tr("empty: ~/.netrc"))
        ->setEchoMode(QLineEdit::Password);
    auto *tls = new QCheckBox(tr("&Encrypt (FTPS, explicit TLS)"), m_pages->widget(Ftp));
    tls->setObjectName(QStringLiteral("ftpTls"));
    tls->setChecked(true);
    static_cast<QFormLayout *>(m_pages->widget(Ftp)->layout())->addRow(QString(), tls);
    connect(tls, &QCheckBox::toggled, this, &ConnectionDialog::validate);
    addLine(m_pages->widget(Ftp), QStringLiteral("ftpCa"), tr("&CA file:"), tr("optional: a PEM file to trust"));
    addLine(m_pages->widget(Ftp), QStringLiteral("ftpTimeout"), tr("Time&out:"), timeoutHint);
    layout->addWidget(m_pages);

    m_problem = new QLabel(this);
    m_problem->setStyleSheet(QStringLiteral("color: #8a1c12;"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    auto *testRow = new QHBoxLayout;
    m_test = new QPushButton(tr("&Test"), this);
    m_result = new QLabel(this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    testRow->addWidget(m_test);
    testRow->addWidget(m_result, 1);
    layout->addLayout(testRow);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);

    connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_pages->setCurrentIndex(index);
        validate();
    });
    connect(m_name, &QLineEdit::textEdited, this, [this] {
        m_nameEdited = true;
        validate();
    });
    connect(m_test, &QPushButton::clicked, this, &ConnectionDialog::runTest);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    setKind(S3);
    resize(520, sizeHint().height());
}

QLineEdit *ConnectionDialog::addLine(QWidget *page, const QString &name, const QString &label,
                                     const QString &placeholder)
{
    auto *edit = new QLineEdit(page);
    edit->setObjectName(name);
    edit->setPlaceholderText(placeholder);
    static_cast<QFormLayout *>(page->layout())->addRow(label, edit);
    connect(edit, &QLineEdit::textChanged, this, &ConnectionDialog::validate);
    return edit;
}

QWidget *ConnectionDialog::field(const QString &name) const
{
    return m_pages->findChild<QWidget *>(name);
}

void ConnectionDialog::setKind(Kind kind)
{
    m_kind->setCurrentIndex(kind);
    m_pages->setCurrentIndex(kind);
    validate();
}

ConnectionDialog::Built ConnectionDialog::build() const
{
    // A Timeout field, when filled: ?timeout=SECONDS, or what is wrong with it.
    const auto timeout = [this](const char *name, std::vector<Uri::QueryItem> &query) -> QString {
        const QString value = text(this, name);
        if (value.isEmpty())
            return {};
        bool ok = false;
        const int seconds = value.toInt(&ok);
        if (!ok || seconds < 1 || seconds > 3600)
            return tr("The timeout is a number of seconds from 1 to 3600");
        query.emplace_back("timeout", std::to_string(seconds));
        return {};
    };
    switch (Kind(m_kind->currentIndex())) {
    case LocalFolder: {
        QString path = text(this, "path");
        if (path.startsWith(QLatin1Char('~')))
            path = QDir::homePath() + path.mid(1);
        if (!QDir::isAbsolutePath(path))
            return {{}, tr("The folder must be an absolute path, like %1").arg(QDir::homePath())};
        return {QString::fromStdString(Uri::fromLocalPath(QDir::cleanPath(path).toStdString()).toString()), {}};
    }
    case MemoryStore: {
        const QString store = text(this, "store");
        if (!QRegularExpression(QStringLiteral("^[A-Za-z0-9._-]+$")).match(store).hasMatch())
            return {{}, tr("The store name may use letters, digits, '.', '_' and '-'")};
        Uri uri;
        uri.setScheme("memory");
        uri.setHost(store.toStdString());
        uri.setPath("/");
        return {printed(uri), {}};
    }
    case S3: {
        const QString bucket = text(this, "bucket");
        if (!QRegularExpression(QStringLiteral("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")).match(bucket).hasMatch())
            return {{}, tr("A bucket name has 3 to 63 lower-case letters, digits, '.' or '-'")};
        QString prefix = text(this, "prefix");
        while (prefix.startsWith(QLatin1Char('/')))
            prefix.remove(0, 1);
        Uri uri;
        uri.setScheme("s3");
        uri.setHost(bucket.toStdString());
        uri.setPath('/' + prefix.toStdString()); // as typed: '%' and '#' are part of it
        std::vector<Uri::QueryItem> query;
        if (const QString endpoint = text(this, "endpoint"); !endpoint.isEmpty()) {
            if (auto url = httpUrl(endpoint, tr("The endpoint")); !url)
                return {{}, QString::fromStdString(url.error().cause())};
            query.emplace_back("endpoint", endpoint.toStdString());
        }
        if (const QString region = text(this, "region"); !region.isEmpty()) {
            if (!QRegularExpression(QStringLiteral("^[a-z0-9-]+$")).match(region).hasMatch())
                return {{}, tr("A region looks like us-east-1")};
            query.emplace_back("region", region.toStdString());
        }
        if (const QString profile = text(this, "profile"); !profile.isEmpty()) {
            if (!QRegularExpression(QStringLiteral("^[A-Za-z0-9_.-]+$")).match(profile).hasMatch())
                return {{}, tr("A profile name uses letters, digits, '.', '_' and '-'")};
            query.emplace_back("profile", profile.toStdString());
        }
        if (const QString wrong = timeout("s3Timeout", query); !wrong.isEmpty())
            return {{}, wrong};
        if (checked(this, "anonymous"))
            query.emplace_back("anonymous", "1");
        else if (text(this, "accessKey").isEmpty() != text(this, "secretKey").isEmpty())
            return {
                {},
                tr("Give both the access key and the secret key, or neither (then the environment or ~/.aws is used)")};
        uri.setQuery(std::move(query));
        return {printed(uri), {}};
    }
    case WebDav: {
        auto url = httpUrl(text(this, "url"), tr("The URL"));
        if (!url)
            return {{}, QString::fromStdString(url.error().cause())};
        if (url->hasUserInfo())
            return {{}, tr("Put the user name in the User field, not in the URL")};
        url->setScheme(url->scheme() == "https" ? "webdavs" : "webdav");
        return {printed(*url), {}};
    }
    case Sftp: {
        const Server server = serverOf(text(this, "sshHost"), text(this, "sshPort"),
                                       tr("Give the server's host name or address, or a Host of ~/.ssh/config"));
        if (!server.problem.isEmpty())
            return {{}, server.problem};
        const QString user = text(this, "sshUser");
        if (user.contains(QLatin1Char('@')) || user.contains(QLatin1Char(':')) || user.contains(QLatin1Char('/')))
            return {{}, tr("A user name has no '@', ':' or '/'")};
        auto uri = serverUri("sftp", user, server);
        if (!uri)
            return {{}, tr("Give the server's host name or address, or a Host of ~/.ssh/config")};
        // Empty: the login folder; "~/x" and "x" below it; "/x" from the server's root.
        const QString folder = text(this, "sshFolder");
        QString path = QStringLiteral("/~");
        if (folder.startsWith(QLatin1Char('/')))
            path = folder;
        else if (folder.startsWith(QLatin1String("~/")))
            path = QStringLiteral("/") + folder;
        else if (!folder.isEmpty())
            path = QStringLiteral("/~/") + folder;
        uri->setPath(path.toStdString());
        std::vector<Uri::QueryItem> query;
        if (const QString key = text(this, "sshKey"); !key.isEmpty()) {
            if (!QDir::isAbsolutePath(QDir::fromNativeSeparators(key)) && !key.startsWith(QLatin1String("~/")))
                return {{}, tr("The key file is an absolute path (or starts with ~/)")};
            const QString file = key.startsWith(QLatin1String("~/")) ? QDir::homePath() + key.mid(1) : key;
            query.emplace_back("identity", file.toStdString());
        }
        if (const QString wrong = timeout("sshTimeout", query); !wrong.isEmpty())
            return {{}, wrong};
        if (!query.empty())
            uri->setQuery(std::move(query));
        return {printed(*uri), {}};
    }
    case Ftp: {
        const Server server =
            serverOf(text(this, "ftpHost"), text(this, "ftpPort"), tr("Give the server's host name or address"));
        if (!server.problem.isEmpty())
            return {{}, server.problem};
        const QString user = text(this, "ftpUser");
        if (user.contains(QLatin1Char(':')) || user.contains(QLatin1Char('/')))
            return {{}, tr("A user name has no ':' or '/'")};
        const bool tls = checked(this, "ftpTls");
        const QString ca = text(this, "ftpCa");
        if (!ca.isEmpty() && !tls)
            return {{}, tr("A CA file is for encrypted connections (FTPS)")};
        if (!ca.isEmpty() && !QDir::isAbsolutePath(ca) && !ca.startsWith(QLatin1String("~/")))
            return {{}, tr("The CA file is an absolute path (or starts with ~/)")};
        auto uri = serverUri(tls ? "ftps" : "ftp", user, server);
        if (!uri)
            return {{}, tr("Give the server's host name or address")};
        // The folder is below the login folder, as FTP URLs have it.
        QString folder = text(this, "ftpFolder");
        while (folder.startsWith(QLatin1Char('/')))
            folder.remove(0, 1);
        uri->setPath('/' + folder.toStdString());
        std::vector<Uri::QueryItem> query;
        if (!ca.isEmpty()) {
            const QString file = ca.startsWith(QLatin1String("~/")) ? QDir::homePath() + ca.mid(1) : ca;
            query.emplace_back("ca", file.toStdString());
        }
        if (const QString wrong = timeout("ftpTimeout", query); !wrong.isEmpty())
            return {{}, wrong};
        if (!query.empty())
            uri->setQuery(std::move(query));
        return {printed(*uri), {}};
    }
    case Nbd: {
        const QString exportName = text(this, "export");
        Uri uri;
        uri.setPath('/' + exportName.toStdString());
        if (const QString socket = text(this, "socket"); !socket.isEmpty()) {
            if (!QDir::isAbsolutePath(socket))
                return {{}, tr("The socket must be an absolute path")};
            uri.setScheme("nbd+unix");
            uri.setHost({});
            uri.setQuery({{"socket", socket.toStdString()}});
            return {printed(uri), {}};
        }
        const QString host = text(this, "host");
        if (host.isEmpty() || host.contains(QLatin1Char('/')))
            return {{}, tr("Give the server's host name or address, or a Unix socket")};
        bool ok = true;
        const int port = text(this, "port").isEmpty() ? 10809 : text(this, "port").toInt(&ok);
        if (!ok || port < 1 || port > 65535)
            return {{}, tr("The port is a number from 1 to 65535")};
        uri.setScheme("nbd");
        uri.setHost(
            (host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host).toStdString());
        uri.setPort(std::uint16_t(port));
        return {printed(uri), {}};
    }
    }
    return {{}, tr("Choose a kind of storage")};
}

void ConnectionDialog::validate()
{
    const Built built = build();
    QString problem = built.problem;
    if (problem.isEmpty() && m_name->text().trimmed().isEmpty() && m_nameEdited)
        problem = tr("Give the connection a name");
    if (!m_nameEdited && built.problem.isEmpty())
        m_name->setText(locationName(built.uri));
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    m_test->setEnabled(built.problem.isEmpty());
}

void ConnectionDialog::setProfile(const ConnectionProfile &profile)
{
    m_id = profile.id;
    m_name->setText(profile.name);
    m_nameEdited = true;
    auto uri = Uri::parse(profile.uri.toStdString());
    if (!uri)
        return;
    const QString scheme = QString::fromStdString(uri->scheme());
    auto set = [this](const char *name, const QString &value) {
        if (auto *edit = qobject_cast<QLineEdit *>(field(QLatin1String(name))))
            edit->setText(value);
    };
    auto option = [&uri](const char *key) {
        return QString::fromStdString(uri->queryValue(key).value_or(std::string()));
    };
    const QString path = QString::fromStdString(uri->path());
    if (scheme == QLatin1String("file")) {
        setKind(LocalFolder);
        set("path", path);
    } else if (scheme == QLatin1String("memory")) {
        setKind(MemoryStore);
        set("store", QString::fromStdString(uri->host()));
    } else if (scheme == QLatin1String("s3")) {
        setKind(S3);
        set("bucket", QString::fromStdString(uri->host()));
        set("prefix", path.mid(1));
        set("endpoint", option("endpoint"));
        set("region", option("region"));
        set("profile", option("profile"));
        set("s3Timeout", option("timeout"));
        set("accessKey", profile.user);
        if (auto *box = qobject_cast<QCheckBox *>(field(QStringLiteral("anonymous"))))
            box->setChecked(uri->queryValue("anonymous").has_value());
    } else if (scheme.startsWith(QLatin1String("webdav"))) {
        setKind(WebDav);
        Uri http = *uri;
        http.setScheme(scheme == QLatin1String("webdavs") ? "https" : "http");
        set("url", printed(http));
        set("user", profile.user);
    } else if (scheme == QLatin1String("sftp")) {
        setKind(Sftp);
        set("sshHost", hostField(*uri));
        set("sshPort", uri->port() ? QString::number(*uri->port()) : QString());
        set("sshUser", profile.user.isEmpty() ? userField(*uri) : profile.user);
        set("sshFolder",
            path == QLatin1String("/~")                 ? QString()
                : path.startsWith(QLatin1String("/~/")) ? path.mid(3)
                                                        : path);
        set("sshKey", option("identity"));
        set("sshTimeout", option("timeout"));
    } else if (scheme == QLatin1String("ftp") || scheme == QLatin1String("ftps")) {
        setKind(Ftp);
        set("ftpHost", hostField(*uri));
        set("ftpPort", uri->port() ? QString::number(*uri->port()) : QString());
        set("ftpUser", profile.user.isEmpty() ? userField(*uri) : profile.user);
        set("ftpFolder", path.mid(1));
        set("ftpCa", option("ca"));
        set("ftpTimeout", option("timeout"));
        if (auto *box = qobject_cast<QCheckBox *>(field(QStringLiteral("ftpTls"))))
            box->setChecked(scheme == QLatin1String("ftps"));
    } else if (scheme.startsWith(QLatin1String("nbd"))) {
        setKind(Nbd);
        set("host", hostField(*uri));
        set("port", uri->port() ? QString::number(*uri->port()) : QString());
        set("export", path.mid(1));
        set("socket", option("socket"));
    }
    validate();
}

ConnectionProfile ConnectionDialog::profile() const
{
    ConnectionProfile p;
    p.id = m_id;
    p.name = m_name->text().trimmed();
    p.uri = build().uri;
    const Kind kind = Kind(m_kind->currentIndex());
    p.user = kind == S3  ? text(this, "accessKey")
        : kind == WebDav ? text(this, "user")
        : kind == Sftp   ? text(this, "sshUser")
        : kind == Ftp    ? text(this, "ftpUser")
                         : QString();
    p.hasSecret = !secret().isEmpty();
    return p;
}

QString ConnectionDialog::secret() const
{
    switch (Kind(m_kind->currentIndex())) {
    case S3: return checked(this, "anonymous") ? QString() : text(this, "secretKey");
    case WebDav: return qobject_cast<QLineEdit *>(field(QStringLiteral("password")))->text();
    case Sftp: return text(this, "sshPassword");
    case Ftp: return text(this, "ftpPassword");
    default: return {};
    }
}

QString ConnectionDialog::testResult() const
{
    return m_result->text();
}

void ConnectionDialog::runTest()
{
    const Built built = build();
    if (!built.problem.isEmpty())
        return;
    const int generation = ++m_testGeneration;
    m_result->setText(tr("Connecting…"));
    ConnectionSecret secret{profile().user.toStdString(), this->secret().toStdString(), {}};
    // A registry of its own: a test leaves nothing behind in the app's connections.
    QtConcurrent::run(
        ioPool(),
        [registry = m_makeRegistry(), uri = built.uri.toStdString(), secret = std::move(secret)] {
            if (!secret.user.empty() || !secret.secret.empty())
                (void)registry->setSecret(uri, secret);
            auto location = registry->open(uri);
            if (!location)
                return TestOutcome{false, QString::fromStdString(location.error().message())};
            auto entry = location->op->stat(location->path);
            if (!entry)
                return TestOutcome{false, QString::fromStdString(entry.error().message())};
            QString what = entry->isDir() ? tr("a folder") : tr("an object of %L1 bytes").arg(entry->size);
            if (entry->isDir()) {
                ListOptions options;
                options.pageSize = 100;
                auto page = location->op->list(location->path, options);
                if (!page)
                    return TestOutcome{false, QString::fromStdString(page.error().message())};
                what = page->nextPageToken.empty()
                    ? tr("a folder of %n entry(s)", nullptr, int(page->entries.size()))
                    : tr("a folder of more than %n entry(s)", nullptr, int(page->entries.size()));
            }
            return TestOutcome{true, tr("Connected: %1 is %2.").arg(QString::fromStdString(location->display()), what)};
        })
        .then(this, [this, generation](const TestOutcome &outcome) {
            if (generation != m_testGeneration)
                return;
            m_result->setText((outcome.ok ? QStringLiteral("✔ ") : QStringLiteral("✘ ")) + outcome.message);
            m_result->setStyleSheet(outcome.ok ? QStringLiteral("color: #1d6b2a;") : QStringLiteral("color: #8a1c12;"));
            Q_EMIT testFinished(outcome.ok, outcome.message);
        });
}

} // namespace strata

#include "ui/common/entry_format.h"

#include "core/io/size_text.h"

#include "core/storage/uri.h"

#include <QApplication>
#include <QDateTime>
#include <QHash>
#include <QLocale>
#include <QMimeDatabase>
#include <QMutex>
#include <QStyle>

namespace strata {

namespace {

// By extensions (or whole name when there is none), cached: a sort by kind of a 100 000-row
// folder asks for every row's type. Any thread: a sort runs off the GUI thread.
QMimeType mimeOf(std::string_view entryName)
{
    static const QMimeDatabase db;
    static QHash<QString, QMimeType> cache;
    static QMutex lock;
    const QString name = QString::fromUtf8(entryName.data(), qsizetype(entryName.size()));
    const auto dot = name.indexOf(QLatin1Char('.'), 1); // from the first dot: ".tar.gz" is not ".gz"
    QString key = (dot > 0 ? name.mid(dot) : name).toLower();
    if (dot <= 0) {
        // A name with no extension is matched against whole-name globs ("makefile",
        // "readme*", "*~"), none with a digit in it: "k0000123" and "k0000124" are one key
        // ("k#"), so a folder of numbered names costs one lookup (each runs the database's
        // regular expressions), not one per name shown.
        QString shape;
        shape.reserve(key.size());
        for (const QChar c : key)
            if (c < QLatin1Char('0') || c > QLatin1Char('9'))
                shape += c;
            else if (shape.isEmpty() || shape.back() != QLatin1Char('#'))
                shape += QLatin1Char('#');
        key = std::move(shape);
    }
    const QMutexLocker locked(&lock);
    auto it = cache.constFind(key);
    if (it == cache.constEnd()) {
        // Names with no dot are keys of their own ("Makefile"): a folder of a million such
        // names would keep a million. The rows on screen stay cached between repaints.
        if (cache.size() >= 4096)
            cache.clear();
        it = cache.insert(key, db.mimeTypeForFile(name, QMimeDatabase::MatchExtension));
    }
    return *it;
}

} // namespace

QString sizeString(std::uint64_t bytes)
{
    return QString::fromStdString(formatSize(bytes)); // the command line's words too
}

QString formatRate(double bytesPerSecond)
{
    return bytesPerSecond > 0 ? sizeString(std::uint64_t(bytesPerSecond)) + QObject::tr("/s") : QString();
}

QString formatDuration(double seconds)
{
    const auto s = std::int64_t(seconds + 0.5);
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString formatTime(std::int64_t nsSinceEpoch)
{
    const auto t = QDateTime::fromMSecsSinceEpoch(nsSinceEpoch / 1000000);
    return QLocale().toString(t, QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString kindText(const Entry &entry)
{
    return kindText(entry.kind, entry.name);
}

QString kindText(EntryKind kind, std::string_view name)
{
    switch (kind) {
    case EntryKind::Directory: return QObject::tr("Folder");
    case EntryKind::Symlink: return QObject::tr("Link");
    case EntryKind::Other: return QObject::tr("Special file");
    case EntryKind::File: break;
    }
    const QMimeType mime = mimeOf(name);
    return mime.isDefault() ? QObject::tr("File") : mime.comment();
}

// Icons by MIME type from the desktop's theme, with the style's generic icons where the
// theme has none (or there is no theme, as on the offscreen platform).
QIcon iconFor(const Entry &entry)
{
    static QHash<QString, QIcon> cache;
    auto *style = QApplication::style();
    if (entry.isDir()) {
        static const QIcon folder = QIcon::fromTheme(QStringLiteral("folder"), style->standardIcon(QStyle::SP_DirIcon));
        return folder;
    }
    const QMimeType mime = mimeOf(entry.name);
    auto it = cache.constFind(mime.name());
    if (it != cache.constEnd())
        return *it;
    QIcon icon = QIcon::fromTheme(mime.iconName());
    if (icon.isNull())
        icon = QIcon::fromTheme(mime.genericIconName(), style->standardIcon(QStyle::SP_FileIcon));
    cache.insert(mime.name(), icon);
    return icon;
}

QString redactedUri(const QString &uri)
{
    auto parsed = Uri::parse(uri.toStdString());
    return parsed ? QString::fromStdString(parsed->redacted()) : QObject::tr("(an invalid URI)");
}

namespace {

// "host:port" of an endpoint URL given as an option (s3's ?endpoint=http://u:p@host:9000/x).
std::string endpointHost(const std::string &endpoint)
{
    auto parsed = Uri::parse(endpoint);
    if (!parsed || parsed->host().empty())
        return {};
    return parsed->port() ? parsed->host() + ':' + std::to_string(*parsed->port()) : parsed->host();
}

std::string authority(const Uri &uri)
{
    return uri.port() ? uri.host() + ':' + std::to_string(*uri.port()) : uri.host();
}

// "/a/b/" -> "a/b"
std::string trimSlashes(const std::string &path)
{
    const auto first = path.find_first_not_of('/');
    if (first == std::string::npos)
        return {};
    return path.substr(first, path.find_last_not_of('/') - first + 1);
}

} // namespace

QString locationName(const QString &text)
{
    auto uri = Uri::parse(text.toStdString());
    if (!uri)
        return QObject::tr("(an invalid URI)");
    const std::string &scheme = uri->scheme();
    const std::string path = trimSlashes(uri->path());
    const auto join = [](const std::string &what, const std::string &where) {
        return where.empty() ? QString::fromStdString(what)
                             : QObject::tr("%1 on %2").arg(QString::fromStdString(what), QString::fromStdString(where));
    };
    if (scheme == "file")
        return QString::fromStdString(uri->path());
    if (scheme == "memory")
        return QObject::tr("%1 (memory)")
            .arg(QString::fromStdString(path.empty() ? uri->host() : uri->host() + '/' + path));
    if (scheme == "s3") {
        const std::string where = endpointHost(uri->queryValue("endpoint").value_or(std::string()));
        const std::string what = path.empty() ? uri->host() : uri->host() + '/' + path;
        return where.empty() ? QObject::tr("%1 on S3").arg(QString::fromStdString(what)) : join(what, where);
    }
    if (scheme == "webdav" || scheme == "webdavs")
        return path.empty() ? QString::fromStdString(authority(*uri)) : join(path, authority(*uri));
    if (scheme == "sftp") {
        // As ssh users write it: me@server, and the folder ("~/x" below the login folder).
        const std::string where = (uri->hasUserInfo() ? uri->userInfo() + '@' : std::string()) + authority(*uri);
        if (path == "~" || path.empty())
            return QString::fromStdString(path.empty() ? where + ":/" : where);
        return join(path.starts_with("~/") ? path : '/' + path, where);
    }
    if (scheme == "ftp" || scheme == "ftps") {
        // "upload on me@server (FTPS)": the folder below the login folder.
        const std::string where = (uri->hasUserInfo() ? uri->userInfo() + '@' : std::string()) + authority(*uri)
            + (scheme == "ftps" ? " (FTPS)" : " (FTP)");
        return path.empty() ? QString::fromStdString(where) : join(path, where);
    }
    if (scheme.starts_with("nbd")) {
        std::string where = authority(*uri);
        if (auto socket = uri->queryValue("socket"))
            where = socket->substr(socket->rfind('/') + 1);
        if (!where.empty() || !path.empty())
            return path.empty() ? QString::fromStdString(where) : join(path, where);
    }
    return QString::fromStdString(uri->redacted());
}

QString literalText(const QString &text)
{
    return QString(text).replace(QLatin1Char('&'), QStringLiteral("&&"));
}

} // namespace strata

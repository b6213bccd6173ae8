#include "app/cli/cli_output.h"

#include <QDateTime>
#include <QTimeZone>

namespace strata::cli {

QString humanSize(std::uint64_t bytes)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 5) {
        value /= 1024;
        ++unit;
    }
    if (unit == 0)
        return QStringLiteral("%1 B").arg(bytes);
    return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 1 : 0).arg(QLatin1String(units[unit]));
}

QString shortTime(const std::optional<std::int64_t> &mtimeNs)
{
    if (!mtimeNs)
        return QString();
    return QDateTime::fromMSecsSinceEpoch(*mtimeNs / 1'000'000).toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString isoTime(std::int64_t mtimeNs)
{
    const auto dt = QDateTime::fromMSecsSinceEpoch(mtimeNs / 1'000'000, QTimeZone::utc());
    std::int64_t frac = mtimeNs % 1'000'000'000;
    if (frac < 0)
        frac += 1'000'000'000;
    return dt.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")) + QStringLiteral(".%1Z").arg(frac, 9, 10, QLatin1Char('0'));
}

QString modeString(const Entry &entry)
{
    QString s;
    switch (entry.kind) {
    case EntryKind::Directory: s += QLatin1Char('d'); break;
    case EntryKind::Symlink: s += QLatin1Char('l'); break;
    case EntryKind::Other: s += QLatin1Char('?'); break;
    case EntryKind::File: s += QLatin1Char('-'); break;
    }
    if (!entry.mode)
        return s + QStringLiteral("         "); // the storage has no permissions to show
    const std::uint32_t m = *entry.mode;
    const char *rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; ++i)
        s += (m & (0400u >> i)) ? QLatin1Char(rwx[i]) : QLatin1Char('-');
    return s;
}

QJsonObject toJson(const Entry &entry, const QString &uri)
{
    QJsonObject o;
    o[QStringLiteral("name")] = QString::fromStdString(entry.name);
    o[QStringLiteral("path")] = QString::fromStdString(entry.path);
    o[QStringLiteral("uri")] = uri;
    o[QStringLiteral("kind")] = QString::fromLatin1(toString(entry.kind).data(), qsizetype(toString(entry.kind).size()));
    o[QStringLiteral("size")] = qint64(entry.size);
    if (entry.allocated)
        o[QStringLiteral("allocated")] = qint64(*entry.allocated);
    if (entry.mtimeNs) {
        o[QStringLiteral("mtime")] = isoTime(*entry.mtimeNs);
        o[QStringLiteral("mtime_ns")] = qint64(*entry.mtimeNs);
    }
    if (entry.mode)
        o[QStringLiteral("mode")] = QStringLiteral("%1").arg(*entry.mode, 4, 8, QLatin1Char('0'));
    if (!entry.etag.empty())
        o[QStringLiteral("etag")] = QString::fromStdString(entry.etag);
    if (!entry.contentHash.empty())
        o[QStringLiteral("hash")] = QString::fromStdString(entry.contentHash);
    if (!entry.symlinkTarget.empty())
        o[QStringLiteral("target")] = QString::fromStdString(entry.symlinkTarget);
    return o;
}

std::optional<std::uint64_t> parseSize(const QString &text)
{
    QString t = text.trimmed().toUpper();
    if (t.endsWith(QLatin1String("IB")))
        t.chop(2);
    else if (t.endsWith(QLatin1Char('B')))
        t.chop(1);
    double scale = 1;
    if (!t.isEmpty()) {
        const QChar unit = t.back();
        const int power = QStringLiteral("KMGT").indexOf(unit);
        if (power >= 0) {
            scale = double(1ull << (10 * (power + 1)));
            t.chop(1);
        }
    }
    bool ok = false;
    const double value = t.toDouble(&ok);
    if (!ok || value < 0 || value * scale > 9.2e18)
        return std::nullopt;
    return std::uint64_t(value * scale);
}

void write(std::FILE *f, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    std::fwrite(utf8.constData(), 1, std::size_t(utf8.size()), f);
}

} // namespace strata::cli

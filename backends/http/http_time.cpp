#include "backends/http/http_time.h"

#include <QDateTime>
#include <QLocale>
#include <QTimeZone>

namespace strata::http {

std::optional<std::int64_t> parseTime(const std::string &value)
{
    const QString s = QString::fromStdString(value);
    QDateTime t = QDateTime::fromString(s, Qt::ISODateWithMs);
    if (!t.isValid()) {
        // HTTP dates: "Mon, 30 Nov 2026 06:41:12 GMT" (RFC 7231), always in English.
        t = QLocale::c().toDateTime(s, QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
        t.setTimeZone(QTimeZone::utc());
    }
    if (!t.isValid())
        return std::nullopt;
    return std::int64_t(t.toMSecsSinceEpoch()) * 1'000'000;
}

} // namespace strata::http

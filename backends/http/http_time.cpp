#include "backends/http/http_time.h"

#include <QDateTime>
#include <QLocale>
#include <QTimeZone>

#include <limits>

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
    // Nanoseconds in 64 bits reach years 1677 to 2262; QDateTime reads years up to 9999.
    constexpr std::int64_t kMaxMs = std::numeric_limits<std::int64_t>::max() / 1'000'000;
    const std::int64_t ms = t.toMSecsSinceEpoch();
    if (ms > kMaxMs || ms < -kMaxMs)
        return std::nullopt;
    return ms * 1'000'000;
}

} // namespace strata::http

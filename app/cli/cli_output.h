#pragma once

#include "core/storage/entry.h"

#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <cstdio>

namespace strata::cli {

// "1.5 MiB"
QString humanSize(std::uint64_t bytes);
// "2026-11-30 12:00" in local time, "" when unknown
QString shortTime(const std::optional<std::int64_t> &mtimeNs);
// RFC 3339 UTC with nanoseconds
QString isoTime(std::int64_t mtimeNs);
// "drwxr-xr-x" style
QString modeString(const Entry &entry);
// The stable JSON form of an entry (keys are part of the CLI's contract).
QJsonObject toJson(const Entry &entry, const QString &uri);
void write(std::FILE *f, const QString &text);
// "1048576", "64K", "1.5GiB", "50M" (K/M/G/T are powers of 1024, like --bwlimit in rclone)
std::optional<std::uint64_t> parseSize(const QString &text);

} // namespace strata::cli

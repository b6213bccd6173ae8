#pragma once

#include "core/storage/entry.h"

#include <QIcon>
#include <QString>

#include <cstdint>
#include <string_view>

namespace strata {

// How entries look in the desktop app: sizes in binary units, local times, kinds and
// icons from the file name's MIME type.
QString sizeString(std::uint64_t bytes);   // "4.0 KiB", "12 bytes"
QString formatRate(double bytesPerSecond); // "12.5 MiB/s"
QString formatDuration(double seconds);    // "1:05", "2:03:10"
QString formatTime(std::int64_t nsSinceEpoch);
QString kindText(const Entry &entry);
QString kindText(EntryKind kind, std::string_view name);
QIcon iconFor(const Entry &entry);
// A name as a button or menu shows it: '&' doubled, so "R&D" is not taken for a shortcut.
QString literalText(const QString &text);
// A URI as it may be shown: user info and secret-looking parameters hidden.
QString redactedUri(const QString &uri);
// A location as people name it, no options and no secrets: "photos on 127.0.0.1:9000"
// (S3 bucket and prefix on an endpoint, "on AWS" without one), "dav/team on host:8443"
// (WebDAV), "disk on nbd.sock" (NBD), "demo (memory)", a local path as itself.
QString locationName(const QString &uri);

} // namespace strata

#pragma once

#include "core/storage/entry.h"

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace strata::ftp {

// What one line of a server's directory listing says: the name as sent (data, never a path
// to follow) and the entry's facts. Parsed without I/O so that the fuzz target and the unit
// tests can give it anything a hostile server might send.
struct ListedName {
    std::string name;
    Entry entry;                      // name and path left empty: the caller joins them
    bool self = false;                // "." or "..", cdir/pdir: the folder itself or its parent
    std::optional<std::uint32_t> uid; // its owner's id, where MLSx says (UNIX.uid)
};

// One MLSD line or MLST fact line (RFC 3659): "type=file;size=6;modify=20261203222950;
// UNIX.mode=0644; name". Facts are case-insensitive, unknown ones ignored; nullopt for a
// line that is not one.
std::optional<ListedName> parseMlsxLine(std::string_view line);

// One line of a LIST answer in the Unix `ls -l` form ("-rw-r--r-- 1 u g 6 Dec  3 22:29
// name", "lrwxrwxrwx … name -> target") or the DOS/IIS form ("12-03-26  10:29PM  <DIR>
// name"). A year-less date is the latest such date not after `now` + one day, as `ls`
// shows it. nullopt for a line that is neither ("total 8", a banner).
std::optional<ListedName> parseListLine(std::string_view line, std::time_t now);

// "YYYYMMDDHHMMSS[.fff]" (UTC, MDTM and MLSx's modify fact): ns since the epoch.
std::optional<std::int64_t> parseFtpTime(std::string_view text);
// The same form for MFMT: "YYYYMMDDHHMMSS" of a time in ns (the seconds, rounded down).
std::string formatFtpTime(std::int64_t ns);

} // namespace strata::ftp

#pragma once

// A scan: everything below one folder with its sizes, as a walk found it, kept to be
// saved, reopened without walking again, and compared with a later scan (strata du
// --save / --compare, the Usage page).
#include "core/storage/entry.h"
#include "core/storage/operator.h"
#include "core/storage/result.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

// What an object store keeps, and bills, that no listing shows: the older versions of an
// object (summed per object) and a multipart upload begun and never finished.
enum class Kept : std::uint8_t { No, OldVersions, Upload };

struct ScanEntry {
    std::string path; // relative to the scan's root, '/'-separated
    EntryKind kind = EntryKind::File;
    std::uint64_t size = 0;      // apparent bytes (files)
    std::uint64_t allocated = 0; // bytes on disk, where known (else the size)
    std::int64_t mtimeNs = 0;
    Kept kept = Kept::No; // the object's older versions or unfinished upload, not the object
};

struct Scan {
    std::string root;         // where it was taken, as shown to the user (secrets redacted)
    std::int64_t takenNs = 0; // when (Unix time)
    std::vector<ScanEntry> entries;
};

// Saved as zstd-compressed JSON lines: a header line
//   {"format":"strata-scan","version":1,"root":…,"taken":…,"entries":N}
// then one line per entry, {"p":PATH,"k":"f|d|l|o","s":SIZE,"a":ALLOCATED,"t":MTIME_NS}
// (and "h":"v" for an object's older versions, "h":"u" for an unfinished upload)
// (a name that is not UTF-8 goes as "px", its bytes in hex). About 15 bytes per entry once
// compressed. The file appears whole or not at all (written beside it, then renamed).
Status saveScan(const Scan &scan, const std::string &file);
// Reads a saved scan (compressed, or its JSON lines as zstd -d leaves them). A file that is
// no scan, is damaged or is cut short fails with Corrupt and says which line.
Result<Scan> loadScan(const std::string &file);
// Whether the file starts like a saved scan (zstd data or the header line).
bool looksLikeScan(const std::string &file);

// The older versions (per object: their bytes, the newest one's time) and the unfinished
// uploads below root, where the storage keeps and lists them (Capability::Versions,
// Uploads), given to `sink` as entries relative to root. A storage that keeps neither, or
// a server that does not implement the listing, adds nothing; other failures are returned.
Status listKept(Operator &op, std::string_view root, const std::function<void(const ScanEntry &)> &sink,
                const std::stop_token &stop = {});

// Every stored version of the object at `path` (and its delete markers), newest first
// (Capability::Versions): strata stat --versions, the properties dialog.
Result<std::vector<StoredVersion>> objectVersions(Operator &op, const std::string &path);

// One entry whose size differs between two scans (kept versions and uploads are left out:
// the objects are compared). A folder's size is everything below it;
// below a folder that appeared or vanished, nothing more is listed.
struct ScanChange {
    enum class Kind : std::uint8_t { Grown, Shrunk, Appeared, Vanished };
    std::string path;
    EntryKind entryKind = EntryKind::File;
    Kind kind = Kind::Grown;
    std::uint64_t before = 0, after = 0; // bytes (0 where it did not exist)
    std::int64_t delta() const { return std::int64_t(after) - std::int64_t(before); }
};
std::string_view toString(ScanChange::Kind kind);

struct ScanComparison {
    std::vector<ScanChange> changes;     // largest change first (by magnitude), then by path
    std::uint64_t before = 0, after = 0; // the roots' totals
    std::uint64_t appeared = 0, vanished = 0, grown = 0, shrunk = 0;
};

// What changed from `before` to `after`: sizes are apparent (`apparent`) or on disk;
// `maxDepth` > 0 lists entries down to that many levels only (totals count everything).
ScanComparison compareScans(const Scan &before, const Scan &after, bool apparent, int maxDepth = -1);

} // namespace strata

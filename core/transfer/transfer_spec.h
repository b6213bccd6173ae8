#pragma once

#include "core/io/json.h"
#include "core/storage/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata {

// What to do when a destination object already exists.
enum class ExistingPolicy : std::uint8_t { Fail, Overwrite, Skip };

enum class TransferMode : std::uint8_t {
    Copy, // copy everything named
    Move, // copy, then remove each source once its copy is committed (and verified)
    Sync, // copy what is missing or differs (size, mtime); optionally delete extras
};

struct TransferOptions {
    TransferMode mode = TransferMode::Copy;
    bool recursive = false;
    ExistingPolicy existing = ExistingPolicy::Fail;
    bool verify = false;         // re-read the destination and compare checksums
    bool deleteExtra = false;    // sync: remove destination objects the source lacks
    bool dryRun = false;         // sync: report, change nothing
    bool compareContent = false; // sync: same size is compared by checksum, not by time
    int jobs = 0;                // files in flight; 0 picks a default for the backends
    // Ranges of one large object copied at once; 0: 4, or as many as a distant storage
    // wants (Backend::preferredStreams, with the file cut into that many parts).
    int partsInFlight = 0;
    std::uint64_t partSize = 32u << 20;         // large objects are split into parts this big
    std::uint32_t chunkSize = 1u << 20;         // one buffer: the unit of a read and a write
    std::uint64_t maxBytesInFlight = 64u << 20; // buffers in use at once, whatever the file count
    std::uint64_t bandwidthLimit = 0;           // bytes per second, 0 = unlimited
    int zstdLevel = 3;
    int zstdThreads = 0; // 0: one per core
    bool sync = false;   // durable (fsync) before each commit
    // Permission bits exactly as the source's (cp -p); else as cp gives them: the source's
    // bits masked by the umask, set-ID bits dropped; a replaced file keeps its own.
    bool preserveMode = false;
    // sync --delete into, mv from, and mv --overwrite into a local file system's root are
    // refused before anything is listed unless set (--no-preserve-root, as rm -r has it).
    bool allowLocalRoot = false;
    // Whether destination names that differ only in case are one name (FAT, exFAT, NTFS,
    // SMB, casefold folders; a WebDAV server on Windows). Unset: found out where the
    // destination is a local folder, else no. Sources whose names would collide are refused.
    std::optional<bool> destinationIgnoresCase;
};

// One transfer as the user asked for it: sources (URIs), a destination and options. It is
// what the journal stores, so a job can be rebuilt after a restart.
struct TransferSpec {
    std::vector<std::string> sources;
    std::string destination;
    TransferOptions options;
    // Set when resuming: whether the first run copied into the destination (a directory)
    // or to it as a new name; unset, the planner decides from what is there now.
    std::optional<bool> destinationIsDir;

    json::Object toJson() const;
    static Result<TransferSpec> fromJson(const json::Value &json);
    // Same sources, destination and kind of transfer: running it again resumes it.
    std::string identity() const;
};

} // namespace strata

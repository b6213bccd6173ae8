#pragma once

#include "core/storage/entry.h"
#include "core/storage/operator.h"
#include "core/storage/result.h"

#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

struct WalkOptions {
    bool follow = false;        // descend into symlinked directories; each directory once
    bool oneFileSystem = false; // do not descend into directories on another device
    // Shell globs: a name matching one is skipped with everything below it; a glob with
    // a '/' is matched against the path relative to the root instead of the name.
    std::vector<std::string> excludes;
    int maxDepth = -1;       // -1: no limit; 1: the root's children only
    bool stat = false;       // sizes and times of every entry (else only where free)
    bool totals = false;     // cumulative totals per directory in the summary
    bool paths = true;       // entries carry their paths (false: kinds and sizes only, cheaper)
    std::size_t threads = 0; // 0: a default that suits the storage
    std::size_t batchSize = 512;
};

// One entry found; path and name views live only during the sink call.
struct WalkEntry {
    std::string_view path; // relative to the walk's root, '/'-separated
    EntryKind kind = EntryKind::File;
    int depth = 1;               // 1 for the root's children
    std::uint64_t size = 0;      // bytes, when stat is on or the listing tells
    std::uint64_t allocated = 0; // bytes on disk, where known
    std::int64_t mtimeNs = 0;
};

struct WalkError {
    std::string path; // relative to the root ("" for the root)
    std::string message;
};

// Everything below one directory, that directory included in `allocated` where known.
struct DirTotals {
    std::string path; // relative to the root; "" is the root
    int depth = 0;
    std::uint64_t files = 0, dirs = 0, bytes = 0, allocated = 0;
};

struct WalkSummary {
    std::uint64_t files = 0, dirs = 0, symlinks = 0, others = 0;
    std::uint64_t bytes = 0;       // apparent size of the files, each inode once
    std::uint64_t allocated = 0;   // disk usage of files and directories, each inode once
    std::uint64_t hardLinks = 0;   // further names of an inode already counted
    std::uint64_t revisits = 0;    // directories reached again through a link (not walked twice)
    std::uint64_t mountPoints = 0; // directories on another device, not entered (--one-file-system)
    std::uint64_t excluded = 0;
    std::vector<WalkError> errors;      // per directory; the walk carried on
    std::vector<DirTotals> directories; // with options.totals: every directory, parents first
    bool cancelled = false;
};

// Receives found entries in batches, one call at a time (from the walker's threads).
using WalkSink = std::function<void(std::span<const WalkEntry>)>;

// Walks everything below `root` of `op` (the root itself is not reported). Local file
// systems are read by a pool of threads with getdents64 relative to directory
// descriptors; other storage lists many directories at once, or takes one flat listing
// where it has one. Memory stays bounded by the directories pending, not the entries.
// Fails only when the root cannot be read at all; later failures go into errors.
Result<WalkSummary> walkTree(Operator &op, std::string_view root, const WalkOptions &options, const WalkSink &sink,
                             std::stop_token stop = {});

// Whether a shell glob (*, ?, [...]) matches the whole of `text`.
bool globMatch(std::string_view glob, std::string_view text);

} // namespace strata

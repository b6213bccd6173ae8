#pragma once

// Two folders compared entry by entry, on any two storages: `strata diff` and the
// browser's Compare Folders. Files are the same when their sizes match and their times
// agree within a second (or, with `checksum`, when their contents hash alike); sync would
// copy exactly the files this calls different, newer or only in A.
#include "core/storage/entry.h"
#include "core/storage/operator.h"
#include "core/storage/result.h"
#include "core/walk/walker.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

struct FolderDifference {
    enum class Kind : std::uint8_t {
        OnlyA,       // nothing of that name in B (a folder: with everything below it)
        OnlyB,       // nothing of that name in A
        NewerA,      // same path, A's copy is newer (and differs in size or time)
        NewerB,      // B's is newer
        Different,   // differ in size or content, times say nothing
        KindDiffers, // a file on one side, a folder (or link) on the other
    };
    struct Side {
        EntryKind kind = EntryKind::File;
        std::uint64_t size = 0;
        std::int64_t mtimeNs = 0; // 0: not known
    };
    std::string path; // relative to the folders compared, '/'-separated
    Kind kind = Kind::Different;
    Side a, b; // a for OnlyB and b for OnlyA are empty
};
std::string_view toString(FolderDifference::Kind kind); // "only-a", "newer-b", …

struct FolderComparison {
    std::vector<FolderDifference> differences; // by path
    std::uint64_t same = 0;                    // files alike on both sides
    std::uint64_t filesA = 0, filesB = 0;      // files looked at on each side
    std::uint64_t hashed = 0;                  // pairs read through to compare (checksum)
    std::vector<WalkError> errorsA, errorsB;   // folders that could not be read; the rest was compared
    bool identical() const { return differences.empty() && errorsA.empty() && errorsB.empty(); }
};

struct FolderCompareOptions {
    bool checksum = false;             // files of equal size compared by content, not time
    std::vector<std::string> excludes; // as WalkOptions::excludes
    // Called now and then from the walking threads: entries found so far on both sides.
    std::function<void(std::uint64_t)> progress;
};

// Walks both folders (in parallel, each with the walker) and compares what they hold. Fails
// only when one of the folders cannot be read at all.
Result<FolderComparison> compareFolders(Operator &a, std::string_view rootA, Operator &b, std::string_view rootB,
                                        const FolderCompareOptions &options, const std::stop_token &stop = {});

} // namespace strata

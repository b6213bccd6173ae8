#pragma once

#include "core/storage/registry.h"
#include "core/transfer/transfer_progress.h"
#include "core/transfer/transfer_spec.h"

#include <functional>
#include <memory>
#include <stop_token>

namespace strata {

// One file to copy: where from, where to, and what the source looked like when listed.
struct FileTask {
    std::shared_ptr<Operator> srcOp;
    std::string srcPath;
    std::string dstPath;
    Entry source;
    bool fresh = false;     // it or its directory did not exist when planned: nothing to overwrite, no check needed
    bool newFolder = false; // its directory did not exist when planned: nothing of an earlier run is in it
};

// Everything a job will do, found before any byte moves.
struct TransferPlan {
    std::shared_ptr<Operator> dstOp;
    std::vector<std::string> dirs; // to create at the destination, parents first
    // Directories the copy makes, with the source's permission bits: given once their files
    // are in (a read-only folder must first take them).
    std::vector<std::pair<std::string, std::uint32_t>> dirModes;
    std::vector<FileTask> files;
    std::vector<std::pair<std::shared_ptr<Operator>, std::string>>
        sourceDirs;                    // move: removed once emptied, deepest first
    std::string dstRoot;               // the destination as named: extras are only ever below it
    std::vector<std::string> extras;   // sync --delete: destination paths the source lacks
    std::vector<std::string> warnings; // failed nothing (names a destination listing left out)
    std::vector<FileFailure> refused;  // sources that cannot be copied at all
    std::vector<SkippedItem> notCopied;
    std::uint64_t bytesTotal = 0;
    std::uint64_t unchanged = 0; // sync: files already up to date
    bool dstIsDir = false;       // sources went into the destination (not as it)
};

using PlanProgress = std::function<void(std::uint64_t files, std::uint64_t bytes)>;

// Expands the spec's sources (directories walked when recursive) into file tasks, with
// cp's naming rules: into DST when it is a directory (or several sources are given),
// else as DST. Names a listing returns that could climb out of the destination ("..",
// "/", NUL) are refused, never followed.

Result<TransferPlan> planTransfer(Registry &registry, const TransferSpec &spec, const std::stop_token &stop,
                                  const PlanProgress &found = {});

} // namespace strata

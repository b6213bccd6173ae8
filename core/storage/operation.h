#pragma once

#include <cstdint>
#include <string_view>

namespace strata {

// Every operation a Backend, a Writer or a Reader performs. Each passes through every
// layer (Layer::around), so a new operation added here is seen by logging, metrics,
// retries and the capability check, whose switches over this enum fail to compile
// (-Werror=switch) until they say what to do with it.
enum class Operation : std::uint8_t {
    Stat,
    List,
    Read,
    ReadQueue,
    ReadVersion,
    OpenWriter,
    Put,
    Remove,
    RemoveMany,
    CreateDir,
    Rename,
    SetPermissions,
    OpenReader,
    Copy,
    Extents,
    CopyRange,
    WillRead,
    DiscardPending,
    ListVersions,
    ListUploads,
    Details,
    ChangeDetails,
    // Through a Writer that Backend::write returned.
    WriterWrite,
    WriterWriteAt,
    WriterSetLength,
    WriterZero,
    WriterWriteQueue,
    WriterCommit,
    WriterAbort,
    WriterSuspend,
    // Through a Reader that Backend::openReader returned.
    ReaderRead,
    ReaderCopyRange,
    ReaderStat,
    Count_
};

inline constexpr std::size_t kOperationCount = std::size_t(Operation::Count_);

// "stat", "open-writer", "commit", ...: the names logs and metrics print.
std::string_view toString(Operation op);

} // namespace strata

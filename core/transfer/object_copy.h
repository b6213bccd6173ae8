#pragma once

#include "core/storage/registry.h"

#include <functional>

namespace strata {

struct ObjectCopyOptions {
    std::size_t chunkSize = 4u << 20;
    bool overwrite = true;
    bool sync = false;
    // Called after each chunk with bytes done and total; returning false cancels.
    std::function<bool(std::uint64_t done, std::uint64_t total)> progress;
};

struct ObjectCopyReport {
    std::uint64_t bytes = 0;        // size of the object
    std::uint64_t bytesMoved = 0;   // bytes that went through our buffers
    bool serverSide = false;        // done by the backend itself (copy_file_range, COPY…)
};

// Copies one object between any two locations. On one backend with server-side copy,
// the backend does it; otherwise chunks stream through a pooled buffer into a writer,
// skipping holes when the source maps extents and the destination writes at offsets.
// The destination appears complete or not at all.
Result<ObjectCopyReport> copyObject(const Location &src, const Location &dst, const ObjectCopyOptions &options = {});

} // namespace strata

#pragma once

#include "core/storage/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace strata {

struct ZstdOptions {
    int level = 3; // ZSTD_minCLevel() … ZSTD_maxCLevel(); 0 means zstd's default (3)
    int threads = 0; // 0 = number of cores (std::thread::hardware_concurrency), 1 = single-threaded
    std::size_t chunkSize = 1 << 20;
};

// Fills the span and returns how many bytes it put there; 0 means the input has ended.
using StreamRead = std::function<Result<std::size_t>(std::span<std::byte>)>;
// Takes all of the span or fails; the stream stops at the first failure.
using StreamWrite = std::function<Status(std::span<const std::byte>)>;

struct StreamTotals {
    std::uint64_t in = 0;  // bytes taken from read
    std::uint64_t out = 0; // bytes given to write
};

// Both directions hold two chunkSize buffers for the whole call, whatever the input size.
// Errors from read and write come back unchanged. On any error some output may already
// have been written: the caller discards it (a storage writer aborts instead of committing).

// Compresses everything `read` yields into one zstd frame with a content checksum.
// An out-of-range level, a negative thread count or a zero chunk size is InvalidInput.
Result<StreamTotals> zstdCompress(const StreamRead &read, const StreamWrite &write, const ZstdOptions &options = {});

// Decompresses one or more concatenated zstd frames (skippable frames are skipped).
// Damaged, truncated, empty or non-zstd input is Corrupt.
Result<StreamTotals> zstdDecompress(const StreamRead &read, const StreamWrite &write, std::size_t chunkSize = 1 << 20);

// Whether a name is a zstd file by its suffix (".zst", case-insensitive, with a
// non-empty stem: a bare ".zst" is a hidden file, not compressed data).
bool isZstdName(std::string_view name);

} // namespace strata

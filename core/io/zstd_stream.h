#pragma once

#include "core/storage/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace strata {

struct ZstdOptions {
    int level = 3;   // ZSTD_minCLevel() … ZSTD_maxCLevel(); 0 means zstd's default (3)
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

// Where the source is known to read as zeros (holes and zero extents of an image): `ahead`
// tells how many bytes from the reader's current position are zeros, `skip` moves the
// reader past them. The compressor neither reads nor compresses such runs: it ends the
// frame in progress and writes ready-made frames of zeros (a few dozen bytes per 16 MiB).
// Runs of zeros shorter than this are compressed like any data: a frame ends and starts
// around a run, which costs a few bytes and is only worth it for long runs.
inline constexpr std::uint64_t kZstdMinZeroRun = 1u << 20;

struct ZeroRuns {
    std::function<std::uint64_t()> ahead;
    std::function<void(std::uint64_t)> skip;
};

// Compresses everything `read` yields into zstd frames with content checksums: one frame,
// or with `zeros`, a frame per stretch of data and ready-made frames for the zero runs
// (any zstd decoder reads concatenated frames as one stream).
// An out-of-range level, a negative thread count or a zero chunk size is InvalidInput.
Result<StreamTotals> zstdCompress(const StreamRead &read, const StreamWrite &write, const ZstdOptions &options = {},
                                  const ZeroRuns *zeros = nullptr);

// Decompresses one or more concatenated zstd frames (skippable frames are skipped).
// Damaged, truncated, empty or non-zstd input is Corrupt.
Result<StreamTotals> zstdDecompress(const StreamRead &read, const StreamWrite &write, std::size_t chunkSize = 1 << 20);

// Whether a name is a zstd file by its suffix (".zst", case-insensitive, with a
// non-empty stem: a bare ".zst" is a hidden file, not compressed data).
bool isZstdName(std::string_view name);

} // namespace strata

#include "core/io/zstd_stream.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace strata {

namespace {

struct CCtxDeleter {
    void operator()(ZSTD_CCtx *cctx) const { ZSTD_freeCCtx(cctx); }
};
struct DCtxDeleter {
    void operator()(ZSTD_DCtx *dctx) const { ZSTD_freeDCtx(dctx); }
};
using CCtxPtr = std::unique_ptr<ZSTD_CCtx, CCtxDeleter>;
using DCtxPtr = std::unique_ptr<ZSTD_DCtx, DCtxDeleter>;

std::string zstdReason(std::size_t code)
{
    return std::string("; libzstd: ") + ZSTD_getErrorName(code);
}

Error compressError(std::size_t code)
{
    return Error(ErrorKind::Unexpected, "zstd compression failed" + zstdReason(code));
}

Error decompressError(std::size_t code)
{
    switch (ZSTD_getErrorCode(code)) {
    case ZSTD_error_memory_allocation:
        return Error(ErrorKind::Unexpected, "zstd ran out of memory while decompressing" + zstdReason(code));
    case ZSTD_error_frameParameter_windowTooLarge:
        // Not damage: a frame made with --long needs more memory than we allow per stream.
        return Error(ErrorKind::InvalidInput,
                     "the zstd data needs a decoding window over 128 MiB (was it made with zstd --long?)"
                         + zstdReason(code));
    case ZSTD_error_checksum_wrong:
        return Error(ErrorKind::Corrupt,
                     "the zstd checksum does not match, so the data changed after compression" + zstdReason(code));
    case ZSTD_error_prefix_unknown: return Error(ErrorKind::Corrupt, "this is not zstd data" + zstdReason(code));
    default: return Error(ErrorKind::Corrupt, "the zstd data is damaged" + zstdReason(code));
    }
}

// libzstd counts helper threads: 0 compresses on the calling thread, N ≥ 1 adds N workers.
int zstdWorkers(int threads)
{
    if (threads == 0)
        threads = int(std::max(1u, std::thread::hardware_concurrency()));
    if (threads <= 1)
        return 0;
    const ZSTD_bounds bounds = ZSTD_cParam_getBounds(ZSTD_c_nbWorkers);
    if (ZSTD_isError(bounds.error))
        return 0;
    return std::min(threads, bounds.upperBound);
}

std::unique_ptr<std::byte[]> chunkBuffer(std::size_t size)
{
    return std::make_unique_for_overwrite<std::byte[]>(size);
}

// Reads one chunk, refusing a callback that claims more than the buffer holds.
Result<std::size_t> readChunk(const StreamRead &read, std::span<std::byte> buffer)
{
    auto n = read(buffer);
    if (n && *n > buffer.size())
        return Error(ErrorKind::Unexpected, "the stream source reported more bytes than its buffer holds");
    return n;
}

// Collects output until the buffer is full, so the destination sees whole chunks (one
// request each on a remote backend) rather than every scrap libzstd hands back.
class ChunkSink {
public:
    ChunkSink(const StreamWrite &write, std::byte *buffer, std::size_t size, StreamTotals &totals)
        : m_write(write), m_totals(totals), m_out{buffer, size, 0}
    {
    }

    ZSTD_outBuffer *buffer() { return &m_out; }

    Status flush()
    {
        if (m_out.pos == 0)
            return {};
        auto status = m_write({static_cast<const std::byte *>(m_out.dst), m_out.pos});
        if (!status)
            return status;
        m_totals.out += m_out.pos;
        m_out.pos = 0;
        return {};
    }

    Status flushIfFull() { return m_out.pos == m_out.size ? flush() : Status(); }

private:
    const StreamWrite &m_write;
    StreamTotals &m_totals;
    ZSTD_outBuffer m_out;
};

// One zstd frame (with checksum) holding `size` zero bytes.
std::string zeroFrame(std::size_t size)
{
    std::vector<char> zeros(size);
    std::string frame(ZSTD_compressBound(size), '\0');
    CCtxPtr cctx(ZSTD_createCCtx());
    if (!cctx)
        return {};
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    const std::size_t n = ZSTD_compress2(cctx.get(), frame.data(), frame.size(), zeros.data(), zeros.size());
    if (ZSTD_isError(n))
        return {};
    frame.resize(n);
    return frame;
}

// Writes `length` zeros as zstd frames: made once per process for 16 MiB and 1 MiB,
// compressed on the spot for the last piece.
Status writeZeroFrames(const StreamWrite &write, std::uint64_t length, StreamTotals &totals)
{
    static const std::string big = zeroFrame(16u << 20);
    static const std::string small = zeroFrame(1u << 20);
    if (big.empty() || small.empty())
        return Error(ErrorKind::Unexpected, "zstd could not compress a run of zeros");
    auto put = [&](const std::string &frame) -> Status {
        auto st = write(std::as_bytes(std::span(frame)));
        if (st)
            totals.out += frame.size();
        return st;
    };
    for (; length >= (16u << 20); length -= 16u << 20)
        if (auto st = put(big); !st)
            return st;
    for (; length >= (1u << 20); length -= 1u << 20)
        if (auto st = put(small); !st)
            return st;
    if (length > 0) {
        const std::string rest = zeroFrame(std::size_t(length));
        if (rest.empty())
            return Error(ErrorKind::Unexpected, "zstd could not compress a run of zeros");
        return put(rest);
    }
    return {};
}

} // namespace

Result<StreamTotals> zstdCompress(const StreamRead &read, const StreamWrite &write, const ZstdOptions &options,
                                  const ZeroRuns *zeros)
{
    if (options.level < ZSTD_minCLevel() || options.level > ZSTD_maxCLevel())
        return Error(ErrorKind::InvalidInput,
                     "zstd compression level " + std::to_string(options.level) + " is outside "
                         + std::to_string(ZSTD_minCLevel()) + " to " + std::to_string(ZSTD_maxCLevel()));
    if (options.threads < 0)
        return Error(ErrorKind::InvalidInput, "the number of zstd threads cannot be negative");
    if (options.chunkSize == 0)
        return Error(ErrorKind::InvalidInput, "the zstd chunk size must be at least one byte");

    CCtxPtr cctx(ZSTD_createCCtx());
    if (!cctx)
        return Error(ErrorKind::Unexpected, "zstd could not allocate a compression context");
    // Without a checksum a flipped bit in a stored (incompressible) block decodes silently.
    for (auto [param, value] : {std::pair{ZSTD_c_compressionLevel, options.level}, std::pair{ZSTD_c_checksumFlag, 1}}) {
        if (const std::size_t rc = ZSTD_CCtx_setParameter(cctx.get(), param, value); ZSTD_isError(rc))
            return compressError(rc);
    }
    // A libzstd built without threads refuses workers; the frame is the same either way,
    // so it just compresses on this thread.
    if (const int workers = zstdWorkers(options.threads); workers > 0)
        ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers, workers);

    const std::size_t chunk = options.chunkSize;
    auto in = chunkBuffer(chunk);
    auto out = chunkBuffer(chunk);
    StreamTotals totals;
    ChunkSink sink(write, out.get(), chunk, totals);

    bool frameOpen = false; // data went into a frame that is not ended yet
    bool anyFrame = false;  // at least one frame was written (empty input still gets one)
    auto endFrame = [&]() -> Status {
        ZSTD_inBuffer none{nullptr, 0, 0};
        for (;;) {
            const std::size_t remaining = ZSTD_compressStream2(cctx.get(), sink.buffer(), &none, ZSTD_e_end);
            if (ZSTD_isError(remaining))
                return compressError(remaining);
            if (auto status = sink.flushIfFull(); !status)
                return status;
            if (remaining == 0)
                break;
        }
        frameOpen = false;
        anyFrame = true;
        return {};
    };
    for (;;) {
        if (zeros && zeros->ahead) {
            if (const std::uint64_t run = zeros->ahead(); run >= kZstdMinZeroRun) {
                if (frameOpen)
                    if (auto st = endFrame(); !st)
                        return std::move(st).error();
                // The ready-made frames go after what the sink holds, in order.
                if (auto st = sink.flush(); !st)
                    return std::move(st).error();
                if (auto st = writeZeroFrames(write, run, totals); !st)
                    return std::move(st).error();
                zeros->skip(run);
                totals.in += run;
                anyFrame = true;
                continue;
            }
        }
        auto n = readChunk(read, {in.get(), chunk});
        if (!n)
            return std::move(n).error();
        totals.in += *n;
        const bool last = *n == 0;
        if (last && !frameOpen && anyFrame)
            break; // everything is in ended frames already
        frameOpen = !last;
        ZSTD_inBuffer input{in.get(), *n, 0};
        for (;;) {
            const std::size_t remaining =
                ZSTD_compressStream2(cctx.get(), sink.buffer(), &input, last ? ZSTD_e_end : ZSTD_e_continue);
            if (ZSTD_isError(remaining))
                return compressError(remaining);
            if (auto status = sink.flushIfFull(); !status)
                return std::move(status).error();
            // With workers, e_continue may return before taking all input; e_end is done
            // only once libzstd has nothing left to flush.
            if (last ? remaining == 0 : input.pos == input.size)
                break;
        }
        if (last)
            break;
    }
    if (auto status = sink.flush(); !status)
        return std::move(status).error();
    return totals;
}

Result<StreamTotals> zstdDecompress(const StreamRead &read, const StreamWrite &write, std::size_t chunkSize)
{
    if (chunkSize == 0)
        return Error(ErrorKind::InvalidInput, "the zstd chunk size must be at least one byte");

    DCtxPtr dctx(ZSTD_createDCtx());
    if (!dctx)
        return Error(ErrorKind::Unexpected, "zstd could not allocate a decompression context");

    auto in = chunkBuffer(chunkSize);
    auto out = chunkBuffer(chunkSize);
    StreamTotals totals;
    ChunkSink sink(write, out.get(), chunkSize, totals);
    // libzstd returns 0 exactly when a frame has been decoded and flushed, so a non-zero
    // value when the input ends means it stopped mid-frame. It keeps a frame's last input
    // byte until all of its output is flushed, so "input consumed" implies "output drained".
    std::size_t pending = 0;

    for (;;) {
        auto n = readChunk(read, {in.get(), chunkSize});
        if (!n)
            return std::move(n).error();
        if (*n == 0)
            break;
        totals.in += *n;
        ZSTD_inBuffer input{in.get(), *n, 0};
        while (input.pos < input.size) {
            pending = ZSTD_decompressStream(dctx.get(), sink.buffer(), &input);
            if (ZSTD_isError(pending))
                return decompressError(pending);
            if (auto status = sink.flushIfFull(); !status)
                return std::move(status).error();
        }
    }
    if (totals.in == 0)
        return Error(ErrorKind::Corrupt, "the input is empty, and zstd data holds at least one frame");
    if (pending != 0)
        return Error(ErrorKind::Corrupt, "the zstd data ends in the middle of a frame: it was cut short");
    if (auto status = sink.flush(); !status)
        return std::move(status).error();
    return totals;
}

bool isZstdName(std::string_view name)
{
    constexpr std::string_view suffix = ".zst";
    if (name.size() <= suffix.size())
        return false;
    const std::string_view tail = name.substr(name.size() - suffix.size());
    const char before = name[name.size() - suffix.size() - 1];
    return before != '/' && std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) {
               return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b;
           });
}

} // namespace strata

// zstdDecompress, the path `strata cp x.zst …` takes, on any bytes fed in pieces whose
// sizes come from the input: it either decodes or fails with Corrupt, within bounded
// memory (libFuzzer's -rss_limit_mb and -malloc_limit_mb catch a decoder that does not).
// Input: 1 byte of piece size, 1 byte of chunk size, then the compressed stream.
#include "core/io/zstd_stream.h"
#include "tests/fuzz/fuzz_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

using namespace strata;

namespace {

// A decompression bomb is not a bug; decoding it to the end only wastes the run's time.
constexpr std::uint64_t kMaxOutput = 64u << 20;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 2)
        return 0;
    const std::size_t piece = data[0] == 0 ? SIZE_MAX : data[0];
    const std::size_t chunk = data[1] == 0 ? std::size_t(1) << 20 : std::size_t(data[1]) * 64;
    std::span<const std::uint8_t> input(data + 2, size - 2);

    std::uint64_t given = 0, written = 0;
    StreamRead read = [&](std::span<std::byte> into) -> Result<std::size_t> {
        const std::size_t n = std::min({into.size(), piece, input.size() - given});
        std::memcpy(into.data(), input.data() + given, n);
        given += n;
        return n;
    };
    StreamWrite write = [&](std::span<const std::byte> bytes) -> Status {
        FUZZ_CHECK(!bytes.empty());
        written += bytes.size();
        if (written > kMaxOutput)
            return Error(ErrorKind::Cancelled, "enough output");
        return {};
    };
    auto totals = zstdDecompress(read, write, chunk);
    if (totals) {
        FUZZ_CHECK(totals->in == input.size());
        FUZZ_CHECK(totals->out == written);
    } else {
        // InvalidInput: a frame asking for a window over 128 MiB (zstd --long), refused on purpose.
        const ErrorKind kind = totals.error().kind();
        FUZZ_CHECK(kind == ErrorKind::Corrupt || kind == ErrorKind::InvalidInput || kind == ErrorKind::Cancelled);
    }
    return 0;
}

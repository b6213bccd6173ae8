// coalesce() on any sorted, non-overlapping extent list (its precondition), with gaps,
// empty extents and runs of one kind: the output is sorted, non-overlapping, without
// empty extents or mergeable neighbours, and says the same thing about every byte.
#include "core/io/extent.h"
#include "tests/fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace strata;

namespace {

// Each extent from 5 input bytes: a gap before it (0..255, often 0), a length (0..65535,
// or a huge one), and a kind.
std::vector<Extent> extentsFrom(const std::uint8_t *data, std::size_t size)
{
    std::vector<Extent> out;
    std::uint64_t at = data[0] & 1 ? 0 : (std::uint64_t(1) << 62); // far offsets too
    for (std::size_t i = 1; i + 5 <= size; i += 5) {
        const std::uint64_t gap = data[i] & 0x80 ? 0 : data[i];
        std::uint64_t length = std::uint64_t(data[i + 1]) << 8 | data[i + 2];
        if (data[i + 3] == 0xff)
            length <<= 40;
        const auto kind = static_cast<ExtentKind>(data[i + 4] % 3);
        if (UINT64_MAX - at < gap + length)
            break; // an extent past 2^64 bytes is no extent
        at += gap;
        out.push_back({at, length, kind});
        at += length;
    }
    return out;
}

// The kind at a byte, or -1 where no extent says anything.
int kindAt(const std::vector<Extent> &extents, std::uint64_t offset)
{
    for (const Extent &e : extents)
        if (offset >= e.offset && offset - e.offset < e.length)
            return int(e.kind);
    return -1;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::vector<Extent> in = extentsFrom(data, size);
    const std::vector<Extent> out = coalesce(in);

    std::uint64_t inBytes = 0, outBytes = 0;
    for (const Extent &e : in)
        inBytes += e.length;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const Extent &e = out[i];
        FUZZ_CHECK(e.length > 0);
        outBytes += e.length;
        if (i > 0) {
            const Extent &prev = out[i - 1];
            FUZZ_CHECK(prev.end() <= e.offset);                        // sorted, no overlap
            FUZZ_CHECK(prev.end() != e.offset || prev.kind != e.kind); // nothing left to merge
        }
    }
    FUZZ_CHECK(inBytes == outBytes);
    // Every boundary of either list (and the bytes around it) reads the same in both.
    for (const auto *list : {&in, &out}) {
        for (const Extent &e : *list) {
            if (e.length == 0)
                continue;
            for (std::uint64_t at : {e.offset, e.offset + e.length / 2, e.end() - 1, e.end()})
                FUZZ_CHECK(kindAt(in, at) == kindAt(out, at));
            if (e.offset > 0)
                FUZZ_CHECK(kindAt(in, e.offset - 1) == kindAt(out, e.offset - 1));
        }
    }
    return 0;
}

#include "core/io/extent.h"

#include <cstring>

namespace strata {

std::string_view toString(ExtentKind kind)
{
    switch (kind) {
    case ExtentKind::Data: return "data";
    case ExtentKind::Zero: return "zero";
    case ExtentKind::Hole: return "hole";
    }
    return "data";
}

std::vector<Extent> coalesce(std::vector<Extent> extents)
{
    // In place: the result is never longer than what it is made of.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < extents.size(); ++i) {
        const Extent e = extents[i];
        if (e.length == 0)
            continue;
        if (kept > 0 && extents[kept - 1].kind == e.kind && extents[kept - 1].end() == e.offset)
            extents[kept - 1].length += e.length;
        else
            extents[kept++] = e;
    }
    extents.resize(kept);
    return extents;
}

bool isAllZero(const std::byte *data, std::size_t size)
{
    if (size == 0)
        return true;
    // First 16 bytes checked directly, then memcmp against itself shifted by 16: a
    // zero prefix and a self-match mean every byte is zero.
    std::size_t head = size < 16 ? size : 16;
    for (std::size_t i = 0; i < head; ++i)
        if (data[i] != std::byte{0})
            return false;
    return size <= 16 || std::memcmp(data, data + 16, size - 16) == 0;
}

} // namespace strata

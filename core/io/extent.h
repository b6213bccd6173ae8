#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace strata {

// Data is stored bytes; Zero reads as zeros but is allocated (or the backend does not
// know); Hole reads as zeros and occupies nothing.
enum class ExtentKind : std::uint8_t { Data, Zero, Hole };

std::string_view toString(ExtentKind kind);

struct Extent {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    ExtentKind kind = ExtentKind::Data;

    std::uint64_t end() const { return offset + length; }
    bool readsAsZero() const { return kind != ExtentKind::Data; }
    bool operator==(const Extent &) const = default;
};

// Merges adjacent extents of the same kind and drops empty ones; input must be sorted.
std::vector<Extent> coalesce(std::vector<Extent> extents);

// Whether a buffer is all zero bytes (fast path for sparse detection).
bool isAllZero(const std::byte *data, std::size_t size);

} // namespace strata

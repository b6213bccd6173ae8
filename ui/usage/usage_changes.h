#pragma once

// The changes treemap of the Usage page: its colours and the list's Change column.
#include <QRgb>

#include <cstdint>

namespace strata {

inline constexpr int kChangeColumn = 5;

inline constexpr QRgb kAppeared = qRgb(0xf5, 0xb0, 0x00);
inline constexpr QRgb kUnchanged = qRgb(0xc8, 0xc8, 0xc8);
inline constexpr QRgb kGrew = qRgb(0xdc, 0x28, 0x28);
inline constexpr QRgb kShrank = qRgb(0x28, 0x5a, 0xdc);

// Growth as a colour: grey when unchanged, redder as it grew (bluer as it shrank) in
// proportion to the change against the larger of the two sizes.
QRgb growthColor(std::uint64_t before, std::uint64_t after);

} // namespace strata

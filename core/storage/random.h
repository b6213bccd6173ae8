#pragma once

#include <cstdint>

namespace strata {

// 64 random bits from the kernel (getrandom): for temporary names, job ids and tokens that
// must not collide across threads and processes. No state, so no per-thread generator
// (a thread_local std::mt19937_64 is 2.5 KiB every new thread clears).
std::uint64_t randomU64();

} // namespace strata

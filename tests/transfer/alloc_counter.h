#pragma once

#include <cstdint>

namespace strata::test {

// This test binary replaces the global operator new/delete with counting versions.
// Every heap allocation made through them, on any thread, since the process started.
std::uint64_t allocationCount();
// Live bytes in big blocks (256 KiB and more: payload buffers, not bookkeeping), now and
// at their peak since the last resetBigPeak().
std::uint64_t bigLiveBytes();
std::uint64_t bigPeakBytes();
void resetBigPeak();

} // namespace strata::test

// The process's one time-to-first-byte probe (first_byte.h): linked into executables only,
// beside the allocation hooks, so that every copy of core reaches the same state.
#include "core/io/tick_clock.h"
#include "core/storage/first_byte.h"

namespace {
thread_local bool armed = false;
thread_local std::uint64_t noted = 0;
} // namespace

extern "C" {

void strata_first_byte_arm()
{
    armed = true;
    noted = 0;
}

void strata_first_byte_note()
{
    if (armed) {
        noted = strata::TickClock::instance().now();
        armed = false;
    }
}

std::uint64_t strata_first_byte_take()
{
    armed = false;
    return noted;
}

} // extern "C"

#include "core/storage/first_byte.h"

#include "core/io/tick_clock.h"

namespace strata::first_byte {

namespace {
thread_local bool armed = false;
thread_local std::uint64_t noted = 0;
} // namespace

void arm()
{
    armed = true;
    noted = 0;
}

void note()
{
    if (armed) {
        noted = TickClock::instance().now();
        armed = false;
    }
}

std::uint64_t take()
{
    armed = false;
    return noted;
}

} // namespace strata::first_byte

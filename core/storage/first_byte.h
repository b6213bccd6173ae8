#pragma once

// Time to first byte of reads, noted where the bytes arrive. A benchmark arms the probe on
// its thread before a read; a backend that receives a read's answer in pieces (libcurl's
// write callback) notes the first piece; the benchmark takes the time after. Backends
// that return a read in one piece (memory, files, NBD) note nothing: the read's return is
// its first byte.
//
// One probe per process, whichever copy of core calls it (strata-http.so carries its own
// core): its state lives in the executable (first_byte_hooks.cpp, linked with the
// allocation hooks into executables and tests) and is reached through these weak C
// symbols, exported by the strata executable (app/exported.map). Where they are absent
// (a module loaded elsewhere) nothing is noted.
#include <cstdint>

extern "C" {
__attribute__((weak)) void strata_first_byte_arm();
__attribute__((weak)) void strata_first_byte_note();
__attribute__((weak)) std::uint64_t strata_first_byte_take();
}

namespace strata::first_byte {

// Starts watching for the first byte of a read on this thread.
inline void arm()
{
    if (strata_first_byte_arm)
        strata_first_byte_arm();
}

// A backend: bytes of a read's answer arrived on this thread (only the first call after
// arm() counts; costs a thread-local check otherwise).
inline void note()
{
    if (strata_first_byte_note)
        strata_first_byte_note();
}

// TickClock ticks when the first byte was noted since arm() (disarming); 0 when none was.
inline std::uint64_t take()
{
    return strata_first_byte_take ? strata_first_byte_take() : 0;
}

} // namespace strata::first_byte

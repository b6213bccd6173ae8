#pragma once

// Time to first byte of reads, noted where the bytes arrive. A benchmark arms the probe on
// its thread before a read; a backend that receives a read's answer in pieces (libcurl's
// write callback) notes the first piece; the benchmark takes the time after. Backends
// that return a read in one piece (memory, files, NBD) note nothing: the read's return is
// its first byte.
#include <cstdint>

namespace strata::first_byte {

// Starts watching for the first byte of a read on this thread.
void arm();
// A backend: bytes of a read's answer arrived on this thread (only the first call after
// arm() counts; costs a thread-local check otherwise).
void note();
// TickClock ticks when the first byte was noted since arm() (disarming); 0 when none was.
std::uint64_t take();

} // namespace strata::first_byte

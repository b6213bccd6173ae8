#pragma once

#include <cstdint>

namespace strata {

// Every heap allocation of the process — C++ new and the C libraries' malloc, calloc,
// realloc and aligned allocations alike (curl, libnbd, zstd, Qt) — counted with
// thread-safe counters while counting is on. A binary that calls these functions gets
// the malloc family of alloc_counter.cpp, which forwards to glibc's __libc_* functions.
struct AllocCounts {
    std::uint64_t allocs = 0;
    std::uint64_t bytes = 0;
};

// Turns counting on or off (off costs one relaxed load per allocation).
void setAllocCounting(bool on);
AllocCounts allocCounts();
// False in a sanitizer build (STRATA_SANITIZED): the sanitizer owns malloc there, and the
// counts stay zero.
bool allocCountingAvailable();

} // namespace strata

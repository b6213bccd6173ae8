#pragma once

#include <cstddef>
#include <cstdint>

namespace strata {

// Every heap allocation of the process — C++ new and the C libraries' malloc, calloc,
// realloc and aligned allocations alike (curl, libnbd, zstd, Qt) — counted with
// thread-safe counters while counting is on. libstrata.so carries the malloc family of
// alloc_hooks.cpp, which counts and forwards to glibc's __libc_* functions: loaded with the
// executable, it comes before the C library in the order symbols are looked up.
struct AllocCounts {
    std::uint64_t allocs = 0;
    std::uint64_t bytes = 0;
};

// Turns counting on or off (off costs one relaxed load per allocation).
void setAllocCounting(bool on);
AllocCounts allocCounts();
// False in a sanitizer or fuzz build (the sanitizer owns malloc there: no alloc_hooks.cpp);
// the counts stay zero.
bool allocCountingAvailable();

namespace detail {
void countAllocation(std::size_t size); // for alloc_hooks.cpp
}

} // namespace strata

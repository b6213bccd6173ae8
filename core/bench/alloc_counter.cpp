#include "core/bench/alloc_counter.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include <execinfo.h>
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>

// glibc's own allocator entry points: the replacements below forward to them.
extern "C" {
void *__libc_malloc(std::size_t size);
void *__libc_calloc(std::size_t count, std::size_t size);
void *__libc_realloc(void *ptr, std::size_t size);
void *__libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void *ptr);
}

namespace {

std::atomic<bool> g_on{false};
std::atomic<std::uint64_t> g_allocs{0};
std::atomic<std::uint64_t> g_bytes{0};

// STRATA_ALLOC_TRACE=1: a backtrace on stderr for every counted allocation (to find
// where they come from; backtrace_symbols_fd does not allocate).
bool traceWanted()
{
    static const bool wanted = [] {
        const char *v = std::getenv("STRATA_ALLOC_TRACE");
        return v && *v && *v != '0';
    }();
    return wanted;
}

thread_local bool t_tracing = false;

inline void count(std::size_t size)
{
    if (g_on.load(std::memory_order_relaxed)) {
        g_allocs.fetch_add(1, std::memory_order_relaxed);
        g_bytes.fetch_add(size, std::memory_order_relaxed);
        if (!t_tracing && traceWanted()) {
            t_tracing = true;
            void *frames[24];
            const int n = ::backtrace(frames, 24);
            char line[64];
            const int len = std::snprintf(line, sizeof line, "--- allocation of %zu bytes\n", size);
            [[maybe_unused]] auto w = ::write(2, line, std::size_t(len));
            ::backtrace_symbols_fd(frames, n, 2);
            t_tracing = false;
        }
    }
}

} // namespace

namespace strata {

void setAllocCounting(bool on)
{
    g_on.store(on, std::memory_order_relaxed);
}

AllocCounts allocCounts()
{
    return {g_allocs.load(std::memory_order_relaxed), g_bytes.load(std::memory_order_relaxed)};
}

bool allocCountingAvailable()
{
#ifdef STRATA_SANITIZED
    return false;
#else
    return true;
#endif
}

} // namespace strata

#ifndef STRATA_SANITIZED
// The malloc family of the whole process (glibc supports replacing it: its own internal
// allocations and every shared library's go through these symbols).
extern "C" {

void *malloc(std::size_t size)
{
    count(size);
    return __libc_malloc(size);
}

void free(void *ptr)
{
    __libc_free(ptr);
}

void *calloc(std::size_t n, std::size_t size)
{
    count(n * size);
    return __libc_calloc(n, size);
}

void *realloc(void *ptr, std::size_t size)
{
    count(size);
    return __libc_realloc(ptr, size);
}

void *memalign(std::size_t alignment, std::size_t size)
{
    count(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(std::size_t alignment, std::size_t size)
{
    count(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, std::size_t alignment, std::size_t size)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    count(size);
    void *p = __libc_memalign(alignment, size);
    if (!p && size)
        return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(std::size_t size)
{
    count(size);
    return __libc_memalign(4096, size);
}

void *pvalloc(std::size_t size)
{
    count(size);
    return __libc_memalign(4096, (size + 4095) & ~std::size_t(4095));
}

} // extern "C"
#endif // STRATA_SANITIZED

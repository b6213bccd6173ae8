#include "core/bench/alloc_counter.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <execinfo.h>
#include <unistd.h>

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

// Initial-exec: reached from malloc, which a general-dynamic access could call back.
[[gnu::tls_model("initial-exec")]] thread_local bool t_tracing = false;

} // namespace

namespace strata::detail {

void countAllocation(std::size_t size)
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

} // namespace strata::detail

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
#ifdef STRATA_ALLOC_HOOKS
    return true;
#else
    return false;
#endif
}

} // namespace strata

#include "tests/transfer/alloc_counter.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <malloc.h>
#include <mutex>
#include <new>

namespace strata::test {

namespace {

constexpr std::size_t kBig = 256 * 1024;

std::atomic<std::uint64_t> g_count{0};
std::atomic<std::uint64_t> g_bigLive{0};
std::atomic<std::uint64_t> g_bigPeak{0};

// The big blocks alive and the bytes asked for each: what counts is what the code asked for,
// not what malloc_usable_size says (a 4 MiB buffer aligned to 2 MiB for huge pages can
// have 6 MiB usable, or 4, depending on the allocator's history). Few at a time: a small
// table, no allocation (it lives inside operator new).
struct BigBlock {
    void *p = nullptr;
    std::size_t size = 0;
};
std::mutex g_bigMutex;
std::array<BigBlock, 4096> g_big;

void remember(void *p, std::size_t size)
{
    std::lock_guard lock(g_bigMutex);
    for (auto &b : g_big)
        if (!b.p) {
            b = {p, size};
            return;
        }
    std::abort(); // more big blocks alive than any test here makes
}

std::size_t forget(void *p)
{
    std::lock_guard lock(g_bigMutex);
    for (auto &b : g_big)
        if (b.p == p) {
            const std::size_t size = b.size;
            b = {};
            return size;
        }
    return 0;
}

void *counted(void *p, std::size_t size)
{
    if (!p)
        return nullptr;
    g_count.fetch_add(1, std::memory_order_relaxed);
    if (size >= kBig) {
        remember(p, size);
        const auto live = g_bigLive.fetch_add(size, std::memory_order_relaxed) + size;
        auto peak = g_bigPeak.load(std::memory_order_relaxed);
        while (peak < live && !g_bigPeak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {}
    }
    return p;
}

void *allocate(std::size_t size, std::size_t alignment)
{
    void *p = nullptr;
    if (alignment <= alignof(std::max_align_t))
        p = std::malloc(size ? size : 1);
    else if (::posix_memalign(&p, alignment, size ? size : 1) != 0)
        p = nullptr;
    return counted(p, size);
}

void release(void *p) noexcept
{
    if (!p)
        return;
    if (::malloc_usable_size(p) >= kBig)
        g_bigLive.fetch_sub(forget(p), std::memory_order_relaxed);
    std::free(p);
}

void *allocateOrThrow(std::size_t size, std::size_t alignment)
{
    void *p = allocate(size, alignment);
    if (!p)
        throw std::bad_alloc();
    return p;
}

} // namespace

std::uint64_t allocationCount()
{
    return g_count.load();
}

std::uint64_t bigLiveBytes()
{
    return g_bigLive.load();
}

std::uint64_t bigPeakBytes()
{
    return g_bigPeak.load();
}

void resetBigPeak()
{
    g_bigPeak = g_bigLive.load();
}

} // namespace strata::test

using strata::test::allocate;
using strata::test::allocateOrThrow;
using strata::test::release;

void *operator new(std::size_t size)
{
    return allocateOrThrow(size, 0);
}
void *operator new[](std::size_t size)
{
    return allocateOrThrow(size, 0);
}
void *operator new(std::size_t size, std::align_val_t al)
{
    return allocateOrThrow(size, std::size_t(al));
}
void *operator new[](std::size_t size, std::align_val_t al)
{
    return allocateOrThrow(size, std::size_t(al));
}
void *operator new(std::size_t size, const std::nothrow_t &) noexcept
{
    return allocate(size, 0);
}
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept
{
    return allocate(size, 0);
}
void *operator new(std::size_t size, std::align_val_t al, const std::nothrow_t &) noexcept
{
    return allocate(size, std::size_t(al));
}
void *operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t &) noexcept
{
    return allocate(size, std::size_t(al));
}
void operator delete(void *p) noexcept
{
    release(p);
}
void operator delete[](void *p) noexcept
{
    release(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    release(p);
}
void operator delete[](void *p, std::size_t) noexcept
{
    release(p);
}
void operator delete(void *p, std::align_val_t) noexcept
{
    release(p);
}
void operator delete[](void *p, std::align_val_t) noexcept
{
    release(p);
}
void operator delete(void *p, std::size_t, std::align_val_t) noexcept
{
    release(p);
}
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept
{
    release(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept
{
    release(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept
{
    release(p);
}
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept
{
    release(p);
}
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept
{
    release(p);
}

// libcurl 7.88 allocates its receive buffer (Curl_preconnect: CURLOPT_BUFFERSIZE + 1 bytes)
// and its upload buffer (Curl_get_upload_buffer: CURLOPT_UPLOAD_BUFFERSIZE bytes) for every
// transfer and frees both when the transfer ends (multi_done): ~80 KiB of malloc/free per
// request, most of the bytes a small S3 request costs. curl 8 keeps such buffers in its
// multi handle for the next transfer; this allocator does the same for 7.x.
//
// Honest accounting, narrowly: only mallocs of exactly those two sizes are served from a
// bounded set of slots. A slot's buffer is obtained from malloc the first time it is used
// (so it is counted then, like any allocation) and, once curl frees it, kept for the next
// transfer instead of being returned to glibc. Every other allocation of libcurl, of any
// size, goes straight to malloc/calloc/realloc/strdup and is counted as usual. When every
// slot is busy (more concurrent transfers than slots), the buffer is an ordinary malloc.
// At most kSlots buffers of each size are kept (16 × (16 KiB + 64 KiB) ≈ 1.3 MiB, reached
// only after 16 transfers ran at once), for the process's lifetime. Large bodies use larger
// buffers (http_client.cpp: fewer, larger socket reads and writes); those sizes are a class
// of their own with fewer slots (8 × (512 KiB + 1 MiB) = 12 MiB at most).
#include "backends/http/curl_buffers.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <span>

namespace strata::http {

namespace {

constexpr int kSlots = 16;
constexpr int kLargeSlots = 8;

struct Slot {
    std::atomic<void *> buffer{nullptr}; // set once by the slot's first holder, never changed after
    std::atomic<bool> busy{false};
};

struct SizeClass {
    std::size_t size = 0;
    int count = kSlots; // slots in use of `slots`
    Slot slots[kSlots];
};

SizeClass g_classes[4];

void *takeSlot(SizeClass &c)
{
    for (Slot &slot : std::span(c.slots, std::size_t(c.count))) {
        bool expected = false;
        if (!slot.busy.compare_exchange_strong(expected, true, std::memory_order_acquire))
            continue;
        void *p = slot.buffer.load(std::memory_order_relaxed);
        if (!p) {
            p = std::malloc(c.size); // counted: the slot's one real allocation
            if (!p) {
                slot.busy.store(false, std::memory_order_release);
                return nullptr;
            }
            slot.buffer.store(p, std::memory_order_release);
        }
        return p;
    }
    return std::malloc(c.size); // every slot busy: an ordinary allocation
}

// The slot holding p, if p is a kept buffer (a kept buffer is never freed, so no other
// live allocation can have its address).
Slot *slotOf(void *p, std::size_t *size = nullptr)
{
    for (SizeClass &c : g_classes) {
        for (Slot &slot : std::span(c.slots, std::size_t(c.count))) {
            if (slot.buffer.load(std::memory_order_acquire) == p) {
                if (size)
                    *size = c.size;
                return &slot;
            }
        }
    }
    return nullptr;
}

void *curlMalloc(std::size_t size)
{
    for (SizeClass &c : g_classes)
        if (size == c.size)
            return takeSlot(c);
    return std::malloc(size);
}

void curlFree(void *p)
{
    if (!p)
        return; // most of curl's frees (Curl_safefree of unset fields)
    if (Slot *slot = slotOf(p))
        slot->busy.store(false, std::memory_order_release);
    else
        std::free(p);
}

void *curlRealloc(void *p, std::size_t size)
{
    std::size_t had = 0;
    Slot *slot = p ? slotOf(p, &had) : nullptr;
    if (!slot)
        return std::realloc(p, size);
    // curl never resizes these buffers; if it ever did, it gets a copy it owns.
    void *copy = std::malloc(size);
    if (copy) {
        std::memcpy(copy, p, std::min(had, size));
        slot->busy.store(false, std::memory_order_release);
    }
    return copy;
}

char *curlStrdup(const char *s)
{
    return ::strdup(s);
}

void *curlCalloc(std::size_t n, std::size_t size)
{
    return std::calloc(n, size);
}

} // namespace

int initCurlRecyclingBuffers(const CurlBufferSizes &small, const CurlBufferSizes &large)
{
    g_classes[0].size = small.receive + 1; // curl asks for one byte more (a terminating zero)
    g_classes[1].size = small.upload;
    g_classes[2].size = large.receive + 1;
    g_classes[3].size = large.upload;
    g_classes[2].count = g_classes[3].count = kLargeSlots;
    return curl_global_init_mem(CURL_GLOBAL_DEFAULT, curlMalloc, curlFree, curlRealloc, curlStrdup, curlCalloc);
}

} // namespace strata::http

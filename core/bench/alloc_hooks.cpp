// The malloc family of the whole process, counting for alloc_counter.cpp. In libstrata.so,
// which the executable (and every test) links, so these come before the C library's in the
// order symbols are looked up; not built where a sanitizer owns malloc (core/CMakeLists.txt).
#include "core/bench/alloc_counter.h"

#include <cerrno>
#include <cstddef>

// glibc's own allocator entry points: the replacements below forward to them.
// NOLINTBEGIN(bugprone-reserved-identifier): glibc's names, declared to call them
extern "C" {
void *__libc_malloc(std::size_t size);
void *__libc_calloc(std::size_t count, std::size_t size);
void *__libc_realloc(void *ptr, std::size_t size);
void *__libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void *ptr);
}
// NOLINTEND(bugprone-reserved-identifier)

// glibc supports replacing these: its own internal allocations and every shared library's
// go through them.
extern "C" {

void *malloc(std::size_t size)
{
    strata::detail::countAllocation(size);
    return __libc_malloc(size);
}

void free(void *ptr)
{
    __libc_free(ptr);
}

void *calloc(std::size_t n, std::size_t size)
{
    strata::detail::countAllocation(n * size);
    return __libc_calloc(n, size);
}

void *realloc(void *ptr, std::size_t size)
{
    strata::detail::countAllocation(size);
    return __libc_realloc(ptr, size);
}

void *memalign(std::size_t alignment, std::size_t size)
{
    strata::detail::countAllocation(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(std::size_t alignment, std::size_t size)
{
    strata::detail::countAllocation(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, std::size_t alignment, std::size_t size)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    strata::detail::countAllocation(size);
    void *p = __libc_memalign(alignment, size);
    if (!p && size)
        return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(std::size_t size)
{
    strata::detail::countAllocation(size);
    return __libc_memalign(4096, size);
}

void *pvalloc(std::size_t size)
{
    strata::detail::countAllocation(size);
    return __libc_memalign(4096, (size + 4095) & ~std::size_t(4095));
}

} // extern "C"

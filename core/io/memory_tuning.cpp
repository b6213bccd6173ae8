#include "core/io/memory_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace strata {

void keepFreedMemory()
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // A transfer allocates and frees megabytes per buffer inside its libraries (an SSH
    // library copies each SFTP write into packets, freed as the server acknowledges them).
    // With glibc's default trim threshold (128 KiB) each free gave the pages back and the
    // next buffer faulted them in again, zeroed (measured: tests/perf/NOTES.md, 2026-12-04).
    // Large blocks stay on the heap too (setting one threshold stops glibc adjusting the other itself): a
    // million-row folder's row vectors (8 MB) are made and freed by each merge and sort,
    // and each fresh mmap faults its pages in again, on the GUI thread.
    ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
    ::mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

} // namespace strata

// The process's one retry listener (retry_note.h): linked into executables only, beside the
// allocation hooks, so that every copy of core reaches the same one.
#include "core/storage/retry_note.h"

#include <mutex>

namespace {
std::mutex listenerMutex;
void (*listener)(void *, const char *) = nullptr;
void *listenerContext = nullptr;
} // namespace

extern "C" {

void strata_retry_listen(void (*heard)(void *context, const char *text), void *context)
{
    std::lock_guard lock(listenerMutex);
    listener = heard;
    listenerContext = context;
}

void strata_retry_note(const char *text)
{
    std::lock_guard lock(listenerMutex);
    if (listener)
        listener(listenerContext, text);
}

} // extern "C"

#include "core/storage/retry_note.h"

#include <mutex>

namespace strata {

namespace {

std::mutex listenerMutex;
void (*listener)(void *, const char *) = nullptr;
void *listenerContext = nullptr;

void tell(const std::string &text)
{
    std::lock_guard lock(listenerMutex);
    if (listener)
        listener(listenerContext, text.c_str());
}

} // namespace

void noteRetry(const Error &error)
{
    if (error.kind() == ErrorKind::Timeout)
        tell(retryNoteText(error) + "; trying again");
}

void noteTemporaryFailure(const Error &error)
{
    if (error.temporary() && error.kind() == ErrorKind::Timeout)
        tell(retryNoteText(error));
}

void listenForRetries(void (*heard)(void *context, const char *text), void *context)
{
    std::lock_guard lock(listenerMutex);
    listener = heard;
    listenerContext = context;
}

} // namespace strata

#pragma once

// A request tried again after a timeout is told to one listener per process (the command
// line prints "strata: note: …; trying again"), so that a wait on a server that stopped
// answering shows when it begins, not minutes later when every retry has failed.
// Whichever copy of core retries (strata-http.so carries its own): the listener lives in
// the executable (retry_note_hooks.cpp, linked with the allocation hooks into executables
// and tests) and is reached through a weak C symbol the strata executable exports
// (app/exported.map), as first_byte.h's probe is. Where it is absent, nobody hears.
#include "core/storage/error.h"

#include <string>

extern "C" {
__attribute__((weak)) void strata_retry_note(const char *text);
// Who hears from now on (nullptr: nobody), and what `heard` gets back as `context`.
__attribute__((weak)) void strata_retry_listen(void (*heard)(void *context, const char *text), void *context);
}

namespace strata {

// What failed, said for a note: "cannot read URI: CAUSE" (the kind's words without a cause).
std::string retryNoteText(const Error &error);

// Tells the listener, if any, that `error` is being tried again. Only a wait is said (a
// server that did not answer in time): a connection refused or reset is tried again at
// once, and its error, if it stays, ends the command soon enough.
inline void noteRetry(const Error &error)
{
    if (strata_retry_note && error.kind() == ErrorKind::Timeout)
        strata_retry_note((retryNoteText(error) + "; trying again").c_str());
}

// The same for a temporary failure whose next step may itself wait (a writer put aside
// cleans up on the server before its file is tried again): said before it.
inline void noteTemporaryFailure(const Error &error)
{
    if (strata_retry_note && error.temporary() && error.kind() == ErrorKind::Timeout)
        strata_retry_note(retryNoteText(error).c_str());
}

// Who hears from now on (nullptr: nobody); where the hooks are absent, nobody ever.
inline void listenForRetries(void (*heard)(void *context, const char *text), void *context)
{
    if (strata_retry_listen)
        strata_retry_listen(heard, context);
}

} // namespace strata

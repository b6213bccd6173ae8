#pragma once

// A request tried again after a timeout is told to one listener per process (the command
// line prints "strata: note: …; trying again"), so that a wait on a server that stopped
// answering shows when it begins, not minutes later when every retry has failed.
#include "core/storage/error.h"

#include <string>

namespace strata {

// What failed, said for a note: "cannot read URI: CAUSE" (the kind's words without a cause).
std::string retryNoteText(const Error &error);

// Tells the listener, if any, that `error` is being tried again. Only a wait is said (a
// server that did not answer in time): a connection refused or reset is tried again at
// once, and its error, if it stays, ends the command soon enough.
void noteRetry(const Error &error);

// The same for a temporary failure whose next step may itself wait (a writer put aside
// cleans up on the server before its file is tried again): said before it.
void noteTemporaryFailure(const Error &error);

// Who hears from now on (nullptr: nobody), and what `heard` gets back as `context`; one
// call at a time.
void listenForRetries(void (*heard)(void *context, const char *text), void *context);

} // namespace strata

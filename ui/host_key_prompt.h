#pragma once

#include "core/storage/registry.h"

#include <QString>

class QWidget;

namespace strata {

// Asks the person at the window whether to trust an SSH server never seen before: its
// key's fingerprint as OpenSSH prints it, the file it goes to, "Trust and connect" or
// Cancel (the default). Callable from any thread: a connection opening off the GUI thread
// waits for the answer; the window keeps running meanwhile.
HostKeyPrompt windowHostKeyPrompt(QWidget *parent);

// The question as the dialog words it (also for tests).
QString hostKeyQuestionText(const HostKeyQuestion &question);

} // namespace strata

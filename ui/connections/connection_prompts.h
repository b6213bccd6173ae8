#pragma once

#include "core/storage/registry.h"

#include <QString>

class QWidget;

namespace strata {

// What a connection asks the person at the window. Whether to trust an SSH server never
// seen before: its key's fingerprint as OpenSSH prints it, the file it goes to, "Trust and
// connect" or Cancel (the default). A key file's passphrase (never kept unless the
// connection is saved with it). Callable from any thread: a connection opening off the
// GUI thread waits for the answer; the window keeps running meanwhile.
ConnectionPrompts windowPrompts(QWidget *parent);

// The question as the dialog words it (also for tests).
QString hostKeyQuestionText(const HostKeyQuestion &question);

} // namespace strata

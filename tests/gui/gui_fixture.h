#pragma once

// What the GUI tests share: a registry with the built-in backends plus "slow://", a
// memory store whose every call (and opening it) takes `delay`, to show that the GUI
// thread never waits for storage; and a way to wait for the event loop to settle.

#include "core/storage/registry.h"

#include <QString>

#include <chrono>
#include <functional>
#include <memory>

namespace strata::gui_test {

std::unique_ptr<Registry> makeRegistry(std::chrono::milliseconds slowDelay = std::chrono::milliseconds(150));

// Spins the event loop until `done` holds or `timeoutMs` passes; returns `done()`.
bool waitFor(const std::function<bool()> &done, int timeoutMs = 10000);

// Writes `text` to the URI (parents made as needed).
void put(Registry &registry, const QString &uri, const QByteArray &text);
QByteArray get(Registry &registry, const QString &uri);
bool exists(Registry &registry, const QString &uri);

} // namespace strata::gui_test

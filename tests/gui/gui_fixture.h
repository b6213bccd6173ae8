#pragma once

// What the GUI tests share: a registry with the built-in backends plus "slow://", a
// memory store whose every call (and opening it) takes `delay`, to show that the GUI
// thread never waits for storage, and "hostile://", a memory store whose listings also
// name "..", "" and "a/b"; and a way to wait for the event loop to settle.

#include "core/storage/registry.h"

#include <QElapsedTimer>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>

namespace strata::gui_test {

std::shared_ptr<Registry> makeRegistry(std::chrono::milliseconds slowDelay = std::chrono::milliseconds(150));

// Spins the event loop until `done` holds or `timeoutMs` passes; returns `done()`.
bool waitFor(const std::function<bool()> &done, int timeoutMs = 10000);
// The same as an application's event loop runs: waiting for events, where QTest::qWait
// sleeps up to 10 ms between turns (which a StallMeter would count as a stall). With a
// done() that never holds, it runs the loop for timeoutMs.
bool waitForLive(const std::function<bool()> &done, int timeoutMs = 10000);

// Writes `text` to the URI (parents made as needed).
void put(Registry &registry, const QString &uri, const QByteArray &text);
QByteArray get(Registry &registry, const QString &uri);
bool exists(Registry &registry, const QString &uri);

// Measures how long the event loop goes without running a timer that wants to fire every
// `intervalMs`: the longest stall since start().
class StallMeter {
public:
    explicit StallMeter(int intervalMs)
    {
        m_tick.setInterval(intervalMs);
        QObject::connect(&m_tick, &QTimer::timeout, &m_tick, [this] {
            const qint64 now = m_clock.elapsed();
            m_longest = std::max(m_longest, now - m_last);
            m_last = now;
        });
    }
    void start()
    {
        m_clock.start();
        m_last = m_longest = 0;
        m_tick.start();
    }
    void stop() { m_tick.stop(); }
    qint64 longest() const { return m_longest; }
    qint64 elapsed() const { return m_clock.elapsed(); }

private:
    QTimer m_tick;
    QElapsedTimer m_clock;
    qint64 m_last = 0, m_longest = 0;
};

} // namespace strata::gui_test

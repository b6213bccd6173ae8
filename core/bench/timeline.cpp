#include "core/bench/timeline.h"

#include "core/bench/tick_clock.h"

#include <algorithm>
#include <chrono>

namespace strata {

Timeline::Timeline(int workers, std::uint64_t start, std::uint64_t interval, TimelinePoint identity,
                   TimelineObserver emit)
    : m_workers(workers), m_start(start), m_interval(std::max<std::uint64_t>(1, interval)),
      m_identity(std::move(identity)), m_emit(std::move(emit)), m_slots(std::size_t(workers)),
      m_doneAt(std::size_t(workers), -1)
{
    for (auto &s : m_slots)
        s.end = m_start + m_interval;
    m_sampler = std::thread([this] { sample(); });
}

Timeline::~Timeline()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    if (m_sampler.joinable())
        m_sampler.join();
}

void Timeline::handOver(int worker, std::uint64_t now)
{
    Slot &s = m_slots[std::size_t(worker)];
    while (now >= s.end) {
        publish(worker, s, 0);
        ++s.index;
        s.end += m_interval;
    }
}

void Timeline::publish(int worker, Slot &s, std::uint64_t doneAt)
{
    {
        std::lock_guard lock(m_mutex);
        // Late for an interval already reported: it counts in the next one still open.
        const int index = std::max(s.index, m_next);
        Pending &p = m_pending[index];
        if (s.ops > 0) {
            p.latency.merge(s.latency);
            p.ops += s.ops;
            p.bytes += s.bytes;
        }
        if (index == s.index)
            ++p.handedOver;
        if (doneAt) { // the worker's last: it stops in this interval
            m_doneAt[std::size_t(worker)] = s.index;
            m_lastDone = std::max(m_lastDone, doneAt);
        }
    }
    m_changed.notify_all();
    if (s.ops > 0)
        s.latency.clear();
    s.ops = 0;
    s.bytes = 0;
}

void Timeline::done(int worker, std::uint64_t now)
{
    Slot &s = m_slots[std::size_t(worker)];
    handOver(worker, now);
    publish(worker, s, std::max<std::uint64_t>(now, 1)); // the interval it stopped in
}

void Timeline::finish(std::uint64_t now)
{
    {
        std::lock_guard lock(m_mutex);
        m_finishTicks = now;
        m_finishedAt = 0;
        for (const int at : m_doneAt)
            m_finishedAt = std::max(m_finishedAt, at);
        m_stop = true;
    }
    m_changed.notify_all();
    if (m_sampler.joinable())
        m_sampler.join();
}

void Timeline::emit(int index, Pending &p, std::uint64_t end)
{
    const TickClock &clock = TickClock::instance();
    const std::uint64_t from = m_start + std::uint64_t(index) * m_interval;
    TimelinePoint point = m_identity;
    point.at = double(clock.toNs(end - m_start)) / 1e9;
    point.seconds = double(clock.toNs(end > from ? end - from : 0)) / 1e9;
    point.ops = p.ops;
    point.bytes = p.bytes;
    point.p50 = p.latency.percentile(50);
    point.p99 = p.latency.percentile(99);
    if (m_emit && point.seconds > 0)
        m_emit(point);
}

void Timeline::sample()
{
    const TickClock &clock = TickClock::instance();
    std::unique_lock lock(m_mutex);
    for (;;) {
        const bool finished = m_finishedAt >= 0;
        if (finished && m_next > m_finishedAt)
            return;
        if (m_stop && !finished)
            return; // dropped without finish()
        // Every worker done and this interval after all of theirs: only finish() ends it.
        const bool allDone = std::all_of(m_doneAt.begin(), m_doneAt.end(), [](int at) { return at >= 0; });
        if (!finished && allDone && m_next > *std::max_element(m_doneAt.begin(), m_doneAt.end())) {
            m_changed.wait(lock);
            continue;
        }
        int handed = 0;
        auto it = m_pending.find(m_next);
        if (it != m_pending.end())
            handed = it->second.handedOver;
        for (const int at : m_doneAt)
            if (at >= 0 && at < m_next)
                ++handed; // done before this interval: nothing more to come from it
        const std::uint64_t end = m_start + std::uint64_t(m_next + 1) * m_interval;
        const std::uint64_t now = clock.now();
        if (finished || handed >= m_workers || now >= end + 2 * m_interval) {
            Pending p;
            if (it != m_pending.end()) {
                p = std::move(it->second);
                m_pending.erase(it);
            }
            const int index = m_next++;
            // The last interval lasts until the last worker stopped.
            std::uint64_t until = finished && index == m_finishedAt ? m_finishTicks : end;
            if (allDone && until > m_lastDone)
                until = m_lastDone;
            lock.unlock();
            emit(index, p, until);
            lock.lock();
            continue;
        }
        const std::uint64_t wait = end + 2 * m_interval - now;
        m_changed.wait_for(lock, std::chrono::nanoseconds(clock.toNs(wait)));
    }
}

} // namespace strata

#include "core/bench/timeline.h"

#include "core/io/tick_clock.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace strata {

std::string timelineCsvHeader()
{
    return "target,benchmark,run,t_s,interval_s,ops,ops_per_s,mb_per_s,p50_ns,p99_ns\n";
}

std::string timelineCsvLine(const TimelinePoint &p, std::string_view target)
{
    std::string quoted;
    for (const char c : target) // CSV: a quote doubled
        quoted.append(c == '"' ? 2 : 1, c);
    char buf[256];
    std::snprintf(buf, sizeof buf, ",Benchmark%s,%d,%.6f,%.6f,%llu,%.1f,%.2f,%llu,%llu\n", p.benchmark.c_str(), p.run,
                  p.at, p.seconds, static_cast<unsigned long long>(p.ops), p.opsPerSecond(), p.mbPerSecond(),
                  static_cast<unsigned long long>(p.p50), static_cast<unsigned long long>(p.p99));
    return "\"" + quoted + "\"" + buf;
}

std::vector<TimelinePoint> parseTimelineCsv(std::string_view text, std::vector<std::string> *targets)
{
    std::vector<TimelinePoint> out;
    std::vector<std::string> seen;
    while (!text.empty()) {
        const auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        // The quoted target, then nine fields.
        if (line.size() < 2 || line.front() != '"')
            continue;
        std::string target;
        std::size_t i = 1;
        for (; i < line.size(); ++i) {
            if (line[i] == '"') {
                if (i + 1 < line.size() && line[i + 1] == '"') {
                    target.push_back('"');
                    ++i;
                    continue;
                }
                break;
            }
            target.push_back(line[i]);
        }
        if (i + 1 >= line.size() || line[i + 1] != ',')
            continue;
        std::vector<std::string_view> fields;
        std::string_view rest = line.substr(i + 2);
        while (true) {
            const auto comma = rest.find(',');
            fields.push_back(rest.substr(0, comma));
            if (comma == std::string_view::npos)
                break;
            rest.remove_prefix(comma + 1);
        }
        if (fields.size() != 9 || !fields[0].starts_with("Benchmark"))
            continue;
        TimelinePoint p;
        p.benchmark = std::string(fields[0].substr(9));
        auto number = [](std::string_view f, auto &v) {
            return std::from_chars(f.data(), f.data() + f.size(), v).ec == std::errc();
        };
        if (!number(fields[1], p.run) || !number(fields[2], p.at) || !number(fields[3], p.seconds)
            || !number(fields[4], p.ops) || !number(fields[8], p.p99) || !number(fields[7], p.p50))
            continue;
        double mb = 0;
        if (number(fields[6], mb) && p.seconds > 0)
            p.bytes = std::uint64_t(std::llround(mb * 1e6 * p.seconds));
        auto it = std::find(seen.begin(), seen.end(), target);
        if (it == seen.end())
            it = seen.insert(seen.end(), target);
        p.target = int(it - seen.begin());
        out.push_back(std::move(p));
    }
    if (targets)
        *targets = std::move(seen);
    return out;
}

Timeline::Timeline(int workers, std::uint64_t start, std::uint64_t interval, TimelinePoint identity,
                   TimelineObserver emit, bool histograms)
    : m_workers(workers), m_start(start), m_interval(std::max<std::uint64_t>(1, interval)),
      m_identity(std::move(identity)), m_emit(std::move(emit)), m_histograms(histograms), m_slots(std::size_t(workers)),
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
    if (m_histograms)
        point.latency = std::make_shared<const LatencyHistogram>(std::move(p.latency));
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

#include "core/storage/threaded_async_io.h"

#include "core/storage/backend.h"

#include <algorithm>

namespace strata {

ThreadedAsyncIo::ThreadedAsyncIo(Backend &backend, const AsyncOptions &options)
    : m_backend(backend), m_maxInFlight(std::max<std::size_t>(1, options.maxInFlight))
{
    const std::size_t threads = std::min<std::size_t>(m_maxInFlight, 32);
    m_workers.reserve(threads);
    for (std::size_t i = 0; i < threads; ++i)
        m_workers.emplace_back([this](std::stop_token stop) { run(stop); });
}

ThreadedAsyncIo::~ThreadedAsyncIo()
{
    drain();
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_workers.clear(); // joins
}

void ThreadedAsyncIo::submit(std::function<void()> task)
{
    std::unique_lock lock(m_mutex);
    m_progress.wait(lock, [this] { return m_outstanding < m_maxInFlight; });
    ++m_outstanding;
    m_queue.push_back(std::move(task));
    lock.unlock();
    m_wake.notify_one();
}

void ThreadedAsyncIo::submitRead(std::string path, std::uint64_t offset, std::span<std::byte> buffer, ReadDone done)
{
    submit([this, path = std::move(path), offset, buffer, done = std::move(done)] {
        done(m_backend.read(path, offset, buffer));
    });
}

void ThreadedAsyncIo::submitWrite(Writer &writer, std::uint64_t offset, std::span<const std::byte> data, WriteDone done)
{
    submit([&writer, offset, data, done = std::move(done)] { done(writer.writeAt(offset, data)); });
}

void ThreadedAsyncIo::drain()
{
    std::unique_lock lock(m_mutex);
    m_progress.wait(lock, [this] { return m_outstanding == 0; });
}

std::size_t ThreadedAsyncIo::inFlight() const
{
    std::lock_guard lock(m_mutex);
    return m_outstanding;
}

void ThreadedAsyncIo::run(std::stop_token)
{
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty())
                return; // stopping and nothing left
            task = std::move(m_queue.front());
            m_queue.pop_front();
        }
        task();
        {
            std::lock_guard lock(m_mutex);
            --m_outstanding;
        }
        m_progress.notify_all();
    }
}

} // namespace strata

#include "core/io/worker_pool.h"

namespace strata {

void TaskGroup::add(std::size_t n)
{
    std::lock_guard lock(m_mutex);
    m_pending += n;
}

void TaskGroup::done()
{
    std::lock_guard lock(m_mutex);
    if (--m_pending == 0)
        m_cv.notify_all();
}

void TaskGroup::wait()
{
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return m_pending == 0; });
}

WorkerPool::WorkerPool(std::size_t threads) : m_capacity(threads) {}

WorkerPool::~WorkerPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    m_threads.clear(); // joins; no thread starts once m_stopping is set
}

void WorkerPool::submit(std::function<void()> task)
{
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(task));
        // A task waiting for every idle thread already woken means one more thread, up to
        // the capacity.
        if (m_queue.size() > m_idle && m_threads.size() < m_capacity && !m_stopping) {
            m_threads.emplace_back([this] { run(); });
            return;
        }
    }
    m_cv.notify_one();
}

void WorkerPool::submit(TaskGroup &group, std::function<void()> task)
{
    group.add();
    submit([&group, task = std::move(task)] {
        task();
        group.done();
    });
}

bool WorkerPool::runOne()
{
    std::function<void()> task;
    {
        std::lock_guard lock(m_mutex);
        if (m_queue.empty())
            return false;
        task = std::move(m_queue.front());
        m_queue.pop_front();
    }
    task();
    return true;
}

void WorkerPool::runUntilDone(TaskGroup &group)
{
    while (runOne()) {}
    group.wait();
}

void WorkerPool::run()
{
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            ++m_idle;
            m_cv.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            --m_idle;
            if (m_queue.empty())
                return;
            task = std::move(m_queue.front());
            m_queue.pop_front();
        }
        task();
    }
}

} // namespace strata

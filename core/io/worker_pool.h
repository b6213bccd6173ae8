#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace strata {

// Counts tasks of one batch so a caller can wait for just those.
class TaskGroup {
public:
    void add(std::size_t n = 1);
    void done();
    void wait();

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::size_t m_pending = 0;
};

// Up to a fixed number of threads running submitted tasks in order of submission. Threads
// start when work arrives and no thread is idle, so a job with nothing to do in parallel
// (an empty image, one small file) never pays for them. The pool owns its threads:
// destruction runs what is queued, then joins. A pool of 0 threads runs nothing on its own:
// its caller does the work in runUntilDone().
class WorkerPool {
public:
    explicit WorkerPool(std::size_t threads);
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    void submit(std::function<void()> task);
    // Runs task on the pool as part of group (group.add() is done here).
    void submit(TaskGroup &group, std::function<void()> task);
    std::size_t capacity() const { return m_capacity; }
    // The calling thread takes queued tasks too, until none is left, then waits for the rest
    // of group: a pool of N threads and a helping caller run N + 1 tasks at once, and a
    // single task runs on the caller with no thread started for it.
    void runUntilDone(TaskGroup &group);

private:
    void run();
    bool runOne(); // one queued task on the calling thread; false when none is queued

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::function<void()>> m_queue;
    bool m_stopping = false;
    std::size_t m_capacity;
    std::size_t m_idle = 0; // threads waiting for a task
    std::vector<std::jthread> m_threads;
};

} // namespace strata

#pragma once

#include "core/storage/async_io.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace strata {

class Backend;

// The default AsyncIo: the backend's blocking calls on a small pool of threads owned by
// this object, at most maxInFlight requests outstanding.
class ThreadedAsyncIo final : public AsyncIo {
public:
    ThreadedAsyncIo(Backend &backend, const AsyncOptions &options);
    ~ThreadedAsyncIo() override;

    void submitRead(std::string path, std::uint64_t offset, std::span<std::byte> buffer, ReadDone done) override;
    void submitWrite(Writer &writer, std::uint64_t offset, std::span<const std::byte> data, WriteDone done) override;
    void drain() override;
    std::size_t inFlight() const override;

private:
    void submit(std::function<void()> task);
    void run(std::stop_token stop);

    Backend &m_backend;
    std::size_t m_maxInFlight;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;     // workers: a task arrived
    std::condition_variable m_progress; // submitters and drain: a task finished
    std::deque<std::function<void()>> m_queue;
    std::size_t m_outstanding = 0;
    bool m_stopping = false;
    std::vector<std::jthread> m_workers;
};

} // namespace strata

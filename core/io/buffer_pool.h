#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

namespace strata {

class BufferPool;

// One buffer lent by a pool; move-only; goes back to the pool when destroyed.
class PooledBuffer {
public:
    PooledBuffer() = default;
    PooledBuffer(PooledBuffer &&other) noexcept;
    PooledBuffer &operator=(PooledBuffer &&other) noexcept;
    PooledBuffer(const PooledBuffer &) = delete;
    PooledBuffer &operator=(const PooledBuffer &) = delete;
    ~PooledBuffer();

    std::byte *data() const { return m_data; }
    std::size_t size() const { return m_size; }
    std::span<std::byte> span() const { return {m_data, m_size}; }
    explicit operator bool() const { return m_data != nullptr; }
    void release();

private:
    friend class BufferPool;
    struct Shared;
    PooledBuffer(std::shared_ptr<Shared> pool, std::byte *data, std::size_t size)
        : m_pool(std::move(pool)), m_data(data), m_size(size)
    {
    }

    std::shared_ptr<Shared> m_pool;
    std::byte *m_data = nullptr;
    std::size_t m_size = 0;
};

// A bounded set of equally sized, aligned buffers, allocated on first use and reused
// after: no heap allocation per chunk in steady state, and memory in flight is capped
// at bufferSize × maxBuffers whatever the number of transfers. Thread-safe; buffers may
// outlive the pool object.
class BufferPool {
public:
    BufferPool(std::size_t bufferSize, std::size_t maxBuffers, std::size_t alignment = 4096);
    ~BufferPool();
    BufferPool(const BufferPool &) = delete;
    BufferPool &operator=(const BufferPool &) = delete;

    // Waits until a buffer is free.
    PooledBuffer acquire();
    std::optional<PooledBuffer> tryAcquire();

    std::size_t bufferSize() const;
    std::size_t capacity() const;
    std::size_t allocated() const; // buffers created so far
    std::size_t available() const; // free buffers plus those not yet created
    std::size_t waiting() const;   // threads blocked in acquire() (for tests)

private:
    std::shared_ptr<PooledBuffer::Shared> m_shared;
};

} // namespace strata

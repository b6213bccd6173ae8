#pragma once

// Storage seen as one array of bytes, for block benchmarks: an NBD export (through its
// Operator) or a local file or block device (through the kernel, as fio's psync engine).
#include "core/storage/operator.h"
#include "core/storage/result.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace strata {

class BlockDevice {
public:
    virtual ~BlockDevice() = default;
    virtual std::uint64_t size() const = 0;
    // Buffers, offsets and lengths must be multiples of this (O_DIRECT's rule; 1 otherwise).
    virtual std::size_t alignment() const { return 1; }
    // Both move the whole span, from any thread, or fail.
    virtual Status readAt(std::uint64_t offset, std::span<std::byte> buffer) = 0;
    virtual Status writeAt(std::uint64_t offset, std::span<const std::byte> data) = 0;
    // Whether any byte of [offset, offset + length) is data (not a hole or a zero extent).
    // Storage that cannot tell says yes.
    virtual Result<bool> holdsData(std::uint64_t offset, std::uint64_t length) = 0;
    // Makes [offset, offset + length) read as zeros again, a hole where the storage keeps
    // them: a benchmark hands back a region it found empty.
    virtual Status clear(std::uint64_t offset, std::uint64_t length) = 0;
    // Makes what was written durable (fsync, NBD flush).
    virtual Status flush() = 0;
    // Whether runQueue keeps queue.depth requests in flight from the calling thread (an NBD
    // export with Capability::Queue, as fio's nbd engine; a file through io_uring, as fio's
    // io_uring engine). Otherwise a benchmark keeps its queue depth with a thread per
    // request in flight (as fio's psync engine needs jobs).
    virtual bool queues() const { return false; }
    // Reads (or writes, from each request's buffer) as the queue asks; only when queues().
    virtual Status runQueue(bool write, IoQueue &queue)
    {
        (void)write;
        (void)queue;
        return Error(ErrorKind::Unsupported, "this storage keeps one request in flight per thread");
    }
};

// A local regular file or block device, opened for reading and (`writable`) writing, its
// queue through io_uring where the kernel allows it;
// `direct`: with O_DIRECT, so the page cache neither answers reads nor absorbs writes (an
// error names the file system when it refuses, as tmpfs does).
Result<std::unique_ptr<BlockDevice>> openFileDevice(const std::string &path, bool writable, bool direct);

// Storage that is one fixed object (Capability::SingleObject: an NBD export) at `path`:
// reads through the operator, writes through one positional writer that is never committed
// (a commit would zero what it did not write).
Result<std::unique_ptr<BlockDevice>> openStorageDevice(Operator &op, const std::string &path, bool writable);

} // namespace strata

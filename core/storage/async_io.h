#pragma once

#include "core/storage/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace strata {

class Writer;

struct AsyncOptions {
    std::size_t maxInFlight = 16; // requests submitted and not yet completed
};

// Submission path for ranged reads and positional writes: submit many, each completes
// through its callback (on an I/O thread). Submitting blocks while maxInFlight requests
// are outstanding, so memory stays bounded. Buffers must stay valid until their callback.
// A callback must not submit (it may run on the thread a submitter is waiting for).
class AsyncIo {
public:
    using ReadDone = std::function<void(Result<std::size_t>)>;
    using WriteDone = std::function<void(Status)>;

    virtual ~AsyncIo() = default;
    virtual void submitRead(std::string path, std::uint64_t offset, std::span<std::byte> buffer, ReadDone done) = 0;
    virtual void submitWrite(Writer &writer, std::uint64_t offset, std::span<const std::byte> data, WriteDone done) = 0;
    // Returns once every submitted request has completed and its callback has returned.
    virtual void drain() = 0;
    virtual std::size_t inFlight() const = 0;
};

} // namespace strata

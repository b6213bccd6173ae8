#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace strata {

// Requests one caller keeps in flight on one object, as a disk's queue depth
// (Backend::readQueue, Writer::writeQueue). `next` sets up the next request while fewer
// than `depth` are in flight and returns false when there are no more; `done` hears of
// each request that completed. Both run on the caller's thread, one at a time. The queue
// ends once `next` said no more and every request has completed, or at the first error
// (after the requests in flight have completed). A backend that cannot keep several
// requests in flight on one thread runs them one after another.
struct IoQueue {
    struct Request {
        std::uint64_t offset = 0;
        std::span<std::byte> buffer; // read into, or written from (never changed by a write)
        std::size_t slot = 0;        // 0..depth-1, set before `next` is asked: which of the queue's requests
    };
    std::size_t depth = 1;
    std::function<bool(Request &)> next;
    std::function<void(const Request &)> done;
};

} // namespace strata

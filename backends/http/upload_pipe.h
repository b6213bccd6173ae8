#pragma once

#include "core/storage/result.h"

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <span>

namespace strata::http {

// Hands a writer's bytes to a libcurl upload running on another thread, without a copy of
// ours: write() gives its span and returns once curl's read callback has taken all of it
// (memory stays bounded by curl's upload buffer). The writer side calls handOver, end or
// cancel, then waits for the upload's outcome; the upload side pulls and reports finished.
class UploadPipe {
public:
    // Writer side: returns once the upload took every byte, or with the upload's error if
    // it ended first (the caller's bytes are never touched after the return).
    Status handOver(std::span<const std::byte> data);
    // Writer side: no more bytes; waits for the upload to end and returns its outcome.
    Status end();
    // Writer side: the next pull fails the upload; waits for it to end.
    void cancel();

    // Upload side (curl's read callback): the next bytes into `out`; 0 at the end; nullopt
    // when cancelled (the callback then aborts the transfer).
    std::optional<std::size_t> pull(std::span<std::byte> out);
    // Upload side: the transfer is over, with this outcome.
    void finished(Status outcome);

private:
    Status wait(std::unique_lock<std::mutex> &lock);

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::span<const std::byte> m_pending; // bytes handed over that curl has not taken yet
    bool m_end = false;                   // no more bytes will come
    bool m_cancel = false;                // fail the upload
    bool m_done = false;                  // the upload finished (well or not)
    Status m_outcome;
};

} // namespace strata::http

#pragma once

#include "core/io/worker_pool.h"
#include "core/storage/backend.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata::s3 {

class S3Backend;

// Buffers what is written; small objects go up in one PutObject at commit, large ones
// as a multipart upload whose parts (adaptive size) are sent in parallel while more is
// written. CompleteMultipartUpload happens only at commit, so nothing is visible before;
// abort (or destruction) sends AbortMultipartUpload.
class S3Writer final : public Writer {
public:
    // Objects up to this size go up in one PUT: most files never pay for a multipart
    // upload's extra round trips.
    static constexpr std::size_t SinglePutLimit = 16u << 20;

    S3Writer(std::shared_ptr<S3Backend> backend, std::string key, WriteOptions options);
    ~S3Writer() override;

    Status write(std::span<const std::byte> data) override;
    Status commit() override;
    void abort() override;
    std::optional<std::uint64_t> committedSize() const override { return m_committed; }

    static constexpr std::size_t kMaxParallelParts = 4;

private:
    Status startUpload();
    Status sendPart(std::vector<std::byte> data); // waits for a free slot, then sends on the pool
    Status waitForParts();
    Status failed() const;
    Status nameFree(); // Ok when nothing has the key (one HEAD)

    std::shared_ptr<S3Backend> m_backend;
    std::string m_key;
    WriteOptions m_options;
    std::size_t m_partSize;
    std::vector<std::byte> m_buffer;
    std::string m_uploadId;
    bool m_finished = false;
    std::uint64_t m_sent = 0;                 // bytes handed to the server
    std::optional<std::uint64_t> m_committed; // set once the server accepted the object

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::vector<std::string> m_etags; // by part number - 1
    // Sent parts' buffers, filled again: a fresh 8 MiB buffer is a fresh mapping that faults
    // in page by page (a third of an upload's CPU time; at most kMaxParallelParts of them).
    std::vector<std::vector<std::byte>> m_spare;
    std::size_t m_inFlight = 0;
    std::optional<Error> m_error;
    TaskGroup m_parts;
    // At most kMaxParallelParts threads, whatever the number of parts; started by the first
    // part (a single PUT starts none). Last member: joined before the state its tasks use.
    std::unique_ptr<WorkerPool> m_pool;
};

} // namespace strata::s3

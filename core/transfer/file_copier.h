#pragma once

#include "core/io/buffer_pool.h"
#include "core/io/worker_pool.h"
#include "core/transfer/throttle.h"
#include "core/transfer/transfer_journal.h"
#include "core/transfer/transfer_plan.h"

#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

namespace strata {

// What every file copy of a job shares.
struct CopyContext {
    const TransferOptions &options;
    BufferPool &buffers;     // bounds the bytes in flight for the whole job
    WorkerPool &partWorkers; // ranges of large files
    Throttle &throttle;
    TransferJournal *journal; // null: nothing is resumable
    std::stop_token stop;
    std::function<void(std::uint64_t bytes)> onBytes; // progress, called often: keep it cheap
    std::string dstRoot;                              // the destination as named: below it, writes follow no symlink
};

struct FileOutcome {
    bool skipped = false;
    bool verified = false;
    std::uint64_t bytesCopied = 0;
    std::uint64_t bytesResumed = 0;
    std::uint64_t bytesThroughBuffers = 0;
    std::vector<std::string> warnings; // for the job's report (a kept partial file left alone)
};

// Copies one file of a plan: ranges in parallel where both ends allow it (holes
// skipped), in-kernel where source and destination share a file system, streamed (and
// zstd-transformed by name) otherwise. The destination appears complete, checked (size,
// and checksums with verify) and under its name, or not at all.
class FileCopier {
public:
    FileCopier(const FileTask &task, Operator &dst, CopyContext &context);
    Result<FileOutcome> run();
    // Whether run() got as far as publishing the copy (its outcome may be unknown).
    bool reachedCommit() const { return m_reachedCommit; }
    // What is at the destination is this copy's own broken publish (an earlier try's,
    // cut short on a server that does not publish atomically): replace it whatever the
    // policy for existing files says.
    void replaceOwnLeftover() { m_replaceOwn = true; }
    // The server-side state its writers announced (WriteOptions::onPending: a temporary
    // upload, a multipart upload): what a failed run may have left behind.
    std::vector<std::string> announced() const;

private:
    struct Part {
        std::uint64_t offset = 0;
        std::uint64_t length = 0;
    };

    Result<FileOutcome> copyRanges(Writer &writer, bool positional);
    Status copyPart(Writer &writer, std::size_t index, bool positional, bool inKernel, bool overlap, std::string &hash);
    // One buffer to the writer, at pos when positional (a temporary failure retried there).
    Status writeChunk(Writer &writer, std::uint64_t pos, std::span<const std::byte> chunk, bool positional);
    Result<FileOutcome> copyTransformed(bool compress);
    // The source's zero and hole runs long enough for the compressor to skip unread
    // (none when verifying: then every byte is read and hashed).
    std::vector<Extent> longZeroRuns();
    // Reads the copy back (decompressing it when `compressed`) and compares the hash of its
    // plain bytes with `plainHex`, what was sent; Corrupt when they differ.
    Status verifyTransformed(bool compressed, const std::string &plainHex);
    Status verifyRanges(const std::vector<std::string> &hashes);
    Status sourceUnchanged();
    bool versioned() const;
    Status finish(Writer &writer, std::uint64_t expectedSize, bool checkSize);
    Error failure(Error error) const;
    std::function<void(const std::string &)> pendingRecorder() const;
    std::uint64_t partSizeFor(std::uint64_t size, bool positional) const;

    const FileTask &m_task;
    Operator &m_src;
    Operator &m_dst;
    CopyContext &m_ctx;
    std::vector<Part> m_parts;
    std::uint64_t m_partSize = 0;
    std::unique_ptr<Reader> m_reader; // the source, opened once for the whole file
    FileOutcome m_outcome;
    // An appending writer's partial file already holds the bytes up to here.
    std::uint64_t m_appendedUpTo = 0;
    std::mutex m_outcomeMutex; // parts finish on several threads
    bool m_reachedCommit = false;
    bool m_replaceOwn = false;
    struct Announced {
        std::mutex mutex;
        std::vector<std::string> tokens;
    };
    std::shared_ptr<Announced> m_announced = std::make_shared<Announced>();
};

// Hex BLAKE2b-512 of some bytes; the checksum transfers verify with.
class ContentHash {
public:
    ContentHash();
    ~ContentHash();
    void add(std::span<const std::byte> data);
    void addZeros(std::uint64_t count);
    std::string hex();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// ContentHash of a whole object, read in 1 MiB steps (sync --checksum, diff --checksum).
Result<std::string> objectHash(Operator &op, const std::string &path, const std::stop_token &stop = {});

} // namespace strata

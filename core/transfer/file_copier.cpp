#include "core/transfer/file_copier.h"

#include "core/io/hash.h"
#include "core/io/zstd_stream.h"
#include "core/storage/retry_note.h"
#include "core/transfer/transfer_job.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <thread>

namespace strata {

namespace {

constexpr std::uint64_t kKernelChunk = 32u << 20; // in-kernel copies: a progress and stop check every 32 MiB
constexpr int kWriteAttempts = 5;                 // a positional write and its retries

// How many bytes a resumed writer's partial file holds, where it can tell.
std::optional<std::uint64_t> partialLength(const Writer &writer)
{
    if (auto held = writer.partialLength())
        return held;
    struct stat st {};
    if (writer.nativeHandle() < 0 || ::fstat(writer.nativeHandle(), &st) != 0)
        return std::nullopt;
    return std::uint64_t(st.st_size);
}

} // namespace

struct ContentHash::Impl {
    Blake2b512 hash;
};

ContentHash::ContentHash() : m_impl(std::make_unique<Impl>()) {}
ContentHash::~ContentHash() = default;

void ContentHash::add(std::span<const std::byte> data)
{
    m_impl->hash.add({reinterpret_cast<const char *>(data.data()), data.size()});
}

void ContentHash::addZeros(std::uint64_t count)
{
    static const std::vector<std::byte> zeros(1u << 20);
    while (count > 0) {
        const auto n = std::size_t(std::min<std::uint64_t>(count, zeros.size()));
        add(std::span(zeros).first(n));
        count -= n;
    }
}

std::string ContentHash::hex()
{
    return toHex(m_impl->hash.finish());
}

FileCopier::FileCopier(const FileTask &task, Operator &dst, CopyContext &context)
    : m_task(task), m_src(*task.srcOp), m_dst(dst), m_ctx(context)
{
}

Error FileCopier::failure(Error error) const
{
    if (error.operation().empty())
        error.withContext("copy", m_src.display(m_task.srcPath) + " to " + m_dst.display(m_task.dstPath));
    return error;
}

Result<FileOutcome> FileCopier::run()
{
    if (m_ctx.stop.stop_requested())
        return failure(Error(ErrorKind::Cancelled, "stopped before it started"));
    const auto &options = m_ctx.options;
    if (options.existing == ExistingPolicy::Skip && options.mode != TransferMode::Sync && !m_task.fresh && !m_replaceOwn
        && m_dst.stat(m_task.dstPath)) {
        m_outcome.skipped = true;
        return m_outcome;
    }
    // The source is opened once, as it was listed: a file swapped for another (or for a
    // symlink) since is refused, and every read comes from what was opened.
    auto reader = m_src.openReader(m_task.srcPath, m_task.source);
    if (!reader)
        return failure(std::move(reader).error());
    m_reader = std::move(*reader);
    const bool srcZst = isZstdName(m_task.srcPath);
    const bool dstZst = isZstdName(m_task.dstPath);
    if (srcZst != dstZst)
        return copyTransformed(dstZst);

    const auto srcCaps = m_src.capabilities();
    const bool positional =
        srcCaps.has(Capability::RangedRead) && m_dst.capabilities().has(Capability::PositionalWrite);
    const std::uint64_t size = m_task.source.size;
    // Only data is copied: holes and zero ranges of a mapped source are skipped.
    std::vector<Extent> data;
    bool mapped = false;
    // Files of one chunk or less are not mapped: a hole there saves little, the map costs calls.
    if (positional && srcCaps.has(Capability::Extents) && size > options.chunkSize) {
        if (auto map = m_src.extents(m_task.srcPath); map && !map->empty() && map->back().end() == size) {
            mapped = true;
            for (const auto &e : *map)
                if (e.kind == ExtentKind::Data)
                    data.push_back(e);
        }
    }
    if (!mapped && size > 0)
        data.push_back({0, size, ExtentKind::Data});
    // However large the source says it is, the parts stay a bounded list: past a million
    // parts they grow instead.
    constexpr std::uint64_t kMostParts = 1u << 20;
    const auto begun =
        m_ctx.journal ? m_ctx.journal->partSize(m_task.dstPath, size, m_task.source.mtimeNs.value_or(0)) : std::nullopt;
    m_partSize = begun ? *begun : std::max(partSizeFor(size, positional), (size + kMostParts - 1) / kMostParts);
    for (const auto &e : data)
        for (std::uint64_t off = e.offset; off < e.end(); off += m_partSize)
            m_parts.push_back({off, std::min(m_partSize, e.end() - off)});

    WriteOptions writeOptions;
    writeOptions.sizeHint = size;
    writeOptions.overwrite =
        options.existing == ExistingPolicy::Overwrite || options.mode == TransferMode::Sync || m_replaceOwn;
    writeOptions.sync = options.sync;
    writeOptions.mtimeNs = m_task.source.mtimeNs;
    writeOptions.mode = m_task.source.mode;
    writeOptions.exactMode = options.preserveMode;
    writeOptions.confineBelow = m_ctx.dstRoot;
    writeOptions.fresh = m_task.fresh;
    writeOptions.newFolder = m_task.newFolder;
    writeOptions.onPending = pendingRecorder();
    // A writer that appends (FTP) can go on from its partial file too: where it ends.
    if (m_ctx.journal && size >= options.partSize)
        writeOptions.resumeKey = resumeKeyFor(m_ctx.journal->jobId(), m_task.dstPath);
    auto writer = m_dst.write(m_task.dstPath, writeOptions);
    if (!writer) {
        if (writer.error().kind() == ErrorKind::AlreadyExists)
            writer.error().setCause("use --overwrite to replace it or --skip-existing to keep it");
        return failure(std::move(writer).error());
    }
    if (auto why = (*writer)->refusedPartial(); !why.empty())
        m_outcome.warnings.push_back("the partial file an earlier run kept for " + m_dst.display(m_task.dstPath)
                                     + " was left alone (" + why + "); the file was copied from its start");
    return copyRanges(**writer, positional);
}

// The configured part size, or smaller (whole chunks) where a storage wants more ranges of
// one file at once than it would have parts: a 64 MiB file goes to an SFTP server 80 ms away
// in 16 parts of 4 MiB written side by side, not 2 of 32 MiB (each part's connection moves
// one write request per round trip). The journal keeps the size a file's parts were cut
// to, and a resumed run cuts them the same way (the round trip it measures may differ).
std::uint64_t FileCopier::partSizeFor(std::uint64_t size, bool positional) const
{
    const auto &options = m_ctx.options;
    const bool oneStream =
        m_src.oneStreamPerObject(Backend::Flow::Reading) || m_dst.oneStreamPerObject(Backend::Flow::Writing);
    const std::size_t streams =
        std::max(m_src.preferredStreams(Backend::Flow::Reading), m_dst.preferredStreams(Backend::Flow::Writing));
    if (!positional || oneStream || streams < 2 || options.partsInFlight > 0)
        return options.partSize;
    const std::uint64_t chunk = options.chunkSize;
    const std::uint64_t even = (size / streams + chunk - 1) / chunk * chunk;
    return std::min(options.partSize, std::max(chunk, even));
}

// Records what server-side state a writer leaves (see WriteOptions::onPending): here, for
// this run's own clean-up, and in the journal, for a later run's.
std::function<void(const std::string &)> FileCopier::pendingRecorder() const
{
    return [journal = m_ctx.journal, path = m_task.dstPath, announced = m_announced](const std::string &token) {
        {
            std::lock_guard lock(announced->mutex);
            announced->tokens.push_back(token);
        }
        if (journal)
            journal->recordPending(path, token);
    };
}

std::vector<std::string> FileCopier::announced() const
{
    std::lock_guard lock(m_announced->mutex);
    return m_announced->tokens;
}

Result<FileOutcome> FileCopier::copyRanges(Writer &writer, bool positional)
{
    const auto &options = m_ctx.options;
    const std::uint64_t size = m_task.source.size;
    const std::int64_t mtime = m_task.source.mtimeNs.value_or(0);
    std::map<std::size_t, TransferJournal::PartRecord> done;
    const bool resumable = m_ctx.journal && writer.keepsPartialState();
    if (resumable) {
        done = m_ctx.journal->partsDone(m_task.dstPath, size, mtime, m_partSize);
        // The partial file may have been removed or cut short since (cleaned up, lost in
        // a crash): parts it does not reach are copied again, never trusted.
        const auto held = partialLength(writer);
        std::erase_if(done, [&](const auto &part) {
            return part.first >= m_parts.size()
                || (held && m_parts[part.first].offset + m_parts[part.first].length > *held);
        });
        if (!positional) {
            // Appended in order: the parts done are those the partial file holds from its
            // start, and what it holds beyond them is not written again (those bytes are
            // still read, so that each part's hash covers the whole part).
            std::uint64_t end = 0;
            std::size_t k = 0;
            while (k < m_parts.size() && done.contains(k) && m_parts[k].offset == end)
                end += m_parts[k++].length;
            std::erase_if(done, [&](const auto &part) { return part.first >= k; });
            m_appendedUpTo = held.value_or(0);
        }
        if (done.empty())
            m_ctx.journal->beginFile(m_task.dstPath, size, mtime, m_partSize);
    }
    // Holes are never copied but count as done: a sparse copy ends at 100 %, not 1 %.
    std::uint64_t dataBytes = 0;
    for (const auto &part : m_parts)
        dataBytes += part.length;
    if (size > dataBytes && m_ctx.onBytes)
        m_ctx.onBytes(size - dataBytes);
    std::vector<std::string> hashes(m_parts.size());
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < m_parts.size(); ++i) {
        if (auto it = done.find(i); it != done.end()) {
            hashes[i] = it->second.hash;
            m_outcome.bytesResumed += m_parts[i].length;
            if (m_ctx.onBytes)
                m_ctx.onBytes(m_parts[i].length);
        } else {
            todo.push_back(i);
        }
    }

    // In the kernel when both ends are one file system, unless verifying: then the bytes
    // must pass through us once to be hashed.
    const bool inKernel = &m_src == &m_dst && positional && !options.verify;
    // A storage that serves one stream per object: the parts go one after another, each
    // reading its next buffer while the last one is written.
    const bool oneStream =
        m_src.oneStreamPerObject(Backend::Flow::Reading) || m_dst.oneStreamPerObject(Backend::Flow::Writing);
    std::mutex errorMutex;
    std::optional<Error> firstError;
    std::atomic<bool> failed{false};
    auto runPart = [&](std::size_t i) {
        if (failed.load())
            return;
        std::string hash;
        auto st = copyPart(writer, i, positional, inKernel, oneStream, hash);
        if (!st) {
            std::lock_guard lock(errorMutex);
            if (!firstError)
                firstError = std::move(st).error();
            failed = true;
            return;
        }
        hashes[i] = std::move(hash);
        if (resumable)
            m_ctx.journal->markPartDone(m_task.dstPath, i, hashes[i]);
    };
    // In-kernel copies go one range at a time: the kernel moves the bytes either way, and
    // a disk reads one sequential stream faster than several interleaved ones. Every range
    // is announced first so the disk can fetch them all at once.
    if (inKernel && todo.size() > 1) {
        std::vector<Extent> ahead;
        ahead.reserve(todo.size());
        for (auto i : todo)
            ahead.push_back({m_parts[i].offset, m_parts[i].length, ExtentKind::Data});
        m_src.willRead(m_task.srcPath, ahead);
    }
    if (todo.size() <= 1 || !positional || inKernel || oneStream) {
        for (auto i : todo)
            runPart(i);
    } else {
        TaskGroup group;
        for (auto i : todo)
            m_ctx.partWorkers.submit(group, [&runPart, i] { runPart(i); });
        group.wait();
    }
    if (firstError) {
        // Paused or temporarily failed: keep what was written for the next attempt. A
        // temporary failure is said first: putting a writer aside may wait on the server.
        noteTemporaryFailure(failure(*firstError));
        if (firstError->kind() == ErrorKind::Cancelled || firstError->temporary())
            writer.suspend();
        else
            writer.abort();
        return failure(std::move(*firstError));
    }
    if (positional)
        if (auto st = writer.setLength(size); !st)
            return failure(std::move(st).error());
    if (auto st = finish(writer, size, true); !st)
        return failure(std::move(st).error());
    if (options.verify) {
        if (auto st = verifyRanges(hashes); !st) {
            (void)m_dst.remove(m_task.dstPath);
            return failure(std::move(st).error());
        }
        m_outcome.verified = true;
    }
    if (m_ctx.journal)
        m_ctx.journal->markFileDone(m_task.dstPath);
    return m_outcome;
}

Status FileCopier::writeChunk(Writer &writer, std::uint64_t pos, std::span<const std::byte> chunk, bool positional)
{
    auto st = positional ? writer.writeAt(pos, chunk) : writer.write(chunk);
    // A write at an offset can simply be sent again (the same bytes to the same place):
    // a temporary failure (EIO from a disk image server) costs a retry, not the file.
    std::chrono::milliseconds pause{100};
    for (int again = 1; !st && positional && again < kWriteAttempts && st.error().temporary()
         && st.error().kind() != ErrorKind::Cancelled && !m_ctx.stop.stop_requested();
         ++again, pause *= 2) {
        noteRetry(st.error());
        std::this_thread::sleep_for(pause);
        st = writer.writeAt(pos, chunk);
    }
    return st;
}

Status FileCopier::copyPart(Writer &writer, std::size_t index, bool positional, bool inKernel, bool overlap,
                            std::string &hash)
{
    const Part part = m_parts[index];
    std::optional<ContentHash> digest;
    if (m_ctx.options.verify)
        digest.emplace();
    std::uint64_t pos = part.offset;
    const std::uint64_t end = part.offset + part.length;
    bool kernel = inKernel;
    std::uint64_t copied = 0, buffered = 0;
    auto account = [&](std::uint64_t n, bool viaBuffer) {
        copied += n;
        if (viaBuffer)
            buffered += n;
        if (m_ctx.onBytes)
            m_ctx.onBytes(n);
    };
    // With overlap, a buffer read is written on a thread of the part's own while this thread
    // reads the next one (a download over one FTP or SFTP stream goes on arriving while the
    // disk takes the last 8 MiB; writes stay in order, one at a time; the last buffer is
    // written here, so a one-buffer file starts no thread). One thread for the whole part,
    // started by its first such write (a thread per buffer cost a 64 MiB upload 64 thread
    // starts, a third of its time on loopback). Not on a shared pool: waiting there could
    // run, or wait behind, other files' work. settle() waits for the write; so does the
    // pool's destructor, declared after the buffer it writes from, on any way out.
    struct Pending {
        PooledBuffer buffer;
        std::span<const std::byte> chunk;
        Status status;
        TaskGroup group;
        bool valid = false;
    } pending;
    std::optional<WorkerPool> writing; // at most one thread
    auto settle = [&]() -> Status {
        if (!pending.valid)
            return {};
        pending.group.wait();
        pending.valid = false;
        if (pending.status)
            account(pending.chunk.size(), true);
        return std::move(pending.status);
    };
    Status result;
    while (pos < end) {
        if (m_ctx.stop.stop_requested()) {
            result = Error(ErrorKind::Cancelled, "stopped");
            break;
        }
        if (kernel) {
            const std::uint64_t n = std::min(end - pos, kKernelChunk);
            if (!m_ctx.throttle.consume(n, m_ctx.stop))
                continue;
            auto st = m_reader->copyRangeTo(pos, n, writer);
            if (st) {
                pos += n;
                account(n, false);
                continue;
            }
            if (st.error().kind() != ErrorKind::Unsupported) {
                result = std::move(st);
                break;
            }
            kernel = false; // e.g. across file systems: through our buffers instead
        }
        PooledBuffer buffer;
        if (pending.valid) {
            // Never wait for a buffer while holding one: when none is free, the one being
            // written is reused once written.
            if (auto spare = m_ctx.buffers.tryAcquire()) {
                buffer = std::move(*spare);
            } else {
                if (auto st = settle(); !st) {
                    result = std::move(st);
                    break;
                }
                buffer = std::move(pending.buffer);
            }
        } else {
            buffer = m_ctx.buffers.acquire();
        }
        auto want = buffer.span().first(std::size_t(std::min<std::uint64_t>(buffer.size(), end - pos)));
        auto n = m_reader->read(pos, want);
        if (!n) {
            result = std::move(n).error();
            break;
        }
        if (*n == 0) {
            result = Error(ErrorKind::Corrupt, "the source ended early; it changed during the copy");
            break;
        }
        auto chunk = want.first(*n);
        if (digest)
            digest->add(chunk);
        if (!positional && pos < m_appendedUpTo) {
            // Already in the partial file of an appending writer (see copyRanges).
            const std::uint64_t held = std::min<std::uint64_t>(*n, m_appendedUpTo - pos);
            pos += held;
            {
                std::lock_guard lock(m_outcomeMutex);
                m_outcome.bytesResumed += held;
            }
            if (m_ctx.onBytes)
                m_ctx.onBytes(held);
            chunk = chunk.subspan(std::size_t(held));
            *n -= std::size_t(held);
            if (chunk.empty())
                continue;
        }
        if (!m_ctx.throttle.consume(*n, m_ctx.stop))
            continue;
        // The pooled buffer goes to the writer as it is: no copy between read and write.
        if (overlap) {
            if (auto st = settle(); !st) {
                result = std::move(st);
                break;
            }
            if (pos + *n < end) {
                pending.buffer = std::move(buffer);
                pending.chunk = chunk;
                pending.valid = true;
                if (!writing)
                    writing.emplace(1);
                writing->submit(pending.group, [this, &writer, &pending, at = pos, chunk, positional] {
                    pending.status = writeChunk(writer, at, chunk, positional);
                });
                pos += *n;
                continue;
            }
        }
        if (auto st = writeChunk(writer, pos, chunk, positional); !st) {
            result = std::move(st);
            break;
        }
        pos += *n;
        account(*n, true);
    }
    // The last write, on every way out of the loop (its task refers to this frame).
    // A write that failed for good (a full disk) outranks a read that failed for now.
    if (auto st = settle(); !st && (result || (result.error().temporary() && !st.error().temporary())))
        result = std::move(st);
    {
        std::lock_guard lock(m_outcomeMutex);
        m_outcome.bytesCopied += copied;
        m_outcome.bytesThroughBuffers += buffered;
    }
    if (result && digest)
        hash = digest->hex();
    return result;
}

bool FileCopier::versioned() const
{
    return !m_task.source.etag.empty() && m_src.capabilities().has(Capability::VersionedRead);
}

Status FileCopier::sourceUnchanged()
{
    // One read that named the listed version is a consistent copy of exactly it: a
    // request to re-check would add nothing (small files on S3: a GET, no HEAD).
    if (versioned() && m_parts.size() == 1 && m_task.source.size <= m_ctx.buffers.bufferSize()
        && m_outcome.bytesThroughBuffers == m_task.source.size)
        return {};
    // Through the reader: on its own connection where it has one (SFTP: the open handle).
    auto now = m_reader ? m_reader->stat() : m_src.stat(m_task.srcPath);
    if (!now)
        return std::move(now).error();
    const Entry &then = m_task.source;
    // Object stores list times to the millisecond and state them (HEAD's Last-Modified) to
    // the second: radosgw lists 09:41:31.926 and states 09:41:31. With version tags to
    // compare, the times are compared in whole seconds.
    const auto seconds = [](std::int64_t ns) { return ns / 1'000'000'000 - (ns % 1'000'000'000 < 0 ? 1 : 0); };
    const bool tagged = !then.etag.empty() && !now->etag.empty();
    const bool sameTime = tagged && now->mtimeNs && then.mtimeNs ? seconds(*now->mtimeNs) == seconds(*then.mtimeNs)
                                                                 : now->mtimeNs == then.mtimeNs;
    if (now->size != then.size || !sameTime || now->etag != then.etag)
        return Error(ErrorKind::Corrupt, "the source changed while it was being copied; it was not copied, try again");
    return {};
}

Status FileCopier::finish(Writer &writer, std::uint64_t expectedSize, bool checkSize)
{
    if (auto st = sourceUnchanged(); !st) {
        writer.abort();
        return st;
    }
    m_reachedCommit = true;
    if (m_ctx.journal)
        m_ctx.journal->markCommitting(m_task.dstPath);
    if (auto st = writer.commit(); !st)
        return st;
    if (!checkSize)
        return {};
    // A storage that confirmed what it stored (S3 answers a PUT only once all of it
    // arrived) saves the extra stat.
    if (auto confirmed = writer.committedSize()) {
        if (*confirmed == expectedSize)
            return {};
        (void)m_dst.remove(m_task.dstPath);
        return Error(ErrorKind::Corrupt,
                     "the storage kept " + std::to_string(*confirmed) + " bytes instead of "
                         + std::to_string(expectedSize) + "; the copy was removed");
    }
    auto written = m_dst.stat(m_task.dstPath);
    if (!written)
        return std::move(written).error();
    if (written->size != expectedSize) {
        (void)m_dst.remove(m_task.dstPath);
        return Error(ErrorKind::Corrupt,
                     "the copy has " + std::to_string(written->size) + " bytes instead of "
                         + std::to_string(expectedSize) + "; it was removed");
    }
    return {};
}

Status FileCopier::verifyRanges(const std::vector<std::string> &hashes)
{
    const std::uint64_t size = m_task.source.size;
    std::vector<Extent> dstMap;
    if (m_dst.capabilities().has(Capability::Extents))
        if (auto map = m_dst.extents(m_task.dstPath); map)
            dstMap = std::move(*map);
    auto isHoleInDestination = [&](std::uint64_t from, std::uint64_t to) {
        for (const auto &e : dstMap)
            if (e.kind == ExtentKind::Data && e.offset < to && e.end() > from)
                return false;
        return !dstMap.empty();
    };
    // Each side read as it was written and read: the source through its reader.
    const auto readSource = [&](std::uint64_t at, std::span<std::byte> out) { return m_reader->read(at, out); };
    const auto readCopy = [&](std::uint64_t at, std::span<std::byte> out) {
        return m_dst.read(m_task.dstPath, at, out);
    };
    auto hashRange = [&](const auto &readAt, std::uint64_t from, std::uint64_t to,
                         bool zerosOnly) -> Result<std::string> {
        ContentHash digest;
        for (std::uint64_t pos = from; pos < to;) {
            PooledBuffer buffer = m_ctx.buffers.acquire();
            auto want = buffer.span().first(std::size_t(std::min<std::uint64_t>(buffer.size(), to - pos)));
            auto n = readAt(pos, want);
            if (!n)
                return std::move(n).error();
            if (*n == 0)
                return Error(ErrorKind::Corrupt, "the copy is shorter than the source");
            if (zerosOnly && !isAllZero(want.data(), *n))
                return Error(ErrorKind::Corrupt,
                             "verification failed: the copy has data at offset " + std::to_string(pos)
                                 + " where the source has a hole");
            if (!zerosOnly)
                digest.add(want.first(*n));
            pos += *n;
        }
        return digest.hex();
    };
    std::uint64_t pos = 0;
    for (std::size_t i = 0; i <= m_parts.size(); ++i) {
        const std::uint64_t gapEnd = i < m_parts.size() ? m_parts[i].offset : size;
        if (gapEnd > pos && !isHoleInDestination(pos, gapEnd))
            if (auto zeros = hashRange(readCopy, pos, gapEnd, true); !zeros)
                return std::move(zeros).error();
        if (i == m_parts.size())
            break;
        const Part &part = m_parts[i];
        std::string expected = hashes[i];
        if (expected.empty()) { // a part resumed without a recorded checksum
            auto fromSource = hashRange(readSource, part.offset, part.offset + part.length, false);
            if (!fromSource)
                return std::move(fromSource).error();
            expected = std::move(*fromSource);
        }
        auto actual = hashRange(readCopy, part.offset, part.offset + part.length, false);
        if (!actual)
            return std::move(actual).error();
        if (*actual != expected)
            return Error(ErrorKind::Corrupt,
                         "verification failed: bytes " + std::to_string(part.offset) + "–"
                             + std::to_string(part.offset + part.length)
                             + " of the copy differ from the source; the copy was removed");
        pos = part.offset + part.length;
    }
    // Where both ends publish a content hash of the same kind, they must agree too.
    if (!m_task.source.contentHash.empty())
        if (auto there = m_dst.stat(m_task.dstPath); there && !there->contentHash.empty()) {
            const auto kind = [](const std::string &h) { return h.substr(0, h.find(':')); };
            if (kind(there->contentHash) == kind(m_task.source.contentHash)
                && there->contentHash != m_task.source.contentHash)
                return Error(ErrorKind::Corrupt,
                             "verification failed: the storage reports a different checksum for the copy");
        }
    return {};
}

std::vector<Extent> FileCopier::longZeroRuns()
{
    const auto &options = m_ctx.options;
    std::vector<Extent> runs;
    if (options.verify || !m_src.capabilities().has(Capability::Extents) || m_task.source.size <= options.chunkSize)
        return runs;
    auto map = m_src.extents(m_task.srcPath);
    if (!map || map->empty() || map->back().end() != m_task.source.size)
        return runs; // no map, or one that does not cover the source: everything is read
    for (const auto &e : *map) {
        if (!e.readsAsZero())
            continue;
        if (!runs.empty() && runs.back().end() == e.offset)
            runs.back().length += e.length; // a hole next to a zero range: one run
        else
            runs.push_back(e);
    }
    // Only long runs are skipped (see kZstdMinZeroRun); a read never starts inside one.
    std::erase_if(runs, [](const Extent &e) { return e.length < kZstdMinZeroRun; });
    return runs;
}

Status FileCopier::verifyTransformed(bool compressed, const std::string &plainHex)
{
    // Read the copy back and compare its uncompressed bytes with what was sent.
    ContentHash check;
    std::uint64_t at = 0;
    const StreamRead readCopy = [&](std::span<std::byte> out) -> Result<std::size_t> {
        auto n = m_dst.read(m_task.dstPath, at, out);
        if (n)
            at += *n;
        if (n && !compressed)
            check.add(out.first(*n));
        return n;
    };
    if (compressed) {
        auto back = zstdDecompress(readCopy, [&](std::span<const std::byte> data) -> Status {
            check.add(data);
            return {};
        });
        if (!back)
            return std::move(back).error();
    } else {
        std::vector<std::byte> buffer(1u << 20);
        for (;;) {
            auto n = readCopy(buffer);
            if (!n)
                return std::move(n).error();
            if (*n == 0)
                break;
        }
    }
    if (check.hex() != plainHex)
        return Error(ErrorKind::Corrupt, "verification failed: the copy does not match the source; it was removed");
    return {};
}

Result<FileOutcome> FileCopier::copyTransformed(bool compress)
{
    const auto &options = m_ctx.options;
    WriteOptions writeOptions;
    writeOptions.overwrite =
        options.existing == ExistingPolicy::Overwrite || options.mode == TransferMode::Sync || m_replaceOwn;
    writeOptions.sync = options.sync;
    writeOptions.mtimeNs = m_task.source.mtimeNs;
    writeOptions.mode = m_task.source.mode;
    writeOptions.exactMode = options.preserveMode;
    writeOptions.confineBelow = m_ctx.dstRoot;
    writeOptions.onPending = pendingRecorder();
    auto writer = m_dst.write(m_task.dstPath, writeOptions);
    if (!writer) {
        if (writer.error().kind() == ErrorKind::AlreadyExists)
            writer.error().setCause("use --overwrite to replace it or --skip-existing to keep it");
        return failure(std::move(writer).error());
    }
    ContentHash plain; // of the uncompressed bytes, on whichever side they are
    std::uint64_t pos = 0;
    // Compressing an image: its holes and zero ranges are neither read nor compressed.
    const std::vector<Extent> zeroRanges = compress ? longZeroRuns() : std::vector<Extent>();
    // The first zero range that ends after `at`, if any.
    auto zeroAfter = [&](std::uint64_t at) {
        return std::upper_bound(zeroRanges.begin(), zeroRanges.end(), at,
                                [](std::uint64_t v, const Extent &e) { return v < e.end(); });
    };
    ZeroRuns zeroRuns;
    zeroRuns.ahead = [&]() -> std::uint64_t {
        std::uint64_t end = pos;
        for (auto it = zeroAfter(pos); it != zeroRanges.end() && it->offset <= end; ++it)
            end = it->end();
        return end - pos;
    };
    zeroRuns.skip = [&](std::uint64_t n) {
        pos += n;
        m_outcome.bytesCopied += n;
        if (m_ctx.onBytes)
            m_ctx.onBytes(n);
    };
    const StreamRead read = [&](std::span<std::byte> out) -> Result<std::size_t> {
        if (m_ctx.stop.stop_requested())
            return Error(ErrorKind::Cancelled, "stopped");
        // Stop at the next zero range: the compressor skips it.
        if (auto it = zeroAfter(pos); it != zeroRanges.end() && it->offset > pos)
            out = out.first(std::size_t(std::min<std::uint64_t>(out.size(), it->offset - pos)));
        auto n = m_reader->read(pos, out);
        if (!n)
            return n;
        pos += *n;
        if (compress && options.verify)
            plain.add(out.first(*n));
        m_ctx.throttle.consume(*n, m_ctx.stop);
        m_outcome.bytesCopied += *n;
        m_outcome.bytesThroughBuffers += *n;
        if (m_ctx.onBytes)
            m_ctx.onBytes(*n);
        return n;
    };
    const StreamWrite write = [&](std::span<const std::byte> data) -> Status {
        if (!compress && options.verify)
            plain.add(data);
        return (*writer)->write(data);
    };
    ZstdOptions zstd;
    zstd.level = options.zstdLevel;
    zstd.threads = options.zstdThreads;
    // Reads as large as the source likes (an NBD export splits them into many requests in
    // flight, S3 makes one request of each): the compressor's workers are fed faster.
    if (compress)
        zstd.chunkSize =
            std::max<std::size_t>(zstd.chunkSize, std::min<std::size_t>(m_src.preferredIoSize(), 16u << 20));
    auto totals = compress ? zstdCompress(read, write, zstd, zeroRanges.empty() ? nullptr : &zeroRuns)
                           : zstdDecompress(read, write);
    if (!totals) {
        (*writer)->abort();
        return failure(std::move(totals).error());
    }
    if (totals->in != m_task.source.size && compress) {
        (*writer)->abort();
        return failure(Error(ErrorKind::Corrupt, "the source ended early; it changed during the copy"));
    }
    if (auto st = finish(**writer, totals->out, true); !st)
        return failure(std::move(st).error());
    if (options.verify) {
        if (auto st = verifyTransformed(compress, plain.hex()); !st) {
            (void)m_dst.remove(m_task.dstPath);
            return failure(std::move(st).error());
        }
        m_outcome.verified = true;
    }
    if (m_ctx.journal)
        m_ctx.journal->markFileDone(m_task.dstPath);
    return m_outcome;
}

Result<std::string> objectHash(Operator &op, const std::string &path, const std::stop_token &stop)
{
    ContentHash digest;
    std::vector<std::byte> buffer(1u << 20);
    for (std::uint64_t pos = 0;;) {
        if (stop.stop_requested())
            return Error(ErrorKind::Cancelled, "stopped while reading to compare").setOperation("read");
        auto n = op.read(path, pos, buffer);
        if (!n)
            return std::move(n).error();
        if (*n == 0)
            return digest.hex();
        digest.add(std::span(buffer).first(*n));
        pos += *n;
    }
}

} // namespace strata

#include "core/bench/block_device.h"

#include <algorithm>
#include <cerrno>
#include <vector>

#include <fcntl.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata {

namespace {

// Whether this kernel (and its seccomp policy) gives io_uring to this process.
bool ringsWork()
{
    static const bool works = [] {
        io_uring ring{};
        if (io_uring_queue_init(2, &ring, 0) != 0)
            return false;
        io_uring_queue_exit(&ring);
        return true;
    }();
    return works;
}

// One io_uring of `depth` entries for the calling thread's queue.
class Ring {
public:
    explicit Ring(unsigned depth) : m_status(io_uring_queue_init(depth, &m_ring, 0)) {}
    ~Ring()
    {
        if (m_status == 0)
            io_uring_queue_exit(&m_ring);
    }
    Ring(const Ring &) = delete;
    Ring &operator=(const Ring &) = delete;
    int status() const { return m_status; }
    io_uring *get() { return &m_ring; }

private:
    io_uring m_ring{};
    int m_status;
};

class FileDevice final : public BlockDevice {
public:
    FileDevice(int fd, std::uint64_t size, bool block, std::size_t alignment, std::string path)
        : m_fd(fd), m_size(size), m_block(block), m_alignment(alignment), m_path(std::move(path)), m_rings(ringsWork())
    {
    }
    ~FileDevice() override { ::close(m_fd); }

    std::uint64_t size() const override { return m_size; }
    std::size_t alignment() const override { return m_alignment; }

    Status readAt(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        std::size_t done = 0;
        while (done < buffer.size()) {
            const ssize_t n = ::pread(m_fd, buffer.data() + done, buffer.size() - done, off_t(offset + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return errorFromErrno(errno).withContext("read", m_path);
            if (n == 0)
                return Error(ErrorKind::Corrupt, "the file ended before byte " + std::to_string(offset + buffer.size()))
                    .withContext("read", m_path);
            done += std::size_t(n);
        }
        return {};
    }

    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        std::size_t done = 0;
        while (done < data.size()) {
            const ssize_t n = ::pwrite(m_fd, data.data() + done, data.size() - done, off_t(offset + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return errorFromErrno(errno).withContext("write", m_path);
            done += std::size_t(n);
        }
        return {};
    }

    Result<bool> holdsData(std::uint64_t offset, std::uint64_t length) override
    {
        if (m_block)
            return true;
        if (length == 0)
            return false;
        const off_t data = ::lseek(m_fd, off_t(offset), SEEK_DATA);
        if (data < 0)
            return errno != ENXIO; // ENXIO: no data after offset; anything else: cannot tell
        return std::uint64_t(data) < offset + length;
    }

    Status clear(std::uint64_t offset, std::uint64_t length) override
    {
        if (::fallocate(m_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset), off_t(length)) == 0)
            return {};
        if (errno != EOPNOTSUPP)
            return errorFromErrno(errno).withContext("zero", m_path);
        // No holes here: zeros as data.
        std::vector<std::byte> zeros(std::min<std::uint64_t>(length, 1u << 20) + m_alignment);
        auto *aligned = reinterpret_cast<std::byte *>((reinterpret_cast<std::uintptr_t>(zeros.data()) + m_alignment - 1)
                                                      / m_alignment * m_alignment);
        const std::size_t chunk = std::size_t(std::min<std::uint64_t>(length, 1u << 20));
        for (std::uint64_t pos = offset; pos < offset + length; pos += chunk)
            if (auto st = writeAt(
                    pos, std::span(aligned, std::size_t(std::min<std::uint64_t>(chunk, offset + length - pos))));
                !st)
                return st;
        return {};
    }

    Status flush() override
    {
        if (::fdatasync(m_fd) != 0)
            return errorFromErrno(errno).withContext("flush", m_path);
        return {};
    }

    // Through io_uring, as fio's io_uring engine: one thread keeps the queue's depth in
    // flight (a thread per request costs two cores their caches and the tail its latency).
    bool queues() const override { return m_rings; }

    Status runQueue(bool write, IoQueue &queue) override
    {
        const std::size_t depth = std::max<std::size_t>(1, queue.depth);
        if (depth == 1)
            return runOneByOne(write, queue);
        Ring ring{unsigned(depth)};
        if (ring.status() != 0)
            return errorFromErrno(-ring.status()).withContext("set up io_uring for", m_path);
        struct Slot {
            IoQueue::Request request;
            std::size_t done = 0; // bytes moved (a short transfer is asked again for the rest)
        };
        std::vector<Slot> slots(depth);
        std::vector<std::size_t> free(depth);
        for (std::size_t i = 0; i < depth; ++i)
            free[i] = depth - 1 - i;
        std::size_t inFlight = 0; // prepared, not yet completed for good
        // However this returns (an error, an exception from the queue's callbacks), the
        // requests the kernel took complete before their buffers go back to the caller.
        struct Drain {
            Ring &ring;
            const std::size_t &inFlight;
            ~Drain()
            {
                unsigned taken = unsigned(inFlight) - io_uring_sq_ready(ring.get());
                io_uring_cqe *cqe = nullptr;
                while (taken > 0) {
                    const int rc = io_uring_wait_cqe(ring.get(), &cqe);
                    if (rc == -EINTR || rc == -EAGAIN)
                        continue;
                    if (rc < 0)
                        break;
                    io_uring_cqe_seen(ring.get(), cqe);
                    --taken;
                }
            }
        } drain{ring, inFlight};
        bool more = true;
        Status outcome; // the first error, once one came
        auto prepare = [&](std::size_t slot) {
            Slot &s = slots[slot];
            io_uring_sqe *sqe = io_uring_get_sqe(ring.get()); // never null: at most depth entries out
            std::byte *at = s.request.buffer.data() + s.done;
            const auto length = unsigned(s.request.buffer.size() - s.done);
            const auto offset = s.request.offset + s.done;
            if (write)
                io_uring_prep_write(sqe, m_fd, at, length, offset);
            else
                io_uring_prep_read(sqe, m_fd, at, length, offset);
            io_uring_sqe_set_data64(sqe, slot);
        };
        for (;;) {
            while (more && outcome && !free.empty()) {
                const std::size_t slot = free.back();
                Slot &s = slots[slot];
                s.request = {};
                s.request.slot = slot;
                s.done = 0;
                if (!queue.next(s.request)) {
                    more = false;
                    break;
                }
                free.pop_back();
                prepare(slot);
                ++inFlight;
            }
            if (inFlight == 0)
                break;
            const int submitted = io_uring_submit_and_wait(ring.get(), 1);
            if (submitted < 0 && submitted != -EINTR && submitted != -EAGAIN && submitted != -EBUSY) {
                // A ring that refuses to submit (`drain` waits for what it took).
                if (outcome)
                    outcome = errorFromErrno(-submitted).withContext(write ? "write" : "read", m_path);
                return outcome;
            }
            // Each completion is marked seen as it is taken: one left unseen would be
            // counted again by `drain` after an exception.
            io_uring_cqe *cqe = nullptr;
            while (io_uring_peek_cqe(ring.get(), &cqe) == 0) {
                const auto slot = std::size_t(io_uring_cqe_get_data64(cqe));
                const int res = cqe->res;
                io_uring_cqe_seen(ring.get(), cqe);
                Slot &s = slots[slot];
                if (res == -EINTR || res == -EAGAIN) {
                    prepare(slot); // asked again
                    continue;
                }
                if (res > 0) {
                    s.done += std::size_t(res);
                    if (s.done < s.request.buffer.size()) {
                        prepare(slot);
                        continue;
                    }
                } else if (outcome) {
                    outcome = res < 0
                        ? Status(errorFromErrno(-res).withContext(write ? "write" : "read", m_path))
                        : Status(Error(ErrorKind::Corrupt,
                                       std::string(write ? "no room for" : "the file ended before") + " byte "
                                           + std::to_string(s.request.offset + s.request.buffer.size()))
                                     .withContext(write ? "write" : "read", m_path));
                }
                // Done for good before the queue hears of it (`drain` must not wait for it
                // should `done` throw).
                --inFlight;
                free.push_back(slot);
                if (res > 0)
                    queue.done(s.request);
            }
        }
        return outcome;
    }

private:
    Status runOneByOne(bool write, IoQueue &queue)
    {
        IoQueue::Request request;
        for (;;) {
            request = {};
            if (!queue.next(request))
                return {};
            if (auto st = write ? writeAt(request.offset, request.buffer) : readAt(request.offset, request.buffer); !st)
                return st;
            queue.done(request);
        }
    }

    int m_fd;
    std::uint64_t m_size;
    bool m_block;
    std::size_t m_alignment;
    std::string m_path;
    bool m_rings;
};

class StorageDevice final : public BlockDevice {
public:
    StorageDevice(Operator &op, std::string path, std::uint64_t size, std::unique_ptr<Writer> writer)
        : m_op(op), m_path(std::move(path)), m_size(size), m_writer(std::move(writer))
    {
    }

    std::uint64_t size() const override { return m_size; }

    Status readAt(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        std::size_t done = 0;
        while (done < buffer.size()) {
            auto n = m_op.read(m_path, offset + done, buffer.subspan(done));
            if (!n)
                return std::move(n).error();
            if (*n == 0)
                return Error(ErrorKind::Corrupt,
                             "the image ended before byte " + std::to_string(offset + buffer.size()));
            done += *n;
        }
        return {};
    }

    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        if (!m_writer)
            return Error(ErrorKind::PermissionDenied, "the image was opened for reading only");
        return m_writer->writeAt(offset, data);
    }

    Result<bool> holdsData(std::uint64_t offset, std::uint64_t length) override
    {
        auto extents = m_op.extents(m_path);
        if (!extents)
            return std::move(extents).error();
        return std::any_of(extents->begin(), extents->end(), [&](const Extent &e) {
            return e.kind == ExtentKind::Data && e.offset < offset + length && e.end() > offset;
        });
    }

    Status clear(std::uint64_t offset, std::uint64_t length) override
    {
        if (!m_writer)
            return Error(ErrorKind::PermissionDenied, "the image was opened for reading only");
        return m_writer->zero(offset, length);
    }

    // The writer is never committed (a commit zeroes what it did not write); each write
    // has completed when writeAt returns.
    Status flush() override { return {}; }

    bool queues() const override { return m_op.capabilities().has(Capability::Queue); }

    Status runQueue(bool write, IoQueue &queue) override
    {
        if (write && !m_writer)
            return Error(ErrorKind::PermissionDenied, "the image was opened for reading only");
        auto n = write ? m_writer->writeQueue(queue) : m_op.readQueue(m_path, queue);
        if (!n)
            return std::move(n).error();
        return {};
    }

private:
    Operator &m_op;
    std::string m_path;
    std::uint64_t m_size;
    std::unique_ptr<Writer> m_writer;
};

} // namespace

Result<std::unique_ptr<BlockDevice>> openFileDevice(const std::string &path, bool writable, bool direct)
{
    const int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW | (direct ? O_DIRECT : 0);
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0) {
        if (direct && errno == EINVAL)
            return Error(ErrorKind::Unsupported,
                         "the file system holding it does not allow O_DIRECT (tmpfs does not): run without --direct")
                .withContext("open", path);
        return errorFromErrno(errno).withContext("open", path);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return errorFromErrno(err).withContext("open", path);
    }
    std::uint64_t size = std::uint64_t(st.st_size);
    const bool block = S_ISBLK(st.st_mode);
    std::size_t alignment = 1;
    if (block) {
        if (::ioctl(fd, BLKGETSIZE64, &size) != 0) {
            const int err = errno;
            ::close(fd);
            return errorFromErrno(err).withContext("open", path);
        }
    } else if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error(ErrorKind::InvalidInput, "block benchmarks run on a regular file or a block device")
            .withContext("open", path);
    }
    if (direct) {
        // O_DIRECT wants buffers, offsets and lengths aligned to the logical block size;
        // 4 KiB covers every disk and file system in use.
        int logical = 0;
        alignment = block && ::ioctl(fd, BLKSSZGET, &logical) == 0 && logical > 4096 ? std::size_t(logical) : 4096;
    }
    return std::unique_ptr<BlockDevice>(std::make_unique<FileDevice>(fd, size, block, alignment, path));
}

Result<std::unique_ptr<BlockDevice>> openStorageDevice(Operator &op, const std::string &path, bool writable)
{
    auto entry = op.stat(path);
    if (!entry)
        return std::move(entry).error();
    std::unique_ptr<Writer> writer;
    if (writable) {
        WriteOptions options;
        options.overwrite = true;
        auto w = op.write(path, options);
        if (!w)
            return std::move(w).error();
        writer = std::move(*w);
    }
    return std::unique_ptr<BlockDevice>(std::make_unique<StorageDevice>(op, path, entry->size, std::move(writer)));
}

} // namespace strata

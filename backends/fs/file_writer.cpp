#include "backends/fs/file_writer.h"

#include "core/io/extent.h"

#include <cerrno>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata {

namespace {

constexpr std::size_t kZeroBlock = 4096; // a file system block: zeros smaller than that cost a block anyway

// A big file is written behind and dropped from the page cache as it goes, as nbdcopy and
// `dd oflag=nocache` do: copying an image neither pushes what the user works with out of
// memory for pages nobody reads again, nor ends with gigabytes still to flush (a progress
// bar at 100 % and a drive that cannot be unmounted yet). It costs no speed: the kernel
// refills a few recycled pages instead of finding fresh ones for every byte, which in a VM
// whose host takes freed memory back was most of a 1 GiB copy's system time (see
// tests/perf/nbd_vs_nbdcopy.sh).
constexpr std::uint64_t kWriteBehindFrom = 64 << 20; // smaller files stay in the cache
constexpr std::uint64_t kWriteBehindLag = 32 << 20;  // pages this far below a write are dropped

// After `len` bytes were written at `pos`: starts writing them out, waits until the range
// kWriteBehindLag below is on disk, and drops that from the cache. Hints only: a failure
// changes nothing the file holds (errors surface at commit as ever).
void writeBehind(int fd, std::uint64_t pos, std::size_t len)
{
    ::sync_file_range(fd, off_t(pos), off_t(len), SYNC_FILE_RANGE_WRITE);
    if (pos < kWriteBehindLag)
        return;
    const std::uint64_t old = pos - kWriteBehindLag;
    ::sync_file_range(fd, off_t(old), off_t(len),
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    ::posix_fadvise(fd, off_t(old), off_t(len), POSIX_FADV_DONTNEED);
}

void atomicMax(std::atomic<std::uint64_t> &target, std::uint64_t value)
{
    auto cur = target.load(std::memory_order_relaxed);
    while (cur < value && !target.compare_exchange_weak(cur, value, std::memory_order_relaxed)) {}
}

} // namespace

FileWriter::FileWriter(UniqueFd dir, std::string leaf, UniqueFd file, std::string tmpName, WriteOptions options,
                       mode_t mode, bool resumable, std::uint64_t length)
    : m_dir(std::move(dir)), m_leaf(std::move(leaf)), m_file(std::move(file)), m_tmpName(std::move(tmpName)),
      m_options(std::move(options)), m_mode(mode), m_length(length), m_resumable(resumable)
{
}

FileWriter::~FileWriter()
{
    abort();
}

Status FileWriter::writeBlocks(std::uint64_t offset, std::span<const std::byte> data)
{
    if (m_finished)
        return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
    std::size_t done = 0;
    while (done < data.size()) {
        // Blocks of zeros aligned to kZeroBlock are skipped: they stay holes.
        const std::uint64_t pos = offset + done;
        const std::size_t toBoundary = kZeroBlock - std::size_t(pos % kZeroBlock);
        const std::size_t take = std::min(data.size() - done, toBoundary);
        auto piece = data.subspan(done, take);
        // Below the end written so far earlier bytes may be there: punch them out (or,
        // where that is unsupported, write the zeros below).
        if (take == kZeroBlock && isAllZero(piece.data(), piece.size())
            && (pos >= m_length.load()
                || ::fallocate(m_file.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(pos), off_t(take))
                    == 0)) {
            done += take;
            continue;
        }
        // Runs of non-zero blocks go down in one call.
        std::size_t run = take;
        while (done + run < data.size()) {
            const std::size_t next = std::min(data.size() - done - run, kZeroBlock);
            if (next == kZeroBlock && isAllZero(data.data() + done + run, next))
                break;
            run += next;
        }
        std::size_t written = 0;
        while (written < run) {
            ssize_t n = ::pwrite(m_file.get(), data.data() + done + written, run - written, off_t(pos + written));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return errorFromErrno(errno);
            }
            written += std::size_t(n);
        }
        if (m_options.sizeHint.value_or(0) >= kWriteBehindFrom || pos + run >= kWriteBehindFrom)
            writeBehind(m_file.get(), pos, run);
        done += run;
    }
    atomicMax(m_length, offset + data.size());
    return {};
}

Status FileWriter::write(std::span<const std::byte> data)
{
    auto st = writeBlocks(m_appendAt, data);
    if (st)
        m_appendAt += data.size();
    return st;
}

Status FileWriter::writeAt(std::uint64_t offset, std::span<const std::byte> data)
{
    return writeBlocks(offset, data);
}

Status FileWriter::setLength(std::uint64_t length)
{
    if (m_finished)
        return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
    if (::ftruncate(m_file.get(), off_t(length)) != 0)
        return errorFromErrno(errno);
    m_length = length;
    m_lengthFixed = true;
    return {};
}

void FileWriter::noteWritten(std::uint64_t end)
{
    atomicMax(m_length, end);
}

Status FileWriter::link()
{
    const unsigned flags = m_options.overwrite ? 0 : RENAME_NOREPLACE;
    if (m_tmpName.empty()) {
        // The unnamed file (O_TMPFILE) gets a name. Names are built in stack buffers: no
        // allocation on the path every small file takes.
        char proc[64];
        std::snprintf(proc, sizeof proc, "/proc/self/fd/%d", m_file.get());
        auto linkTo = [&](const char *name) {
            int rc = ::linkat(AT_FDCWD, proc, m_dir.get(), name, AT_SYMLINK_FOLLOW);
            if (rc != 0 && errno == ENOENT) // no /proc: needs CAP_DAC_READ_SEARCH
                rc = ::linkat(m_file.get(), "", m_dir.get(), name, AT_EMPTY_PATH);
            return rc;
        };
        if (!m_options.overwrite) {
            // Never replacing: the final name directly, which link() refuses when taken.
            if (linkTo(m_leaf.c_str()) == 0)
                return {};
            return errorFromErrno(errno, errno == EEXIST ? "" : "while naming the new file");
        }
        // Replacing: a hidden temporary name first, renamed over the old file atomically.
        char name[80];
        bool named = false;
        for (int attempt = 0; attempt < 16 && !named; ++attempt) {
            std::snprintf(name, sizeof name, ".strata-%d-%ld.part", int(::getpid()), ::random());
            if (linkTo(name) == 0)
                named = true;
            else if (errno != EEXIST)
                return errorFromErrno(errno, "while naming the new file");
        }
        if (!named)
            return Error(ErrorKind::Busy, "could not find a free temporary name");
        if (::renameat2(m_dir.get(), name, m_dir.get(), m_leaf.c_str(), 0) != 0) {
            const int err = errno;
            ::unlinkat(m_dir.get(), name, 0);
            return errorFromErrno(err);
        }
        return {};
    }
    if (::renameat2(m_dir.get(), m_tmpName.c_str(), m_dir.get(), m_leaf.c_str(), flags) != 0) {
        if (errno == EINVAL && flags != 0) {
            // No RENAME_NOREPLACE on this file system: link() refuses an existing name too.
            if (::linkat(m_dir.get(), m_tmpName.c_str(), m_dir.get(), m_leaf.c_str(), 0) != 0)
                return errorFromErrno(errno);
            ::unlinkat(m_dir.get(), m_tmpName.c_str(), 0);
            m_tmpName.clear();
            return {};
        }
        return errorFromErrno(errno);
    }
    m_tmpName.clear();
    return {};
}

Status FileWriter::commit()
{
    if (m_finished)
        return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
    struct stat info {};
    if (::fstat(m_file.get(), &info) != 0)
        return errorFromErrno(errno);
    std::uint64_t size = std::uint64_t(info.st_size);
    // Skipped zero blocks at the end leave the file short: extend it to its length.
    if (!m_lengthFixed && size != m_length.load()) {
        if (::ftruncate(m_file.get(), off_t(m_length.load())) != 0) {
            auto err = errorFromErrno(errno);
            abort();
            return err;
        }
        size = m_length.load();
    }
    if (m_options.mtimeNs) {
        const timespec times[2] = {
            {0, UTIME_OMIT}, {time_t(*m_options.mtimeNs / 1'000'000'000), long(*m_options.mtimeNs % 1'000'000'000)}};
        ::futimens(m_file.get(), times); // best effort: a time we cannot set is no reason to fail
    }
    if (::fchmod(m_file.get(), m_mode) != 0) {
        auto err = errorFromErrno(errno, "while setting the file's permissions");
        abort();
        return err;
    }
    if (m_options.sync && ::fdatasync(m_file.get()) != 0) {
        auto err = errorFromErrno(errno);
        abort();
        return err;
    }
    if (auto st = link(); !st) {
        abort();
        return st;
    }
    if (m_options.sync)
        ::fsync(m_dir.get());
    m_committed = size;
    m_finished = true;
    m_file.reset();
    return {};
}

void FileWriter::suspend()
{
    if (!m_resumable) {
        abort();
        return;
    }
    m_finished = true;
    m_file.reset(); // the named temporary file stays for the next writer with this key
}

void FileWriter::abort()
{
    if (m_finished)
        return;
    m_finished = true;
    m_file.reset();
    if (!m_tmpName.empty())
        ::unlinkat(m_dir.get(), m_tmpName.c_str(), 0);
    m_tmpName.clear();
}

} // namespace strata

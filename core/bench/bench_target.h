#pragma once

// What the benchmark runner measures on (bench_runner.cpp only): one target's operator and
// scratch directory with the objects prepared in it, or a disk image's device and the
// region its block workloads stay in; and the aligned buffers those workloads use.
#include "core/bench/bench_runner.h"
#include "core/bench/block_device.h"
#include "core/storage/path.h"
#include "core/storage/random.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace strata::bench_detail {

constexpr int kListEntries = 100; // objects in the directory a list benchmark lists

inline std::string randomSuffix()
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::uint64_t bits = randomU64(); // 36^10 < 2^52: ten digits from one draw
    char s[10];
    for (char &c : s) {
        c = digits[bits % 36];
        bits /= 36;
    }
    return std::string(s, sizeof s);
}

constexpr std::uint64_t kDefaultRegion = 1ull << 30;

// Memory aligned for O_DIRECT.
struct AlignedBuffer {
    static std::size_t roundUp(std::size_t n, std::size_t to)
    {
        return std::max<std::size_t>(1, (n + to - 1) / to) * to;
    }
    AlignedBuffer() = default;
    AlignedBuffer(std::size_t bytes, std::size_t alignment)
        : data(static_cast<std::byte *>(std::aligned_alloc(std::max<std::size_t>(alignment, 64),
                                                           roundUp(bytes, std::max<std::size_t>(alignment, 64))))),
          size(bytes)
    {
        if (!data)
            throw std::bad_alloc();
    }
    std::span<std::byte> span() const { return {data.get(), size}; }
    struct Free {
        void operator()(std::byte *p) const { std::free(p); }
    };
    std::unique_ptr<std::byte, Free> data;
    std::size_t size = 0;
};

// The block workloads options ask for on a disk image: profiles of the named ops, or ops
// × sizes × concurrency at the queue depth and pattern given.
inline std::vector<BlockProfile> blockProfiles(const BenchOptions &o)
{
    std::vector<BlockProfile> out;
    auto wanted = [&](BenchOp op) { return std::find(o.ops.begin(), o.ops.end(), op) != o.ops.end(); };
    if (!o.profiles.empty()) {
        for (const auto &p : o.profiles)
            if (wanted(p.op))
                out.push_back(p);
        return out;
    }
    for (auto op : o.ops)
        for (auto size : o.sizes)
            for (int c : o.concurrency)
                out.push_back({op, o.pattern, size, o.queueDepth, c});
    return out;
}

// One target: its operator, its scratch directory and the objects prepared in it, or (a
// disk image) the device and the region the block workloads stay in.
class Target {
public:
    Target(Operator &op, std::string base) : m_op(op), m_base(std::move(base)) {}

    bool block() const { return m_device != nullptr; }
    BlockDevice &device() { return *m_device; }
    std::uint64_t regionOffset() const { return m_regionOffset; }
    std::uint64_t regionLength() const { return m_regionLength; }

    Status prepare(const BenchOptions &options)
    {
        const auto caps = m_op.capabilities();
        auto image = openImage(options);
        if (!image)
            return std::move(image).error();
        if (*image)
            return prepareRegion(options);
        if (!options.profiles.empty())
            return Error(ErrorKind::InvalidInput,
                         "profiles run on a disk image: an NBD export, or a file:// URI of a file or block device")
                .withContext("bench", m_op.display(m_base));
        if (options.direct)
            return Error(ErrorKind::InvalidInput, "--direct is for block benchmarks on a local file or block device")
                .withContext("bench", m_op.display(m_base));
        if (!caps.has(Capability::Write) || !caps.has(Capability::Read))
            return Error(ErrorKind::Unsupported, "benchmarks need storage that can be written and read");
        if (caps.has(Capability::RealDirectories)) {
            // Into an existing directory only: a mistyped path must not grow new parents.
            auto there = m_op.stat(m_base);
            if (!there)
                return std::move(there).error();
            if (!there->isDir())
                return Error(ErrorKind::NotDirectory, "benchmarks run in a directory")
                    .withContext("bench", m_op.display(m_base));
        }
        m_dir = joinPath(m_base, "strata-bench-" + randomSuffix());
        if (caps.has(Capability::CreateDir))
            if (auto st = m_op.createDir(m_dir, true); !st)
                return st;
        return {};
    }

    void cleanup()
    {
        if (m_device && m_wrote && !m_hadData) {
            // Handed back as found: empty.
            (void)m_device->clear(m_regionOffset, m_regionLength);
            (void)m_device->flush();
        }
        m_device.reset();
        if (!m_dir.empty())
            (void)m_op.removeAll(m_dir);
    }

    Operator &op() { return m_op; }
    std::string path(std::string_view name) const { return joinPath(m_dir, name); }

    // An object of `size` bytes for reads and stats, written once.
    Result<std::string> fixture(std::uint64_t size, const std::vector<std::byte> &data)
    {
        auto it = m_fixtures.find(size);
        if (it != m_fixtures.end())
            return it->second;
        std::string p = path("read-" + sizeLabel(size));
        if (auto st = m_op.writeAll(p, std::span(data).first(std::size_t(size))); !st)
            return std::move(st).error();
        m_fixtures.emplace(size, p);
        return p;
    }

    // A directory of kListEntries small objects, written once.
    Result<std::string> listDir()
    {
        if (!m_list.empty())
            return m_list;
        std::string dir = path("list");
        if (m_op.capabilities().has(Capability::CreateDir))
            if (auto st = m_op.createDir(dir, true); !st)
                return std::move(st).error();
        const std::byte one[1] = {std::byte{1}};
        for (int i = 0; i < kListEntries; ++i) {
            std::string name("e");
            name.append(std::to_string(i)); // "e" + … trips GCC 12's -Wrestrict at -O3
            if (auto st = m_op.writeAll(joinPath(dir, name), one); !st)
                return std::move(st).error();
        }
        m_list = dir;
        return dir;
    }

private:
    // Opens the device when the target is a disk image; false when it is not one.
    Result<bool> openImage(const BenchOptions &options)
    {
        const auto profiles = blockProfiles(options);
        const bool writes =
            std::any_of(profiles.begin(), profiles.end(), [](const BlockProfile &p) { return p.op == BenchOp::Write; });
        const Uri uri = m_op.uriFor(m_base);
        if (m_op.capabilities().has(Capability::SingleObject)) {
            if (options.direct)
                return Error(ErrorKind::InvalidInput,
                             "--direct is for local files and block devices; an NBD server keeps its own cache")
                    .withContext("bench", uri.redacted());
            auto device = openStorageDevice(m_op, m_base, writes);
            if (!device)
                return std::move(device).error();
            m_device = std::move(*device);
        } else if (uri.scheme() == "file") {
            auto there = m_op.stat(m_base);
            if (!there)
                return std::move(there).error();
            if (there->isDir())
                return false;
            auto device = openFileDevice(uri.path(), writes, options.direct);
            if (!device)
                return std::move(device).error();
            m_device = std::move(*device);
        } else {
            return false;
        }
        if (!options.mix.empty())
            return Error(ErrorKind::InvalidInput, "a mix draws operations on objects; a disk image is one")
                .withContext("bench", uri.redacted());
        for (const auto &p : profiles)
            if (p.op != BenchOp::Read && p.op != BenchOp::Write)
                return Error(ErrorKind::InvalidInput,
                             "a disk image is read and written in blocks: stat, list and delete are for objects")
                    .withContext("bench", uri.redacted());
        m_writes = writes;
        m_reads =
            std::any_of(profiles.begin(), profiles.end(), [](const BlockProfile &p) { return p.op == BenchOp::Read; });
        m_largest = 0;
        m_widest = 1;
        for (const auto &p : profiles) {
            m_largest = std::max(m_largest, p.blockSize);
            m_widest = std::max(m_widest, p.threads);
        }
        return true;
    }

    // The region: inside the image, aligned for O_DIRECT, big enough for every thread's
    // block; refused for writes where it holds data; filled for reads when found empty.
    Status prepareRegion(const BenchOptions &options)
    {
        const std::string where = m_op.uriFor(m_base).redacted();
        const std::uint64_t size = m_device->size();
        const std::uint64_t align = m_device->alignment();
        m_regionOffset = options.regionOffset;
        if (m_regionOffset >= size)
            return Error(ErrorKind::InvalidInput,
                         "the region starts at byte " + std::to_string(m_regionOffset) + "; the image holds "
                             + std::to_string(size) + " bytes")
                .withContext("bench", where);
        m_regionLength = options.regionLength ? options.regionLength : std::min(kDefaultRegion, size - m_regionOffset);
        if (m_regionLength > size - m_regionOffset)
            return Error(ErrorKind::InvalidInput,
                         "the region ends at byte " + std::to_string(m_regionOffset + m_regionLength)
                             + "; the image holds " + std::to_string(size) + " bytes")
                .withContext("bench", where);
        if (m_regionOffset % align || m_largest % align)
            return Error(ErrorKind::InvalidInput,
                         "with --direct, the region's start and the block sizes must be multiples of "
                             + std::to_string(align) + " bytes")
                .withContext("bench", where);
        // Whole blocks of the largest size for each thread.
        const std::uint64_t unit = m_largest * std::uint64_t(m_widest);
        if (m_regionLength < unit)
            return Error(ErrorKind::InvalidInput,
                         "the region (" + std::to_string(m_regionLength) + " bytes) is smaller than one "
                             + sizeLabel(m_largest) + " block for each of " + std::to_string(m_widest) + " threads")
                .withContext("bench", where);
        m_regionLength = m_regionLength / m_largest * m_largest;
        auto data = m_device->holdsData(m_regionOffset, m_regionLength);
        if (!data)
            return std::move(data).error();
        m_hadData = *data;
        if (m_writes && m_hadData && !options.allowOverwrite)
            return Error(ErrorKind::PermissionDenied,
                         "bytes " + std::to_string(m_regionOffset) + " to "
                             + std::to_string(m_regionOffset + m_regionLength)
                             + " hold data, which the write benchmarks would overwrite: add --allow-overwrite, or "
                               "measure reads only (--ops read)")
                .withContext("bench", where);
        if (m_writes && m_reads && !m_hadData)
            return fillRegion();
        return {};
    }

    // Data to read where there was none (reads of holes measure nothing). Untimed.
    Status fillRegion()
    {
        m_wrote = true;
        const std::size_t chunk = std::size_t(std::min<std::uint64_t>(m_regionLength, 1u << 20));
        AlignedBuffer buffer(chunk, m_device->alignment());
        std::mt19937_64 gen(7);
        for (std::uint64_t pos = 0; pos < m_regionLength; pos += chunk) {
            auto span = buffer.span().first(std::size_t(std::min<std::uint64_t>(chunk, m_regionLength - pos)));
            for (std::size_t i = 0; i + 8 <= span.size(); i += 8) {
                const std::uint64_t v = gen();
                std::memcpy(span.data() + i, &v, 8);
            }
            if (auto st = m_device->writeAt(m_regionOffset + pos, span); !st)
                return st;
        }
        return m_device->flush();
    }

public:
    void markWritten() { m_wrote = true; }

private:
    Operator &m_op;
    std::string m_base;
    std::unique_ptr<BlockDevice> m_device;
    std::uint64_t m_regionOffset = 0;
    std::uint64_t m_regionLength = 0;
    std::uint64_t m_largest = 0;
    int m_widest = 1;
    bool m_writes = false;
    bool m_reads = false;
    bool m_hadData = false;
    bool m_wrote = false;
    std::string m_dir;
    std::map<std::uint64_t, std::string> m_fixtures;
    std::string m_list;
};

} // namespace strata::bench_detail

// A local file as a block device for benchmarks (core/bench/block_device.cpp): its queue
// keeps the depth asked for in flight from one thread (io_uring), every request lands
// where it was asked, and an error ends the queue only after what was in flight is back.
#include "tests/unit/unit_checks.h"

#include "core/bench/block_device.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>

namespace strata {

namespace {

constexpr std::size_t kBlock = 64 * 1024;
constexpr std::size_t kBlocks = 64; // a 4 MiB file

// Aligned for O_DIRECT.
struct Buffers {
    explicit Buffers(std::size_t count) : data(static_cast<std::byte *>(std::aligned_alloc(4096, count * kBlock))) {}
    ~Buffers() { std::free(data); }
    Buffers(const Buffers &) = delete;
    Buffers &operator=(const Buffers &) = delete;
    std::span<std::byte> at(std::size_t i) const { return {data + i * kBlock, kBlock}; }
    std::byte *data;
};

void writeFile(const std::string &path, std::span<const std::byte> bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<std::byte> readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(bytes.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

// Blocks in a scrambled order (each once), so requests in flight cover distant offsets.
std::vector<std::size_t> scrambled(std::size_t count)
{
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < count; ++i)
        order.push_back(i * 37 % count); // 37 is prime to 64
    return order;
}

// What a queue saw: how many requests were asked before the first completed, the most in
// flight at once, a slot handed out twice while in flight, completions.
struct QueueLog {
    std::size_t askedBeforeFirstDone = 0;
    std::size_t maxInFlight = 0;
    std::size_t completed = 0;
    bool slotReused = false;
    std::set<std::size_t> busy;
};

} // namespace

class TestBlockDevice : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir{QDir::currentPath() + QStringLiteral("/block-device-XXXXXX")};

    std::string path(const char *name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

    // Runs `order`'s blocks through the device's queue at `depth`, each request's buffer
    // its slot's; `before` fills a slot's buffer for block b (writes), `after` checks it.
    template <typename Before, typename After>
    Status runQueue(BlockDevice &device, bool write, std::size_t depth, const std::vector<std::size_t> &order,
                    QueueLog &log, Before before, After after, std::uint64_t extraOffset = 0)
    {
        Buffers buffers(depth);
        std::vector<std::size_t> blockOf(depth);
        std::size_t next = 0;
        IoQueue queue;
        queue.depth = depth;
        queue.next = [&](IoQueue::Request &r) {
            if (next == order.size())
                return false;
            if (!log.busy.insert(r.slot).second)
                log.slotReused = true;
            log.maxInFlight = std::max(log.maxInFlight, log.busy.size());
            if (log.completed == 0)
                ++log.askedBeforeFirstDone;
            blockOf[r.slot] = order[next++];
            r.buffer = buffers.at(r.slot);
            r.offset = blockOf[r.slot] * kBlock + extraOffset;
            before(blockOf[r.slot], r.buffer);
            return true;
        };
        queue.done = [&](const IoQueue::Request &r) {
            log.busy.erase(r.slot);
            ++log.completed;
            after(blockOf[r.slot], r.buffer);
        };
        return device.runQueue(write, queue);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The device needs io_uring from this kernel; without it benchmarks fall back to a
        // thread per request, which this test is not about.
        writeFile(path("probe.img"), patternBytes(kBlock, 1));
        auto device = openFileDevice(path("probe.img"), false, false);
        REQUIRE_OK(device);
        QVERIFY2((*device)->queues(), "io_uring is not available to this process");
    }

    void writesAndReadsLandWhereAsked_data()
    {
        QTest::addColumn<bool>("direct");
        QTest::addColumn<int>("depth");
        QTest::newRow("buffered, depth 8") << false << 8;
        QTest::newRow("O_DIRECT, depth 8") << true << 8;
        QTest::newRow("O_DIRECT, depth 32") << true << 32;
        QTest::newRow("buffered, depth 1") << false << 1;
    }

    // Writes of position-dependent blocks in scrambled order, then reads of them back, all
    // through the queue: the file holds exactly what was written where, every request
    // completed once, and the whole depth was in flight before the first completion.
    void writesAndReadsLandWhereAsked()
    {
        QFETCH(bool, direct);
        QFETCH(int, depth);
        const std::string file = path("data.img");
        writeFile(file, std::vector<std::byte>(kBlocks * kBlock, std::byte{0x5a}));
        auto opened = openFileDevice(file, true, direct);
        REQUIRE_OK(opened);
        BlockDevice &device = **opened;
        QVERIFY(device.queues());
        const auto expected = patternBytes(kBlocks * kBlock, 7);
        const auto order = scrambled(kBlocks);

        QueueLog writes;
        REQUIRE_OK(runQueue(
            device, true, std::size_t(depth), order, writes,
            [&](std::size_t b, std::span<std::byte> buf) { std::memcpy(buf.data(), &expected[b * kBlock], kBlock); },
            [](std::size_t, std::span<std::byte>) {}));
        REQUIRE_OK(device.flush());
        QCOMPARE(writes.completed, kBlocks);
        QVERIFY(!writes.slotReused);
        QCOMPARE(writes.maxInFlight, std::size_t(depth));
        QCOMPARE(writes.askedBeforeFirstDone, std::size_t(depth));
        QVERIFY(writes.busy.empty());
        QVERIFY2(readFile(file) == expected, "the file does not hold what the queue wrote");

        QueueLog reads;
        std::size_t wrong = 0;
        REQUIRE_OK(runQueue(
            device, false, std::size_t(depth), order, reads,
            [](std::size_t, std::span<std::byte> buf) { std::memset(buf.data(), 0, buf.size()); },
            [&](std::size_t b, std::span<std::byte> buf) {
                if (std::memcmp(buf.data(), &expected[b * kBlock], kBlock) != 0)
                    ++wrong;
            }));
        QCOMPARE(reads.completed, kBlocks);
        QCOMPARE(wrong, std::size_t(0));
        QVERIFY(!reads.slotReused);
        QCOMPARE(reads.askedBeforeFirstDone, std::size_t(depth));
    }

    // A read that runs past the end of the file fails the queue with the byte it needed;
    // no request is reported done twice, the ones before it are reported, and nothing more
    // is asked for after the error came.
    void aReadPastTheEndFailsTheQueue()
    {
        const std::string file = path("short.img");
        writeFile(file, patternBytes(kBlocks * kBlock, 3));
        auto opened = openFileDevice(file, false, false);
        REQUIRE_OK(opened);
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < kBlocks; ++i)
            order.push_back(i);
        QueueLog log;
        // Shifted by half a block: the last block's read finds the end half-way (a short
        // read, asked again for the rest, which then gets nothing).
        const auto st = runQueue(
            **opened, false, 8, order, log, [](std::size_t, std::span<std::byte>) {},
            [](std::size_t, std::span<std::byte>) {}, kBlock / 2);
        REQUIRE_KIND(st, ErrorKind::Corrupt);
        QVERIFY2(st.error().message().find("ended before byte " + std::to_string(kBlocks * kBlock + kBlock / 2))
                     != std::string::npos,
                 st.error().message().c_str());
        QCOMPARE(log.completed, kBlocks - 1);
        QVERIFY(log.busy.size() == 1); // the failed one: never reported done
        QVERIFY(!log.slotReused);
    }

    // Writes through a device opened for reading: each request fails (EBADF), the first
    // error is the queue's, and the file is unchanged.
    void writesToAReadOnlyFileFail()
    {
        const std::string file = path("ro.img");
        const auto before = patternBytes(kBlocks * kBlock, 5);
        writeFile(file, before);
        auto opened = openFileDevice(file, false, false);
        REQUIRE_OK(opened);
        QueueLog log;
        const auto st = runQueue(
            **opened, true, 8, scrambled(kBlocks), log,
            [](std::size_t, std::span<std::byte> buf) { std::memset(buf.data(), 1, buf.size()); },
            [](std::size_t, std::span<std::byte>) {});
        QVERIFY(!st.ok());
        QVERIFY2(st.error().message().find("ro.img") != std::string::npos, st.error().message().c_str());
        QCOMPARE(log.completed, std::size_t(0));
        QVERIFY2(log.askedBeforeFirstDone <= 8, "requests were asked for after the first error");
        QVERIFY(readFile(file) == before);
    }
};

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestBlockDevice)
#include "test_block_device.moc"

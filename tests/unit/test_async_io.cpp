// ThreadedAsyncIo over the memory backend: many requests, bounded in flight, drained.
#include "tests/unit/unit_checks.h"

#include "backends/memory/memory_backend.h"
#include "core/storage/layer.h"
#include "core/storage/threaded_async_io.h"

#include <QScopeGuard>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

namespace strata {

using namespace std::chrono_literals;

namespace {

// How many calls are inside a section at once, and the most there ever were.
struct ConcurrencyGauge {
    std::atomic<int> current{0};
    std::atomic<int> peak{0};

    void enter()
    {
        const int now = ++current;
        int seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
    }
    void leave() { --current; }
};

// Passes reads through to the memory backend, measuring their concurrency; reads can be
// slowed down, or held at a gate until the test opens it.
class ReadProbe final : public Layer {
public:
    using Layer::Layer;

    ConcurrencyGauge gauge;
    std::atomic<bool> gateOpen{true};
    std::chrono::microseconds delay{0};

    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override
    {
        gauge.enter();
        while (!gateOpen)
            std::this_thread::sleep_for(1ms);
        std::this_thread::sleep_for(delay);
        auto n = Layer::read(path, offset, buffer);
        gauge.leave();
        return n;
    }
};

// Forwards positional writes, measuring their concurrency.
class GaugedWriter final : public Writer {
public:
    GaugedWriter(Writer &inner, ConcurrencyGauge &gauge) : m_inner(inner), m_gauge(gauge) {}
    Status write(std::span<const std::byte> data) override { return m_inner.write(data); }
    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        m_gauge.enter();
        std::this_thread::sleep_for(100us);
        auto st = m_inner.writeAt(offset, data);
        m_gauge.leave();
        return st;
    }
    Status commit() override { return m_inner.commit(); }
    void abort() override { m_inner.abort(); }

private:
    Writer &m_inner;
    ConcurrencyGauge &m_gauge;
};

} // namespace

class TestAsyncIo : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void rangedReadsBoundedInFlight();
    void submitBlocksWhileFull();
    void drainWaitsForEveryCallback();
    void destructionDrains();
    void errorsReachTheCallback();
    void positionalWritesInParallel();

private:
    void put(const std::string &path, std::span<const std::byte> data);

    std::shared_ptr<MemoryBackend> m_memory;
    std::shared_ptr<ReadProbe> m_probe;
    std::vector<std::byte> m_data;
};

void TestAsyncIo::init()
{
    m_memory = std::make_shared<MemoryBackend>("t");
    m_probe = std::make_shared<ReadProbe>(m_memory);
    m_data = patternBytes((1u << 20) + 777, 7);
    put("/data.bin", m_data);
}

void TestAsyncIo::put(const std::string &path, std::span<const std::byte> data)
{
    auto writer = m_memory->write(path, {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(data));
    REQUIRE_OK((*writer)->commit());
}

void TestAsyncIo::rangedReadsBoundedInFlight()
{
    constexpr int kReads = 200;
    m_probe->delay = 300us;
    std::vector<std::vector<std::byte>> buffers(kReads);
    std::vector<std::uint64_t> offsets(kReads);
    std::vector<std::size_t> sizes(kReads, std::size_t(-1));
    std::atomic<int> done{0}, failed{0};
    std::atomic<std::size_t> maxInFlightSeen{0};
    ConcurrencyGauge callbacks;
    // Declared after what its callbacks touch: an early return drains it first.
    auto io = m_probe->openAsync(AsyncOptions{4});
    QVERIFY(io);
    for (int i = 0; i < kReads; ++i) {
        // Spread over the object, unaligned, the last ones running past its end.
        offsets[std::size_t(i)] = i < kReads - 5 ? std::uint64_t(i) * 5237 % m_data.size()
                                                 : m_data.size() - 50 * std::uint64_t(kReads - i);
        buffers[std::size_t(i)].resize(4096 + std::size_t(i % 3) * 1000);
        io->submitRead("/data.bin", offsets[std::size_t(i)], buffers[std::size_t(i)], [&, i](Result<std::size_t> n) {
            callbacks.enter();
            const std::size_t inFlight = io->inFlight();
            std::size_t seen = maxInFlightSeen.load();
            while (inFlight > seen && !maxInFlightSeen.compare_exchange_weak(seen, inFlight)) {
            }
            if (n)
                sizes[std::size_t(i)] = *n;
            else
                ++failed;
            callbacks.leave();
            ++done;
        });
        QVERIFY(io->inFlight() <= 4);
    }
    io->drain();
    QCOMPARE(done.load(), kReads);
    QCOMPARE(failed.load(), 0);
    QCOMPARE(io->inFlight(), std::size_t(0));
    QVERIFY2(m_probe->gauge.peak <= 4, std::to_string(m_probe->gauge.peak).c_str());
    QVERIFY2(m_probe->gauge.peak >= 2, "reads never overlapped");
    QVERIFY(callbacks.peak <= 4);
    QVERIFY(maxInFlightSeen.load() <= 4);
    for (std::size_t i = 0; i < std::size_t(kReads); ++i) {
        const std::uint64_t off = offsets[i];
        const std::size_t expected = std::size_t(std::min<std::uint64_t>(buffers[i].size(), m_data.size() - off));
        QCOMPARE(sizes[i], expected);
        QVERIFY2(std::equal(buffers[i].begin(), buffers[i].begin() + std::ptrdiff_t(expected),
                            m_data.begin() + std::ptrdiff_t(off)),
                 ("read " + std::to_string(i) + " has the wrong bytes").c_str());
    }
}

void TestAsyncIo::submitBlocksWhileFull()
{
    m_probe->gateOpen = false;
    std::vector<std::byte> a(16), b(16), c(16);
    std::atomic<int> done{0};
    auto io = m_probe->openAsync(AsyncOptions{2});
    auto count = [&](Result<std::size_t> n) {
        if (n && *n == 16)
            ++done;
    };
    io->submitRead("/data.bin", 0, a, count);
    io->submitRead("/data.bin", 16, b, count);
    QCOMPARE(io->inFlight(), std::size_t(2));
    std::atomic<bool> submitted{false};
    std::thread third([&] {
        io->submitRead("/data.bin", 32, c, count);
        submitted = true;
    });
    auto cleanup = qScopeGuard([&] {
        m_probe->gateOpen = true;
        third.join();
        io->drain();
    });
    std::this_thread::sleep_for(200ms);
    QVERIFY2(!submitted, "a submission went through with maxInFlight requests outstanding");
    QCOMPARE(done.load(), 0);
    m_probe->gateOpen = true;
    QTRY_VERIFY_WITH_TIMEOUT(submitted.load(), 10000);
    io->drain();
    QCOMPARE(done.load(), 3);
    QVERIFY(std::equal(c.begin(), c.end(), m_data.begin() + 32));
}

void TestAsyncIo::drainWaitsForEveryCallback()
{
    m_probe->delay = 5ms;
    std::vector<std::vector<std::byte>> buffers(12, std::vector<std::byte>(64));
    std::atomic<int> done{0};
    auto io = m_probe->openAsync(AsyncOptions{4});
    for (auto &buffer : buffers)
        io->submitRead("/data.bin", 0, buffer, [&](Result<std::size_t>) {
            std::this_thread::sleep_for(10ms); // a slow callback still counts as in flight
            ++done;
        });
    io->drain();
    QCOMPARE(done.load(), 12);
    QCOMPARE(io->inFlight(), std::size_t(0));
    // Draining an idle queue returns at once.
    io->drain();
}

void TestAsyncIo::destructionDrains()
{
    m_probe->delay = 2ms;
    std::atomic<int> done{0};
    std::vector<std::vector<std::byte>> buffers(20, std::vector<std::byte>(32));
    {
        ThreadedAsyncIo io(*m_probe, AsyncOptions{3});
        for (auto &buffer : buffers)
            io.submitRead("/data.bin", 100, buffer, [&](Result<std::size_t> n) {
                if (n && *n == 32)
                    ++done;
            });
    }
    QCOMPARE(done.load(), 20);
}

void TestAsyncIo::errorsReachTheCallback()
{
    REQUIRE_OK(m_memory->createDir("/dir"));
    std::vector<std::byte> buffer(8);
    std::optional<ErrorKind> missing, directory;
    std::optional<std::size_t> pastEnd;
    auto io = m_memory->openAsync(AsyncOptions{2});
    io->submitRead("/missing", 0, buffer, [&](Result<std::size_t> n) {
        if (!n)
            missing = n.error().kind();
    });
    io->submitRead("/dir", 0, buffer, [&](Result<std::size_t> n) {
        if (!n)
            directory = n.error().kind();
    });
    io->submitRead("/data.bin", m_data.size() + 10, buffer, [&](Result<std::size_t> n) {
        if (n)
            pastEnd = *n;
    });
    io->drain();
    QCOMPARE(missing, std::optional<ErrorKind>(ErrorKind::NotFound));
    QCOMPARE(directory, std::optional<ErrorKind>(ErrorKind::IsDirectory));
    QCOMPARE(pastEnd, std::optional<std::size_t>(0));
}

void TestAsyncIo::positionalWritesInParallel()
{
    constexpr std::size_t kPiece = 4099; // not a divisor of the chunk size: pieces straddle chunks
    const auto data = patternBytes(kPiece * 300 + 17, 11);
    auto opened = m_memory->write("/out.bin", {});
    REQUIRE_OK(opened);
    ConcurrencyGauge gauge;
    GaugedWriter writer(**opened, gauge);

    std::vector<std::uint64_t> offsets;
    for (std::uint64_t off = 0; off < data.size(); off += kPiece)
        offsets.push_back(off);
    std::shuffle(offsets.begin(), offsets.end(), std::mt19937(42));

    std::atomic<int> ok{0}, failed{0};
    auto io = m_memory->openAsync(AsyncOptions{8});
    for (auto off : offsets) {
        const std::size_t len = std::min<std::size_t>(kPiece, data.size() - std::size_t(off));
        io->submitWrite(writer, off, std::span(data).subspan(std::size_t(off), len), [&](Status st) {
            if (st)
                ++ok;
            else
                ++failed;
        });
    }
    io->drain();
    QCOMPARE(ok.load(), int(offsets.size()));
    QCOMPARE(failed.load(), 0);
    QVERIFY(gauge.peak <= 8);
    QVERIFY2(gauge.peak >= 2, "writes never overlapped");
    // Nothing is visible before commit.
    REQUIRE_KIND(m_memory->stat("/out.bin"), ErrorKind::NotFound);
    REQUIRE_OK(writer.commit());

    std::vector<std::byte> back(data.size() + 10);
    auto n = m_memory->read("/out.bin", 0, back);
    REQUIRE_OK(n);
    QCOMPARE(*n, data.size());
    QVERIFY(std::equal(data.begin(), data.end(), back.begin()));
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestAsyncIo)
#include "test_async_io.moc"

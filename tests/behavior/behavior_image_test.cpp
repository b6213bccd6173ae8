#include "tests/behavior/behavior_test.h"

namespace strata {

// The image is a file of the export's size at the root; nothing else exists.
void BehaviorTest::imageStat()
{
    auto e = op().stat("/");
    REQUIRE_OK(e);
    QCOMPARE(int(e->kind), int(EntryKind::File));
    QVERIFY(e->size >= (16u << 20));
    QVERIFY(!e->name.empty());
    REQUIRE_KIND(op().stat("/other"), ErrorKind::NotFound);
    REQUIRE_KIND(op().read("/other", 0, std::span<std::byte>()), ErrorKind::NotFound);
}

// Parts written in any order from several threads read back exactly; what no part
// covered reads as zeros, even where the image held data before.
void BehaviorTest::imageRoundTrip()
{
    NEEDS(PositionalWrite);
    const std::uint64_t size = op().stat("/")->size;
    writeFile("/", patternBytes(std::size_t(size), 21)); // everything holds data first
    constexpr std::size_t part = 1u << 20;
    const std::size_t parts = std::size_t(size / part);
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < parts; i += 3) // every third part, the rest left as gaps
        order.push_back(i);
    std::reverse(order.begin(), order.end());
    const auto data = patternBytes(std::size_t(size), 22);
    WriteOptions options;
    options.sizeHint = size;
    auto writer = op().write("/", options);
    REQUIRE_OK(writer);
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (std::size_t k = std::size_t(t); k < order.size(); k += 4) {
                const std::size_t i = order[k];
                if (!(*writer)->writeAt(i * part, std::span(data).subspan(i * part, part)))
                    failures.fetch_add(1);
            }
        });
    for (auto &t : threads)
        t.join();
    QCOMPARE(failures.load(), 0);
    REQUIRE_OK((*writer)->setLength(size));
    REQUIRE_OK((*writer)->commit());
    std::vector<std::byte> back(static_cast<std::size_t>(size));
    auto n = op().read("/", 0, back);
    REQUIRE_OK(n);
    QCOMPARE(*n, back.size());
    for (std::size_t i = 0; i < parts; ++i) {
        const auto got = std::span(back).subspan(i * part, part);
        if (i % 3 == 0)
            QVERIFY2(std::equal(got.begin(), got.end(), data.begin() + std::ptrdiff_t(i * part)),
                     qPrintable(QString::number(i)));
        else
            QVERIFY2(isAllZero(got.data(), got.size()), qPrintable(QStringLiteral("part %1 should read zeros").arg(i)));
    }
}

// The map covers the image exactly and finds the data written; zeroed ranges are not data.
void BehaviorTest::imageExtents()
{
    NEEDS(Extents);
    NEEDS(PositionalWrite);
    const std::uint64_t size = op().stat("/")->size;
    WriteOptions options;
    options.sizeHint = size;
    auto writer = op().write("/", options);
    REQUIRE_OK(writer);
    const auto island = patternBytes(1u << 20, 23);
    REQUIRE_OK((*writer)->writeAt(5u << 20, island));
    REQUIRE_OK((*writer)->setLength(size));
    REQUIRE_OK((*writer)->commit());
    auto map = op().extents("/");
    REQUIRE_OK(map);
    QVERIFY(!map->empty());
    QCOMPARE(map->front().offset, std::uint64_t(0));
    QCOMPARE(map->back().end(), size);
    std::uint64_t data = 0;
    for (std::size_t i = 0; i < map->size(); ++i) {
        const auto &e = (*map)[i];
        if (i > 0)
            QCOMPARE(e.offset, (*map)[i - 1].end());
        if (e.kind == ExtentKind::Data) {
            data += e.length;
            // Data only around the island (servers may round to their block size).
            QVERIFY2(e.offset < (6u << 20) + (64u << 10) && e.end() > (5u << 20) - (64u << 10),
                     qPrintable(QStringLiteral("data at %1+%2").arg(e.offset).arg(e.length)));
        }
    }
    QVERIFY(data >= island.size());
}

// Nothing is written past the end of the export: each way of trying is NoSpace.
void BehaviorTest::imageTooSmall()
{
    NEEDS(PositionalWrite);
    const std::uint64_t size = op().stat("/")->size;
    WriteOptions options;
    options.sizeHint = size + 1;
    REQUIRE_KIND(op().write("/", options), ErrorKind::NoSpace);
    options.sizeHint = size;
    auto writer = op().write("/", options);
    REQUIRE_OK(writer);
    const auto data = patternBytes(4096, 24);
    REQUIRE_KIND((*writer)->writeAt(size - 100, data), ErrorKind::NoSpace);
    REQUIRE_KIND((*writer)->setLength(size + 4096), ErrorKind::NoSpace);
    (*writer)->abort();
    options.overwrite = false;
    REQUIRE_KIND(op().write("/", options), ErrorKind::AlreadyExists);
}

// Ranged reads at the edges: short at the end, nothing past it; many at once.
void BehaviorTest::imageReads()
{
    const std::uint64_t size = op().stat("/")->size;
    std::vector<std::byte> buf(8192);
    auto n = op().read("/", size - 100, buf);
    REQUIRE_OK(n);
    QCOMPARE(*n, std::size_t(100));
    n = op().read("/", size, buf);
    REQUIRE_OK(n);
    QCOMPARE(*n, std::size_t(0));
    // 128 reads from 16 threads at once.
    std::atomic<int> good{0};
    std::vector<std::vector<std::byte>> buffers(128, std::vector<std::byte>(65536));
    inParallel(16, buffers.size(), [&](std::size_t i) {
        auto r = op().read("/", i * 65536, buffers[i]);
        if (r && *r == 65536)
            good.fetch_add(1);
    });
    QCOMPARE(good.load(), 128);
}

} // namespace strata

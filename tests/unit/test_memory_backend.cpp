// What only the memory backend does: the demo store, shared immutable contents, chunk
// holes, and untorn objects under concurrent writers. (Generic storage behaviour is the
// behaviour suite's job.)
#include "tests/unit/unit_checks.h"

#include "backends/memory/memory_backend.h"
#include "backends/memory/memory_factory.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

namespace strata {

namespace {

constexpr std::uint64_t kChunk = MemoryBackend::ChunkSize;
constexpr std::uint64_t kMiB = 1u << 20;

std::vector<std::byte> readAll(Backend &backend, std::string_view path)
{
    auto entry = backend.stat(path);
    if (!entry)
        return {};
    std::vector<std::byte> out(entry->size);
    auto n = backend.read(path, 0, out);
    out.resize(n ? *n : 0);
    return out;
}

Status put(Backend &backend, std::string_view path, std::span<const std::byte> data)
{
    auto writer = backend.write(path, {});
    if (!writer)
        return std::move(writer).error();
    if (auto st = (*writer)->write(data); !st)
        return st;
    return (*writer)->commit();
}

} // namespace

class TestMemoryBackend : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void demoStoreHasItsSamples();
    void demoDiskImageIsSparse();
    void factoryResolvesStoreNames();
    void factoryRefusesBadStoreUris_data();
    void factoryRefusesBadStoreUris();
    void copyIsIndependentOfLaterChanges();
    void copyKeepsHoles();
    void zeroChunksStayHoles();
    void shrinkingZeroesTheCutTail();
    void etagChangesWithEveryVersion();
    void writerKeepsItsStoreAlive();
    void concurrentWritersNeverTearAnObject();
    void recycledBlocksReadAsZeros();
    void aCopyKeepsItsBlocksWhenTheOriginalIsReplaced();

private:
    std::shared_ptr<MemoryBackend> m_store;
};

void TestMemoryBackend::init()
{
    m_store = std::make_shared<MemoryBackend>("unit");
}

void TestMemoryBackend::demoStoreHasItsSamples()
{
    MemoryFactory factory;
    auto demo = factory.store("demo");
    QVERIFY(demo);

    auto readme = demo->stat("/README.txt");
    REQUIRE_OK(readme);
    QVERIFY(readme->isFile());
    QVERIFY(readme->size > 20);
    QVERIFY(asString(readAll(*demo, "/README.txt")).starts_with("Welcome to Strata"));

    for (const char *dir : {"/docs", "/images", "/data", "/data/logs", "/empty folder"}) {
        auto entry = demo->stat(dir);
        REQUIRE_OK(entry);
        QVERIFY2(entry->isDir(), dir);
    }
    auto docs = demo->list("/docs", {});
    REQUIRE_OK(docs);
    QVERIFY(docs->entries.size() >= 2);
    auto empty = demo->list("/empty folder", {});
    REQUIRE_OK(empty);
    QVERIFY(empty->entries.empty());

    const auto png = readAll(*demo, "/images/strata.png");
    const unsigned char signature[] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    QVERIFY(png.size() > sizeof signature + 25);
    QVERIFY(std::memcmp(png.data(), signature, sizeof signature) == 0);
    QCOMPARE(asString(std::span(png).subspan(12, 4)), std::string("IHDR"));
    QCOMPARE(asString(std::span(png).last(8).first(4)), std::string("IEND"));

    // The same store is handed out again; another name is a new, empty store.
    QVERIFY(factory.store("demo") == demo);
    auto other = factory.store("other");
    QVERIFY(other != demo);
    auto root = other->list("/", {});
    REQUIRE_OK(root);
    QVERIFY(root->entries.empty());
}

void TestMemoryBackend::demoDiskImageIsSparse()
{
    MemoryFactory factory;
    auto demo = factory.store("demo");
    auto entry = demo->stat("/disk.img");
    REQUIRE_OK(entry);
    const std::uint64_t size = 64 * kMiB;
    QCOMPARE(entry->size, size);
    QVERIFY(entry->allocated.has_value());
    QVERIFY2(*entry->allocated <= kMiB, std::to_string(*entry->allocated).c_str());
    QVERIFY(*entry->allocated >= 3 * kChunk);

    auto map = demo->extents("/disk.img");
    REQUIRE_OK(map);
    const std::vector<Extent> expected = {
        {0, kChunk, ExtentKind::Data},
        {kChunk, size / 2 - kChunk, ExtentKind::Hole},
        {size / 2, kChunk, ExtentKind::Data},
        {size / 2 + kChunk, size / 2 - 2 * kChunk, ExtentKind::Hole},
        {size - kChunk, kChunk, ExtentKind::Data},
    };
    QCOMPARE(extentsText(*map), extentsText(expected));

    // Holes read as zeros, data as the pattern written.
    std::vector<std::byte> buffer(4096);
    for (auto [offset, byte] : {std::pair{std::uint64_t(0), 0x5a}, std::pair{kChunk + 4096, 0},
                                std::pair{size / 2, 0x5a}, std::pair{size - 4096, 0x5a}}) {
        auto n = demo->read("/disk.img", offset, buffer);
        REQUIRE_OK(n);
        QCOMPARE(*n, buffer.size());
        QVERIFY2(std::all_of(buffer.begin(), buffer.end(), [&](std::byte b) { return b == std::byte(byte); }),
                 std::to_string(offset).c_str());
    }
}

void TestMemoryBackend::factoryResolvesStoreNames()
{
    MemoryFactory factory;
    auto uri = Uri::parse("memory://demo/docs/getting-started.md");
    REQUIRE_OK(uri);
    auto target = factory.resolve(*uri);
    REQUIRE_OK(target);
    QCOMPARE(target->key, std::string("memory://demo"));
    QCOMPARE(target->path, std::string("/docs/getting-started.md"));
    auto backend = factory.create(*uri, *target, {});
    REQUIRE_OK(backend);
    QCOMPARE(backend->get(), static_cast<Backend *>(factory.store("demo").get()));
    QCOMPARE((*backend)->uriFor("/a b").toString(), std::string("memory://demo/a%20b"));
}

void TestMemoryBackend::factoryRefusesBadStoreUris_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("no store name") << QByteArray("memory:///x");
    QTest::newRow("no authority") << QByteArray("memory:/x");
    QTest::newRow("port") << QByteArray("memory://demo:80/x");
    QTest::newRow("user") << QByteArray("memory://me@demo/x");
    QTest::newRow("dotdot name") << QByteArray("memory://../x");
}

void TestMemoryBackend::factoryRefusesBadStoreUris()
{
    QFETCH(QByteArray, text);
    MemoryFactory factory;
    auto uri = Uri::parse(text.toStdString());
    REQUIRE_OK(uri);
    REQUIRE_KIND(factory.resolve(*uri), ErrorKind::InvalidInput);
}

void TestMemoryBackend::copyIsIndependentOfLaterChanges()
{
    const auto original = patternBytes(3 * kChunk + 5, 1);
    REQUIRE_OK(put(*m_store, "/src", original));
    REQUIRE_OK(m_store->copy("/src", "/dst"));
    QVERIFY(readAll(*m_store, "/dst") == original);

    // Replacing or removing the source later leaves the copy as it was...
    REQUIRE_OK(put(*m_store, "/src", asBytes("changed")));
    QVERIFY(readAll(*m_store, "/dst") == original);
    // ...and so does a positional rewrite of a copy of the copy.
    REQUIRE_OK(m_store->copy("/dst", "/dst2"));
    auto writer = m_store->write("/dst2", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->writeAt(10, asBytes("XYZ")));
    REQUIRE_OK((*writer)->commit());
    QVERIFY(readAll(*m_store, "/dst") == original);
    REQUIRE_OK(m_store->remove("/src", {}));
    QVERIFY(readAll(*m_store, "/dst") == original);
    QCOMPARE(asString(readAll(*m_store, "/src")), std::string());
}

void TestMemoryBackend::copyKeepsHoles()
{
    auto writer = m_store->write("/sparse", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->writeAt(40 * kChunk, patternBytes(100, 2)));
    REQUIRE_OK((*writer)->setLength(100 * kChunk));
    REQUIRE_OK((*writer)->commit());
    REQUIRE_OK(m_store->copy("/sparse", "/copy"));
    auto a = m_store->extents("/sparse");
    auto b = m_store->extents("/copy");
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    QCOMPARE(extentsText(*b), extentsText(*a));
    QCOMPARE(int(b->size()), 3);
    auto entry = m_store->stat("/copy");
    REQUIRE_OK(entry);
    QCOMPARE(entry->size, 100 * kChunk);
    QCOMPARE(*entry->allocated, kChunk);
}

void TestMemoryBackend::zeroChunksStayHoles()
{
    std::vector<std::byte> data(4 * kChunk, std::byte{0});
    std::fill(data.begin(), data.begin() + std::ptrdiff_t(kChunk), std::byte{1});
    std::fill(data.end() - 10, data.end(), std::byte{2});
    REQUIRE_OK(put(*m_store, "/z", data));
    auto map = m_store->extents("/z");
    REQUIRE_OK(map);
    const std::vector<Extent> expected = {
        {0, kChunk, ExtentKind::Data},
        {kChunk, 2 * kChunk, ExtentKind::Hole},
        {3 * kChunk, kChunk, ExtentKind::Data},
    };
    QCOMPARE(extentsText(*map), extentsText(expected));
    auto entry = m_store->stat("/z");
    REQUIRE_OK(entry);
    QCOMPARE(*entry->allocated, 2 * kChunk);
    QVERIFY(readAll(*m_store, "/z") == data);
}

void TestMemoryBackend::shrinkingZeroesTheCutTail()
{
    auto writer = m_store->write("/cut", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(std::vector<std::byte>(2 * kChunk + 100, std::byte{0xab})));
    REQUIRE_OK((*writer)->setLength(70000));
    REQUIRE_OK((*writer)->setLength(150000)); // grows again: the cut bytes must not come back
    REQUIRE_OK((*writer)->commit());
    const auto back = readAll(*m_store, "/cut");
    QCOMPARE(back.size(), std::size_t(150000));
    QVERIFY(std::all_of(back.begin(), back.begin() + 70000, [](std::byte b) { return b == std::byte{0xab}; }));
    QVERIFY(std::all_of(back.begin() + 70000, back.end(), [](std::byte b) { return b == std::byte{0}; }));
}

// Blocks of replaced or removed contents are reused: whatever they held must never show
// through in the holes and tails of the contents that reuse them.
void TestMemoryBackend::recycledBlocksReadAsZeros()
{
    const std::vector<std::byte> dirty(4 * kChunk, std::byte{0xee});
    for (int i = 0; i < 3; ++i)
        REQUIRE_OK(m_store->put("/dirty", dirty, {}));
    REQUIRE_OK(m_store->remove("/dirty", {})); // its blocks go back to the pool

    auto writer = m_store->write("/reuse", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->writeAt(kChunk + 10, asBytes("mid")));
    REQUIRE_OK((*writer)->writeAt(3 * kChunk - 2, asBytes("edge")));
    REQUIRE_OK((*writer)->setLength(4 * kChunk));
    REQUIRE_OK((*writer)->commit());
    REQUIRE_OK(m_store->put("/short", asBytes("abc"), {}));

    const auto back = readAll(*m_store, "/reuse");
    QCOMPARE(back.size(), std::size_t(4 * kChunk));
    std::vector<std::byte> expected(4 * kChunk);
    std::memcpy(expected.data() + kChunk + 10, "mid", 3);
    std::memcpy(expected.data() + 3 * kChunk - 2, "edge", 4);
    QVERIFY(back == expected);
    QCOMPARE(readAll(*m_store, "/short").size(), std::size_t(3));
    // Growing past a reused block's end shows zeros too.
    auto grow = m_store->write("/short", {});
    REQUIRE_OK(grow);
    REQUIRE_OK((*grow)->write(asBytes("abc")));
    REQUIRE_OK((*grow)->setLength(1000));
    REQUIRE_OK((*grow)->commit());
    const auto grown = readAll(*m_store, "/short");
    QCOMPARE(grown.size(), std::size_t(1000));
    QVERIFY(std::all_of(grown.begin() + 3, grown.end(), [](std::byte b) { return b == std::byte{0}; }));
}

// A copy shares the original's blocks: replacing the original many times (its old blocks
// recycled each time) leaves the copy's bytes as they were.
void TestMemoryBackend::aCopyKeepsItsBlocksWhenTheOriginalIsReplaced()
{
    const std::vector<std::byte> first(3 * kChunk, std::byte{0x11});
    REQUIRE_OK(m_store->put("/orig", first, {}));
    REQUIRE_OK(m_store->copy("/orig", "/copy"));
    for (int i = 0; i < 5; ++i)
        REQUIRE_OK(m_store->put("/orig", std::vector<std::byte>(3 * kChunk, std::byte(0x20 + i)), {}));
    QVERIFY(readAll(*m_store, "/copy") == first);
    REQUIRE_OK(m_store->remove("/copy", {}));
    REQUIRE_OK(m_store->put("/other", std::vector<std::byte>(3 * kChunk, std::byte{0x77}), {}));
    QVERIFY(readAll(*m_store, "/orig") == std::vector<std::byte>(3 * kChunk, std::byte{0x24}));
}

void TestMemoryBackend::etagChangesWithEveryVersion()
{
    REQUIRE_OK(put(*m_store, "/v", asBytes("one")));
    auto first = m_store->stat("/v");
    REQUIRE_OK(first);
    QVERIFY(!first->etag.empty());
    REQUIRE_OK(put(*m_store, "/v", asBytes("one")));
    auto second = m_store->stat("/v");
    REQUIRE_OK(second);
    QVERIFY(second->etag != first->etag); // a new version, even with the same bytes
    REQUIRE_OK(m_store->copy("/v", "/w"));
    auto copy = m_store->stat("/w");
    REQUIRE_OK(copy);
    QVERIFY(copy->etag != second->etag);
}

void TestMemoryBackend::writerKeepsItsStoreAlive()
{
    auto writer = m_store->write("/late", {});
    REQUIRE_OK(writer);
    std::weak_ptr<MemoryBackend> weak = m_store;
    m_store.reset();
    QVERIFY(!weak.expired());
    REQUIRE_OK((*writer)->write(asBytes("still works")));
    REQUIRE_OK((*writer)->commit());
    auto store = weak.lock();
    QVERIFY(store);
    QCOMPARE(asString(readAll(*store, "/late")), std::string("still works"));
    store.reset();
    writer->reset();
    QVERIFY(weak.expired());
}

void TestMemoryBackend::concurrentWritersNeverTearAnObject()
{
    // Every version is one byte value repeated, its length derived from that value, and
    // spans several chunks: a read mixing two versions shows as a wrong byte or length.
    auto sizeFor = [](unsigned value) { return std::size_t(3 * kChunk + value * 37); };
    REQUIRE_OK(put(*m_store, "/hot", std::vector<std::byte>(sizeFor(1), std::byte{1})));

    std::atomic<bool> stop{false};
    std::atomic<int> torn{0}, reads{0}, writes{0}, failures{0};
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < 3; ++w) {
        threads.emplace_back([&, w] {
            // At least 150 versions each, and on until the readers have seen plenty (the
            // writers can be done before a reader thread is even scheduled).
            for (unsigned k = 0; k < 150 || (reads.load() < 200 && k < 1000000); ++k) {
                const unsigned value = 1 + (w * 150 + k) % 250;
                const std::vector<std::byte> data(sizeFor(value), std::byte(value));
                auto writer = m_store->write("/hot", {});
                // Written in uneven pieces so a version is built over several calls.
                bool ok = bool(writer);
                for (std::size_t off = 0; ok && off < data.size(); off += 50000)
                    ok = bool((*writer)->write(
                        std::span(data).subspan(off, std::min<std::size_t>(50000, data.size() - off))));
                if (ok && (*writer)->commit())
                    ++writes;
                else
                    ++failures;
            }
        });
    }
    for (int r = 0; r < 3; ++r) {
        threads.emplace_back([&] {
            std::vector<std::byte> buffer(sizeFor(255) + 100);
            while (!stop) {
                auto n = m_store->read("/hot", 0, buffer);
                if (!n) {
                    ++failures;
                    continue;
                }
                const unsigned value = unsigned(buffer[0]);
                const bool whole = *n == sizeFor(value)
                    && std::all_of(buffer.begin(), buffer.begin() + std::ptrdiff_t(*n),
                                   [&](std::byte b) { return b == std::byte(value); });
                if (!whole)
                    ++torn;
                ++reads;
            }
        });
    }
    for (std::size_t i = 0; i < 3; ++i)
        threads[i].join();
    stop = true;
    for (std::size_t i = 3; i < threads.size(); ++i)
        threads[i].join();
    QCOMPARE(failures.load(), 0);
    QVERIFY(writes.load() >= 450);
    QCOMPARE(torn.load(), 0);
    QVERIFY(reads.load() >= 200);
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestMemoryBackend)
#include "test_memory_backend.moc"

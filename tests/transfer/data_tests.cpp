// What arrives: sparse files, zstd, verification, changed sources, existing destinations.
#include "tests/transfer/transfer_suite.h"

#include <QElapsedTimer>

#include <sys/stat.h>

namespace strata::test {

namespace {

std::string text(Operator &op, const std::string &path)
{
    auto bytes = op.readAll(path);
    return bytes ? std::string(reinterpret_cast<const char *>(bytes->data()), bytes->size())
                 : "error: " + bytes.error().message();
}

std::uint64_t dataBytes(const std::vector<Extent> &map)
{
    std::uint64_t n = 0;
    for (const auto &e : map)
        n += e.kind == ExtentKind::Data ? e.length : 0;
    return n;
}

} // namespace

void TransferSuite::sparseStaysSparse()
{
    const auto srcCaps = m_src->caps();
    if (!srcCaps.has(Capability::Extents) || !srcCaps.has(Capability::PositionalWrite)
        || !m_dst->caps().has(Capability::PositionalWrite))
        QSKIP("needs a source that maps extents and a destination that writes at offsets");
    // 256 MiB with three 64 KiB data regions: start, middle and end.
    const std::uint64_t size = 256u << 20, region = 64u << 10;
    const std::vector<std::uint64_t> offsets{0, 100u << 20, size - region};
    {
        auto writer = m_src->op().write(m_src->path("sparse.img"));
        QVERIFY(writer);
        for (auto offset : offsets)
            QVERIFY((*writer)->writeAt(offset, pattern(region, offset)));
        QVERIFY((*writer)->setLength(size));
        QVERIFY((*writer)->commit());
    }
    auto srcMap = m_src->op().extents(m_src->path("sparse.img"));
    QVERIFY(srcMap);
    if (dataBytes(*srcMap) > (4u << 20))
        QSKIP("this source's storage does not keep holes");
    const auto expected = digest(m_src->op(), m_src->path("sparse.img"));

    // Through the kernel where it can (no verify), then through our buffers (verify).
    for (bool verify : {false, true}) {
        auto o = options();
        o.verify = verify;
        const std::string name = verify ? "verified.img" : "plain.img";
        auto out = run(spec({m_src->uri("sparse.img")}, m_dst->uri(name), o));
        REQUIRE_COMPLETED(out);
        QCOMPARE(out.report.filesVerified, verify ? 1u : 0u);
        QCOMPARE(digest(m_dst->op(), m_dst->path(name)), expected);
        // Holes were not read: only the data regions moved.
        QVERIFY2(out.report.bytesCopied <= (1u << 20), std::to_string(out.report.bytesCopied).c_str());
        QVERIFY(out.report.bytesThroughBuffers <= (1u << 20));
        // And the copy is as sparse as its source.
        if (auto local = m_dst->localPath(name)) {
            struct stat st {};
            QVERIFY(::stat(local->c_str(), &st) == 0);
            QVERIFY2(std::uint64_t(st.st_blocks) * 512 < (4u << 20), std::to_string(st.st_blocks).c_str());
        } else if (m_dst->caps().has(Capability::Extents)) {
            auto dstMap = m_dst->op().extents(m_dst->path(name));
            QVERIFY(dstMap);
            QVERIFY(dataBytes(*dstMap) < (4u << 20));
            QVERIFY(std::any_of(dstMap->begin(), dstMap->end(), [](const Extent &e) { return e.readsAsZero(); }));
        }
        // Progress counts holes as done: a finished sparse copy reads 100 %, not 0 %.
        const auto ticks = m_observer.ticks(out.id);
        QVERIFY(!ticks.empty());
        QCOMPARE(ticks.back().progress.bytesDone, ticks.back().progress.bytesTotal);
        QCOMPARE(ticks.back().progress.bytesTotal, size);
    }
}

void TransferSuite::zstdRoundTrip()
{
    const auto plain = compressibleText((4u << 20) + 123);
    QVERIFY(putBytes(m_src->op(), m_src->path("doc.txt"), plain));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("noise.bin"), (3u << 20) + 7, 11));
    auto o = options();
    o.verify = true;

    // Compressed on the way there: smaller, a valid zstd frame.
    auto there = run(spec({m_src->uri("doc.txt")}, m_dst->uri("doc.txt.zst"), o));
    REQUIRE_COMPLETED(there);
    QCOMPARE(there.report.filesVerified, 1u);
    auto packed = m_dst->op().stat(m_dst->path("doc.txt.zst"));
    QVERIFY(packed);
    QVERIFY2(packed->size < plain.size() / 4, std::to_string(packed->size).c_str());
    std::array<std::byte, 4> magic{};
    auto n = m_dst->op().read(m_dst->path("doc.txt.zst"), 0, magic);
    QVERIFY(n && *n == 4);
    QCOMPARE(magic, (std::array<std::byte, 4>{std::byte(0x28), std::byte(0xb5), std::byte(0x2f), std::byte(0xfd)}));

    // Decompressed on the way back: byte-exact.
    auto back = run(spec({m_dst->uri("doc.txt.zst")}, m_src->uri("doc.back.txt"), o));
    REQUIRE_COMPLETED(back);
    QCOMPARE(back.report.filesVerified, 1u);
    QCOMPARE(digest(m_src->op(), m_src->path("doc.back.txt")), digest(m_src->op(), m_src->path("doc.txt")));

    // Incompressible data survives the round trip too.
    REQUIRE_COMPLETED(run(spec({m_src->uri("noise.bin")}, m_dst->uri("noise.bin.zst"), o)));
    REQUIRE_COMPLETED(run(spec({m_dst->uri("noise.bin.zst")}, m_src->uri("noise.back"), o)));
    QCOMPARE(digest(m_src->op(), m_src->path("noise.back")), digest(m_src->op(), m_src->path("noise.bin")));

    // A damaged .zst fails as Corrupt and leaves nothing under the name.
    auto damaged = m_dst->op().readAll(m_dst->path("doc.txt.zst"));
    QVERIFY(damaged);
    damaged->resize(damaged->size() / 2);
    QVERIFY(putBytes(m_src->op(), m_src->path("cut.txt.zst"), *damaged));
    auto cut = run(spec({m_src->uri("cut.txt.zst")}, m_dst->uri("cut.txt"), options()));
    QCOMPARE_STATE(cut.state, JobState::Failed);
    QCOMPARE(cut.report.failures.size(), std::size_t(1));
    QCOMPARE(cut.report.failures[0].kind, ErrorKind::Corrupt);
    QVERIFY(!exists(m_dst->op(), m_dst->path("cut.txt")));
    QCOMPARE(names(m_dst->op(), m_dst->path()), (std::vector<std::string>{"doc.txt.zst", "noise.bin.zst"}));
}

void TransferSuite::verifyCountsCheckedFiles()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("v/sub")));
    for (int i = 0; i < 5; ++i)
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path("v/sub/f" + std::to_string(i)), 3000u * std::uint64_t(i),
                                std::uint64_t(i)));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("v/large.bin"), (20u << 20) + 5, 8)); // three parts
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("v/empty"), 0, 0));
    auto o = options();
    o.verify = true;
    o.recursive = true;
    auto out = run(spec({m_src->uri("v")}, m_dst->uri(), o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(out.report.filesCopied, 7u);
    QCOMPARE(out.report.filesVerified, 7u);
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("v")), snapshot(m_src->op(), m_src->path("v")));
}

void TransferSuite::sourceChangedDuringCopyFails()
{
    const std::uint64_t size = 48u << 20;
    QElapsedTimer writing;
    writing.start();
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("moving.bin"), size, 1));
    const std::string before = digest(m_src->op(), m_src->path("moving.bin"));
    // The copy must outlast the rewrite below, however slow this build writes (a
    // ThreadSanitizer build: ten times slower): at least 0.75 s, and four writes' time.
    const double writeSeconds = double(writing.elapsed()) / 1000.0;
    auto o = options();
    o.bandwidthLimit = std::uint64_t(double(size) / std::max(0.75, 4 * writeSeconds));
    const auto id = start(spec({m_src->uri("moving.bin")}, m_dst->uri("moving.bin"), o));
    QVERIFY(!id.empty());
    QVERIFY(waitForBytes(id, 4u << 20));
    // Rewritten midway, same size, other bytes.
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("moving.bin"), size, 2));
    auto out = finish(id);
    // A storage that keeps whole seconds and no version tag (SFTP v3) cannot tell a rewrite
    // within the same second: the copy may then complete, but only as the one whole version
    // it opened, never a mix of both.
    auto listed = m_src->op().stat(m_src->path("moving.bin"));
    QVERIFY(listed.ok());
    const bool secondsOnly = listed->etag.empty() && listed->mtimeNs && *listed->mtimeNs % 1'000'000'000 == 0;
    if (secondsOnly && out.state == JobState::Completed) {
        QCOMPARE(digest(m_dst->op(), m_dst->path("moving.bin")), before);
        return;
    }
    QCOMPARE_STATE(out.state, JobState::Failed);
    QCOMPARE(out.report.failures.size(), std::size_t(1));
    QCOMPARE(out.report.failures[0].kind, ErrorKind::Corrupt);
    QVERIFY2(out.report.failures[0].message.find("changed") != std::string::npos,
             out.report.failures[0].message.c_str());
    // Nothing under the final name, and no partial file beside it.
    QVERIFY(!exists(m_dst->op(), m_dst->path("moving.bin")));
    QCOMPARE(names(m_dst->op(), m_dst->path()), std::vector<std::string>{});
}

void TransferSuite::existingDestination_data()
{
    QTest::addColumn<int>("policy");
    QTest::addColumn<quint64>("size");
    for (auto [name, policy] : {std::pair{"fail", ExistingPolicy::Fail}, std::pair{"skip", ExistingPolicy::Skip},
                                std::pair{"overwrite", ExistingPolicy::Overwrite}}) {
        QTest::addRow("%s, small", name) << int(policy) << quint64(1000);
        QTest::addRow("%s, in parts", name) << int(policy) << quint64(20u << 20);
    }
}

void TransferSuite::existingDestination()
{
    QFETCH(int, policy);
    QFETCH(quint64, size);
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("f.bin"), size, 1));
    QVERIFY(putBytes(m_dst->op(), m_dst->path("f.bin"), asBytes("the old content")));
    auto o = options();
    o.existing = ExistingPolicy(policy);
    auto out = run(spec({m_src->uri("f.bin")}, m_dst->uri("f.bin"), o));
    switch (o.existing) {
    case ExistingPolicy::Fail:
        QCOMPARE_STATE(out.state, JobState::Failed);
        QCOMPARE(out.report.failures.size(), std::size_t(1));
        QCOMPARE(out.report.failures[0].kind, ErrorKind::AlreadyExists);
        QVERIFY2(out.report.failures[0].message.find("f.bin") != std::string::npos,
                 out.report.failures[0].message.c_str());
        QCOMPARE(text(m_dst->op(), m_dst->path("f.bin")), std::string("the old content"));
        break;
    case ExistingPolicy::Skip:
        REQUIRE_COMPLETED(out);
        QCOMPARE(out.report.filesSkipped, 1u);
        QCOMPARE(out.report.filesCopied, 0u);
        QCOMPARE(text(m_dst->op(), m_dst->path("f.bin")), std::string("the old content"));
        break;
    case ExistingPolicy::Overwrite:
        REQUIRE_COMPLETED(out);
        QCOMPARE(out.report.filesCopied, 1u);
        QCOMPARE(digest(m_dst->op(), m_dst->path("f.bin")), digest(m_src->op(), m_src->path("f.bin")));
        break;
    }
    QCOMPARE(names(m_dst->op(), m_dst->path()), std::vector<std::string>{"f.bin"});
    QVERIFY(journalFiles().empty()); // done, or failed with nothing to resume
}

} // namespace strata::test

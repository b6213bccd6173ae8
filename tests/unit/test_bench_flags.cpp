// The flags a benchmark report carries: where it ran (in-process, loopback), a busy client,
// reads the page cache may answer, and a median too uncertain to read.
#include "tests/unit/unit_checks.h"

#include "core/bench/bench_flags.h"

#include <QTest>

namespace strata {

namespace {

std::vector<BenchRun> runs(const std::string &name, BenchOp op, std::uint64_t size, std::vector<double> ns,
                           double busy = 0.5)
{
    std::vector<BenchRun> out;
    for (double v : ns) {
        BenchRun r;
        r.name = name;
        r.op = op;
        r.size = size;
        r.nsPerOp = v;
        r.clientBusy = busy;
        out.push_back(r);
    }
    return out;
}

std::string kinds(const std::vector<BenchFlag> &flags)
{
    std::string out;
    for (const auto &f : flags)
        out += (out.empty() ? "" : " ") + f.kind + (f.benchmark.empty() ? "" : ":" + f.benchmark);
    return out;
}

} // namespace

class TestBenchFlags : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void whereItRan()
    {
        const auto steady = runs("Stat", BenchOp::Stat, 0, {100, 100, 100});
        QCOMPARE(kinds(checkRuns(steady, {"memory", "", 0})), std::string("in-process"));
        QCOMPARE(kinds(checkRuns(steady, {"s3", "127.0.0.1", 0})), std::string("loopback"));
        QCOMPARE(kinds(checkRuns(steady, {"webdav", "::1", 0})), std::string("loopback"));
        QCOMPARE(kinds(checkRuns(steady, {"webdav", "[::1]", 0})), std::string("loopback"));
        QCOMPARE(kinds(checkRuns(steady, {"s3", "127.0.0.53", 0})), std::string("loopback"));
        QCOMPARE(kinds(checkRuns(steady, {"s3", "localhost", 0})), std::string("loopback"));
        QCOMPARE(kinds(checkRuns(steady, {"nbd+unix", "", 0})), std::string("loopback"));
        QCOMPARE(kinds(checkRuns(steady, {"s3", "s3.example.org", 0})), std::string());
    }

    void aBusyClient()
    {
        auto r = runs("Write/4KiB", BenchOp::Write, 4096, {100, 100, 100}, 0.95);
        QCOMPARE(kinds(checkRuns(r, {"s3", "s3.example.org", 0})), std::string("cpu-bound:Write/4KiB"));
        r = runs("Write/4KiB", BenchOp::Write, 4096, {100, 100, 100}, 0.6);
        QCOMPARE(kinds(checkRuns(r, {"s3", "s3.example.org", 0})), std::string());
    }

    void readsThePageCacheMayAnswer()
    {
        const auto r = runs("Read/4MiB", BenchOp::Read, 4 << 20, {100, 100, 100});
        QCOMPARE(kinds(checkRuns(r, {"file", "", 1ull << 30})), std::string("page-cache:Read/4MiB"));
        QCOMPARE(kinds(checkRuns(r, {"file", "", 1 << 20})), std::string()); // bigger than free memory
        QCOMPARE(kinds(checkRuns(r, {"s3", "s3.example.org", 1ull << 30})), std::string());
    }

    void anUncertainMedian()
    {
        // Six runs bound the median at 95 % by the smallest and largest: ±20 % here.
        auto r = runs("Read/4KiB", BenchOp::Read, 4096, {100, 100, 100, 150, 150, 150});
        auto flags = checkRuns(r, {"s3", "s3.example.org", 0});
        QCOMPARE(kinds(flags), std::string("variation:Read/4KiB"));
        QVERIFY2(flags[0].detail.find("±20 %") != std::string::npos, flags[0].detail.c_str());
        r = runs("Read/4KiB", BenchOp::Read, 4096, {100, 101, 99, 100, 100, 101});
        QCOMPARE(kinds(checkRuns(r, {"s3", "s3.example.org", 0})), std::string());
        // Too few runs to bound it: not flagged as varying (benchstat says so itself).
        r = runs("Read/4KiB", BenchOp::Read, 4096, {100, 200});
        QCOMPARE(kinds(checkRuns(r, {"s3", "s3.example.org", 0})), std::string());
    }

    void commentLines()
    {
        const std::vector<BenchFlag> flags = {{"", "loopback", "here"}, {"Read/4KiB", "cpu-bound", "busy"}};
        QCOMPARE(flagLines(flags), std::string("# flag loopback: here\n# flag cpu-bound Read/4KiB: busy\n"));
        // Read back from a saved run, other lines skipped.
        const auto back = flagsIn("BenchmarkRead/4KiB-2 1 1 ns/op\n" + flagLines(flags) + "# other comment\n");
        QCOMPARE(back.size(), std::size_t(2));
        QCOMPARE(back[0].kind + "|" + back[0].benchmark + "|" + back[0].detail, std::string("loopback||here"));
        QCOMPARE(back[1].kind + "|" + back[1].benchmark + "|" + back[1].detail,
                 std::string("cpu-bound|Read/4KiB|busy"));
    }
};

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestBenchFlags)
#include "test_bench_flags.moc"

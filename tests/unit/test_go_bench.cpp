// The Go benchmark text format: the parser on real `go test -bench -benchmem` output
// (noise lines, configuration, units), its round trip through the writer, Go's float
// formatting, and text that is not UTF-8.
#include "tests/unit/unit_checks.h"

#include "tests/unit/bench_samples.h"

#include <QTest>

#include <cmath>
#include <limits>

namespace strata {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

class TestGoBench : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesGoTestOutput();
    void roundTripsThroughTheWriter();
    void writerOutputIsGoLike();
    void rejectsTextThatIsNotUtf8();
    void goFloatFormatting();
};

void TestGoBench::parsesGoTestOutput()
{
    std::vector<std::string> warnings;
    const auto results = parse(kGoTest, &warnings);
    QCOMPARE(int(results.size()), 10);

    const auto &put = results[0];
    QCOMPARE(put.name, std::string("Put/size=4KiB"));
    QCOMPARE(put.procs, 8);
    QCOMPARE(put.fullName(), std::string("Put/size=4KiB-8"));
    QCOMPARE(put.iterations, std::uint64_t(120000));
    QCOMPARE(int(put.values.size()), 4);
    QCOMPARE(put.values[0], (std::pair<std::string, double>{"ns/op", 9876}));
    QCOMPARE(put.values[1], (std::pair<std::string, double>{"MB/s", 414.73}));
    QCOMPARE(put.values[2], (std::pair<std::string, double>{"B/op", 4200}));
    QCOMPARE(put.values[3], (std::pair<std::string, double>{"allocs/op", 12}));
    QCOMPARE(*put.configValue("goos"), std::string("linux"));
    QCOMPARE(*put.configValue("pkg"), std::string("example.com/strata/store"));
    QCOMPARE(*put.configValue("cpu"), std::string("Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz"));
    QCOMPARE(put.config.front().first, std::string("goos")); // in the order of the lines
    QCOMPARE(put.config.back().first, std::string("cpu"));

    QCOMPARE(results[4].fullName(), std::string("Get-8"));
    QCOMPARE(results[6].name, std::string("List"));
    QCOMPARE(*results[6].value("hit-ratio"), 0.5); // a custom unit
    QCOMPARE(results[7].name, std::string("Walk/depth=3/files=1000"));
    QCOMPARE(*results[7].configValue("pkg"), std::string("example.com/strata/walk"));
    QCOMPARE(results[9].name, std::string("Single"));
    QCOMPARE(results[9].procs, 0);
    QCOMPARE(results[9].fullName(), std::string("Single"));
    QCOMPARE(*results[9].value("ns/op"), 12.5);

    // The torn line and the value without a unit are reported with their line numbers;
    // PASS, ok, --- FAIL, log lines and the bare name printed by -v are not.
    QCOMPARE(warnings,
             (std::vector<std::string>{"line 16: parsing iteration count: invalid syntax", "line 26: missing units"}));

    // Configuration: a later value replaces, an empty one deletes.
    const auto cfg = parse("a: 1\nb: 2\nBenchmarkX 1 1 ns/op\na: 3\nb:\nBenchmarkX 1 2 ns/op\n");
    QCOMPARE(cfg[0].config, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "2"}}));
    QCOMPARE(cfg[1].config, (std::vector<std::pair<std::string, std::string>>{{"a", "3"}}));
    // Not configuration: upper case, no space after the colon, a leading space.
    const auto none = parse("Key: v\nfile.go:12: v\n key: v\nBenchmarkX 1 1 ns/op\n");
    QVERIFY(none[0].config.empty());

    // Other malformed lines, CRLF line ends, names that only look like a -N suffix.
    warnings.clear();
    const auto odd = parse("BenchmarkA-8 10\r\nBenchmarkB x 1 ns/op\r\nBenchmarkC 1 one ns/op\r\n"
                           "BenchmarkD/n=-1 5 7 ns/op\r\nBenchmarkE-08 5 7 ns/op\r\nBenchmarkF-8 5 7 ns/op\r\n",
                           &warnings);
    QCOMPARE(
        warnings,
        (std::vector<std::string>{"line 1: missing measurements", "line 2: parsing iteration count: invalid syntax",
                                  "line 3: parsing measurement: invalid syntax: one"}));
    QCOMPARE(int(odd.size()), 3);
    QCOMPARE(odd[0].name, std::string("D/n="));
    QCOMPARE(odd[0].procs, 1);
    QCOMPARE(odd[1].name, std::string("E-08"));
    QCOMPARE(odd[1].procs, 0);
    QCOMPARE(odd[2].values.back().second, 7.0);

    // Unit metadata.
    BenchUnitMetadata units;
    warnings.clear();
    parse("Unit text-bytes assume=exact better=lower\nUnit text-bytes assume=nothing\nUnit\n", &warnings, &units);
    QCOMPARE(units["text-bytes"]["assume"], std::string("exact"));
    QCOMPARE(units["text-bytes"]["better"], std::string("lower"));
    QCOMPARE(warnings,
             (std::vector<std::string>{"line 2: metadata assume of unit text-bytes already set to exact",
                                       "line 3: missing unit"}));
}

void TestGoBench::roundTripsThroughTheWriter()
{
    const auto results = parse(kGoTest);
    const std::string text = formatGoBench(results);
    std::vector<std::string> warnings;
    QCOMPARE(parse(text, &warnings), results);
    QVERIFY(warnings.empty());

    // Values that Go's own fixed formats would round, configuration that changes order,
    // loses keys and gains new ones.
    std::vector<BenchResult> made;
    BenchResult r;
    r.name = "Write/4KiB/memory";
    r.procs = 2;
    r.iterations = 1000;
    r.values = {{"ns/op", 1234.5678}, {"MB/s", 3321.3}, {"B/op", 0}, {"allocs/op", 0}, {"sec/op", 1.25e-7}};
    r.config = {{"goos", "linux"}, {"goarch", "amd64"}, {"pkg", "strata"}, {"cpu", "Example CPU @ 2.00GHz"}};
    made.push_back(r);
    r.values = {{"ns/op", 1e21}, {"custom-unit", -0.001}};
    r.config = {{"goos", "linux"}, {"pkg", "strata"}, {"label", "run 2"}};
    made.push_back(r);
    r.config = {{"label", "run 2"}, {"goos", "linux"}};
    r.procs = 0;
    r.name = "Read";
    made.push_back(r);
    r.config.clear();
    made.push_back(r);
    QCOMPARE(parse(formatGoBench(made)), made);

    // Carriage returns at the end of a configuration line are line-end debris, however many
    // (found by fuzzing: one was kept in the value, then taken for the line end on reading
    // the written text back).
    const auto crlf = parse("note: made on Windows\r\r\r\nBenchmarkX-2 10 5 ns/op\r\n");
    QCOMPARE(crlf.size(), std::size_t(1));
    QCOMPARE(crlf[0].config, (std::vector<std::pair<std::string, std::string>>{{"note", "made on Windows"}}));
    QCOMPARE(parse(formatGoBench(crlf)), crlf);
}

void TestGoBench::writerOutputIsGoLike()
{
    BenchResult r;
    r.name = "Read/4KiB/memory";
    r.procs = 2;
    r.iterations = 1000;
    r.values = {{"ns/op", 1234}, {"MB/s", 3321.3}, {"B/op", 0}, {"allocs/op", 0}};
    r.config = {{"goos", "linux"}, {"goarch", "amd64"}, {"pkg", "strata"}, {"cpu", "Example CPU"}};
    BenchResult w = r;
    w.name = "Write/16MiB/memory";
    w.iterations = 12;
    w.values = {{"ns/op", 70123456}, {"MB/s", 239.25}, {"B/op", 512}, {"allocs/op", 2}};
    QCOMPARE(formatGoBench({r, w}),
             std::string("goos: linux\ngoarch: amd64\npkg: strata\ncpu: Example CPU\n"
                         "BenchmarkRead/4KiB/memory-2  \t    1000\t      1234 ns/op\t    3321.3 MB/s\t         0 "
                         "B/op\t         0 allocs/op\n"
                         "BenchmarkWrite/16MiB/memory-2\t      12\t  70123456 ns/op\t    239.25 MB/s\t       512 "
                         "B/op\t         2 allocs/op\n"));
}

void TestGoBench::rejectsTextThatIsNotUtf8()
{
    REQUIRE_KIND(parseGoBench("goos: linux\nBenchmarkX 1 1 ns/op\nbad: \xff\xfe\n"), ErrorKind::InvalidInput);
    QVERIFY(parseGoBench("goos: linux\nBenchmarkX 1 1 ns/op\nbad: \xff\n").error().cause().find("line 3")
            != std::string::npos);
    REQUIRE_OK(parseGoBench("cpu: caf\xc3\xa9 \xc2\xb5\n"));
    REQUIRE_OK(parseGoBench(""));
}

void TestGoBench::goFloatFormatting()
{
    QCOMPARE(formatGoFloat(1.7180000000000001e-06), std::string("1.7180000000000001e-06"));
    QCOMPARE(formatGoFloat(3.0655e-06), std::string("3.0655e-06"));
    QCOMPARE(formatGoFloat(100), std::string("100"));
    QCOMPARE(formatGoFloat(0.95), std::string("0.95"));
    QCOMPARE(formatGoFloat(0.0001), std::string("0.0001"));
    QCOMPARE(formatGoFloat(0.00001), std::string("1e-05"));
    QCOMPARE(formatGoFloat(123456), std::string("123456"));
    QCOMPARE(formatGoFloat(1e6), std::string("1e+06"));
    QCOMPARE(formatGoFloat(1234567890), std::string("1.23456789e+09"));
    QCOMPARE(formatGoFloat(-2.5), std::string("-2.5"));
    QCOMPARE(formatGoFloat(1e100), std::string("1e+100"));
    QCOMPARE(formatGoFloat(0), std::string("0"));
    QCOMPARE(formatGoFloat(kInf), std::string("+Inf"));
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestGoBench)
#include "test_go_bench.moc"

// Go benchmark text of any shape: parseGoBench never fails on UTF-8 text, what it reads
// prints back (formatGoBench) to text that reads the same, and benchstat takes it.
#include "core/bench/benchstat.h"
#include "core/bench/go_bench.h"
#include "tests/fuzz/fuzz_check.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    std::vector<std::string> warnings;
    BenchUnitMetadata units;
    auto results = parseGoBench(text, &warnings, &units);
    if (!results)
        return 0;
    for (const BenchResult &r : *results) {
        // (A name may be empty: "Benchmark-8" is one, as for Go's own parser.)
        for (const auto &[key, value] : r.config)
            FUZZ_CHECK(!value.empty());
    }
    // formatGoBench promises an exact round trip (NaN aside: it never equals itself).
    const bool hasNaN = std::any_of(results->begin(), results->end(), [](const BenchResult &r) {
        return std::any_of(r.values.begin(), r.values.end(), [](const auto &v) { return std::isnan(v.second); });
    });
    if (!hasNaN) {
        auto again = parseGoBench(formatGoBench(*results));
        FUZZ_CHECK(again.ok());
        FUZZ_CHECK(*again == *results);
    }

    // Two inputs, the second the first half of the results: comparisons of every shape.
    std::vector<BenchstatInput> inputs{
        {"a", *results},
        {"b", std::vector<BenchResult>(results->begin(), results->begin() + long(results->size() / 2))}};
    BenchstatOptions options;
    options.units = units;
    const BenchstatReport report = benchstat(inputs, options);
    (void)formatBenchstatText(report);
    (void)formatBenchstatCsv(report);
    (void)formatBenchstatJson(report);
    return 0;
}

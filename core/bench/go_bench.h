#pragma once

// The Go benchmark text format (golang.org/design/14313-benchmark-format), as printed by
// `go test -bench -benchmem` and read by benchstat: "key: value" configuration lines that
// apply to the results after them, and result lines
//
//     BenchmarkRead/4KiB-8   1000   1234 ns/op   3321.30 MB/s   0 B/op   0 allocs/op
//
// Every other line (PASS, ok, --- FAIL, log output, blank lines) carries no meaning.

#include "core/storage/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata {

struct BenchResult {
    // Without the "Benchmark" prefix and the -N suffix: "Read/4KiB" (sub-benchmark parts,
    // "key=value" ones included, stay as written).
    std::string name;
    // The -N GOMAXPROCS suffix; 0 when the name had none (Go prints none for GOMAXPROCS=1).
    int procs = 0;
    std::uint64_t iterations = 0;
    // Value and unit pairs in line order, units as written ("ns/op", "MB/s", "sec/op", …).
    std::vector<std::pair<std::string, double>> values;
    // The configuration in force for this result, in the order the keys first appeared
    // (benchstat prints its table headers in that order). Values are never empty.
    std::vector<std::pair<std::string, std::string>> config;

    // The name as Go tools show it and benchstat labels its rows: "Read/4KiB-8".
    std::string fullName() const;
    // The value of a configuration key, or nullptr.
    const std::string *configValue(std::string_view key) const;
    // The measurement in a unit, or nullptr.
    const double *value(std::string_view unit) const;

    bool operator==(const BenchResult &) const = default;
};

// "Unit <unit> key=value…" lines: unit as written → metadata key → value. benchstat knows
// assume=exact|nothing (how to summarise) and better=higher|lower.
using BenchUnitMetadata = std::map<std::string, std::map<std::string, std::string>>;

// Reads Go benchmark text. Malformed result lines (a line starting with "Benchmark" whose
// fields do not read as a name, an iteration count and value/unit pairs) are skipped and
// described in *warnings as "line N: …"; a line holding only a benchmark name (printed by
// `go test -v` before each benchmark) is noise. Unit lines add to *units, which may carry
// metadata from an earlier file as benchstat's does. Fails only on text that is not UTF-8.
Result<std::vector<BenchResult>> parseGoBench(std::string_view text, std::vector<std::string> *warnings = nullptr,
                                              BenchUnitMetadata *units = nullptr);

// Writes results in the same format: configuration lines where the configuration changes
// (so the first result's goos/goarch/pkg/cpu form the header), then one aligned result
// line each. Values are written with the fewest digits that read back exactly, so
// parseGoBench(formatGoBench(x)) == x.
std::string formatGoBench(const std::vector<BenchResult> &results);

// Go's fmt %v of a float64: the shortest digits that read back exactly, in exponent form
// below 1e-4 and from 1e6 ("1.718e-06", "3321.3", "1.23456789e+09", "+Inf", "NaN").
std::string formatGoFloat(double value);

} // namespace strata

#pragma once

// Numbers that check themselves: what a benchmark's report should warn about, so that a
// result is not read as the storage's when something else set it.
#include "core/bench/bench_runner.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata {

// What is known of where a benchmark ran.
struct BenchTarget {
    std::string scheme;                // "s3", "file", "memory", "nbd+unix", ...
    std::string host;                  // empty for local storage
    std::uint64_t availableMemory = 0; // MemAvailable when the run ended (bytes)
};
BenchTarget benchTarget(const Uri &uri); // availableMemory read from /proc/meminfo

struct BenchFlag {
    std::string benchmark; // "Read/4KiB" (as in BenchRun::name); empty: the whole target
    std::string kind;      // "loopback", "in-process", "cpu-bound", "page-cache", "variation"
    std::string detail;    // one sentence, for people
};

// The flags of one target's runs:
//  loopback     the server runs on this machine (127.0.0.0/8, ::1, localhost, a unix socket)
//  in-process   memory://: no storage I/O at all
//  cpu-bound    a worker thread was busy more than 90 % of the run (median over runs)
//  page-cache   reads of local files whose working set fits in free memory (the page
//               cache may answer them), unless O_DIRECT
//  variation    the 95 % confidence interval of the median ns/op is wider than ±10 %
std::vector<BenchFlag> checkRuns(const std::vector<BenchRun> &runs, const BenchTarget &target);

// As comment lines for Go benchmark text ("# flag cpu-bound Read/4KiB: ...").
std::string flagLines(const std::vector<BenchFlag> &flags);
// A flag from such a line; nullopt for any other line.
std::optional<BenchFlag> parseFlagLine(std::string_view line);
// The flags in a text's comment lines.
std::vector<BenchFlag> flagsIn(std::string_view text);

} // namespace strata

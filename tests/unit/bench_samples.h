#pragma once

// Go benchmark text shared by the parser's and benchstat's tests.

#include "core/bench/go_bench.h"

#include <QtGlobal>

#include <string>
#include <string_view>
#include <vector>

namespace strata {

inline std::vector<BenchResult> parse(std::string_view text, std::vector<std::string> *warnings = nullptr,
                                      BenchUnitMetadata *units = nullptr)
{
    auto results = parseGoBench(text, warnings, units);
    if (!results.ok())
        qFatal("parseGoBench failed: %s", results.error().message().c_str());
    return std::move(results).value();
}

// What `go test -bench . -benchmem -count 2 ./...` prints for two packages, with test log
// output, a -v style bare name line, a failed benchmark and a line damaged by interleaved
// output.
inline constexpr std::string_view kGoTest = R"(goos: linux
goarch: amd64
pkg: example.com/strata/store
cpu: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz
BenchmarkPut/size=4KiB-8         	  120000	      9876 ns/op	 414.73 MB/s	    4200 B/op	      12 allocs/op
BenchmarkPut/size=4KiB-8         	  118000	     10012 ns/op	 409.10 MB/s	    4200 B/op	      12 allocs/op
BenchmarkPut/size=1MiB-8         	     900	   1320456 ns/op	 794.10 MB/s	 1049200 B/op	      14 allocs/op
BenchmarkPut/size=1MiB-8         	     903	   1301122 ns/op	 805.90 MB/s	 1049200 B/op	      14 allocs/op
BenchmarkGet
    store_test.go:88: warming cache
BenchmarkGet-8                   	 1000000	      1021 ns/op	       0 B/op	       0 allocs/op
BenchmarkGet-8                   	 1000000	      1017 ns/op	       0 B/op	       0 allocs/op
BenchmarkList-8                  	   50000	     23456 ns/op	      0.5 hit-ratio	    2048 B/op
--- FAIL: BenchmarkBroken-8
    store_test.go:120: backend went away
BenchmarkTorn-8   	   store_test.go:130: interleaved log
PASS
ok  	example.com/strata/store	12.345s
goos: linux
goarch: amd64
pkg: example.com/strata/walk
cpu: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz
BenchmarkWalk/depth=3/files=1000-8 	    2000	    612345 ns/op
BenchmarkWalk/depth=3/files=1000-8 	    2000	    609876 ns/op
BenchmarkSingle                  	     100	     12.5 ns/op
BenchmarkOdd-8                   	     100	       42
PASS
ok  	example.com/strata/walk	3.210s
)";

} // namespace strata

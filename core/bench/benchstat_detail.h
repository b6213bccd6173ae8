#pragma once

// Shared by benchstat.cpp (the comparison) and benchstat_format.cpp (its text, CSV and
// JSON forms); not part of the engine's interface.
#include "core/bench/benchstat.h"

#include <cstdio>
#include <string>
#include <vector>

namespace strata::bench_detail {

struct Scaler {
    int prec = 3;
    double factor = 1;
    std::string prefix;

    std::string format(double value) const
    {
        char buf[512];
        std::snprintf(buf, sizeof buf, "%.*f", prec, value / factor);
        return buf + prefix;
    }
};

std::string printf1(const char *format, double value);
// The scale benchstat picks for a column of values (SI or binary prefixes, precision).
Scaler commonScale(const std::vector<double> &values, bool binary);
std::string describeTableRow(const BenchstatReport &report, const BenchstatTable &t, int column,
                             const std::string &name);

} // namespace strata::bench_detail

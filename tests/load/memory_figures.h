#pragma once

// What the load tests report about this process's memory.
#include <QFile>

#include <sys/resource.h>
#include <unistd.h>

namespace strata::load_test {

// Peak resident memory of this process so far, in MiB.
inline double peakRssMiB()
{
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

// Current resident memory, in MiB (the peak never comes down, this does).
inline double rssMiB()
{
    QFile status(QStringLiteral("/proc/self/statm"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    const auto fields = status.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toDouble() * double(::sysconf(_SC_PAGESIZE)) / double(1 << 20) : 0;
}

} // namespace strata::load_test

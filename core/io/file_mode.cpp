#include "core/io/file_mode.h"

#include <cstdio>

namespace strata {

std::uint32_t processUmask()
{
    // Linux 4.7 and later tell it in /proc/self/status.
    static const std::uint32_t mask = [] {
        unsigned value = 022;
        if (std::FILE *f = std::fopen("/proc/self/status", "re")) {
            char line[256];
            while (std::fgets(line, sizeof line, f))
                if (std::sscanf(line, "Umask: %o", &value) == 1)
                    break;
            std::fclose(f);
        }
        return std::uint32_t(value & 0777);
    }();
    return mask;
}

std::uint32_t copyMode(std::uint32_t sourceMode, bool exact)
{
    return exact ? sourceMode & 07777 : sourceMode & 01777 & ~processUmask();
}

} // namespace strata

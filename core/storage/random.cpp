#include "core/storage/random.h"

#include <random>
#include <sys/random.h>

namespace strata {

std::uint64_t randomU64()
{
    std::uint64_t value = 0;
    if (::getrandom(&value, sizeof value, 0) == ssize_t(sizeof value))
        return value;
    std::random_device device; // no getrandom (a very old kernel): whatever the library has
    return (std::uint64_t(device()) << 32) ^ device();
}

} // namespace strata

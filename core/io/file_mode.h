#pragma once

#include <cstdint>
#include <optional>

namespace strata {

// The process's umask, read without changing it (umask(2) sets it while other threads may
// be creating files); 022 where the kernel does not tell.
std::uint32_t processUmask();

// The permission bits a copy gets, as cp gives them: the source's bits without the
// set-user/group-ID bits, masked by the umask; exactly the source's with `exact` (cp -p).
std::uint32_t copyMode(std::uint32_t sourceMode, bool exact);

} // namespace strata

#pragma once

namespace strata {

// Tells glibc's malloc to keep freed memory for the next allocation instead of giving it
// back to the system at once (a no-op elsewhere and under sanitizers). main() calls it
// first; tests that measure what the application does call it too.
void keepFreedMemory();

} // namespace strata

#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

using Digest256 = std::array<unsigned char, 32>;

// Lowercase hex of a digest.
std::string toHex(const Digest256 &digest);

namespace detail {
// Whether SHA-256 uses the CPU's SHA instructions (x86 SHA extensions, chosen by default
// when the CPU has them) or the portable rounds; for tests, which check both. Returns
// false when asked for instructions the CPU lacks (nothing changes then).
bool useSha256Instructions(bool on);
} // namespace detail

// SHA-256 (FIPS 180-4), incremental; all state inline, no allocation. Uses the x86 SHA
// instructions when the CPU has them.
class Sha256 {
public:
    Sha256() { reset(); }
    void reset();
    void add(std::string_view data);
    Digest256 finish(); // then reset() before reuse

private:
    void block(const unsigned char *p, std::size_t blocks);

    std::uint32_t m_h[8];
    unsigned char m_buffer[64];
    std::size_t m_used = 0;
    std::uint64_t m_length = 0;
};

// BLAKE2b with a 32-byte digest (RFC 7693), incremental; the checksum of --verify, about
// twice as fast as SHA-256 without special instructions.
class Blake2b256 {
public:
    Blake2b256() { reset(); }
    void reset();
    void add(std::string_view data);
    Digest256 finish(); // then reset() before reuse

private:
    void compress(bool last);

    std::uint64_t m_h[8];
    std::uint64_t m_t[2];
    unsigned char m_buffer[128];
    std::size_t m_used = 0;
};

} // namespace strata

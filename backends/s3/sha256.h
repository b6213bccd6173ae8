#pragma once

// SHA-256 and HMAC-SHA256 for SigV4 (libcrypto, core/io/hash.h), and their hex into a
// fixed-size array (no allocation per signature).
#include "core/io/hash.h"

#include <array>
#include <cstddef>
#include <string_view>

namespace strata::s3 {

using Digest = Digest256;
using HexDigest = std::array<char, 64>; // lowercase, not terminated

using strata::hmacSha256;
using strata::sha256;
HexDigest hexOf(const Digest &digest);

inline std::string_view view(const Digest &d)
{
    return {reinterpret_cast<const char *>(d.data()), d.size()};
}
inline std::string_view view(const HexDigest &h)
{
    return {h.data(), h.size()};
}

} // namespace strata::s3

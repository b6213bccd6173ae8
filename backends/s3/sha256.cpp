#include "backends/s3/sha256.h"

namespace strata::s3 {

HexDigest hexOf(const Digest &digest)
{
    static constexpr char digits[] = "0123456789abcdef";
    HexDigest out;
    for (std::size_t i = 0; i < digest.size(); ++i) {
        out[i * 2] = digits[digest[i] >> 4];
        out[i * 2 + 1] = digits[digest[i] & 15];
    }
    return out;
}

} // namespace strata::s3

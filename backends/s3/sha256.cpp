#include "backends/s3/sha256.h"

#include "core/io/hash.h"

#include <cstring>

namespace strata::s3 {

namespace {

constexpr std::size_t kBlock = 64;

} // namespace

Digest sha256(std::string_view data)
{
    Sha256 h;
    h.add(data);
    return h.finish();
}

Digest hmacSha256(std::string_view key, std::string_view data)
{
    unsigned char k[kBlock] = {0};
    if (key.size() > kBlock) {
        const Digest d = sha256(key);
        std::memcpy(k, d.data(), d.size());
    } else {
        std::memcpy(k, key.data(), key.size());
    }
    char pad[kBlock];
    for (std::size_t i = 0; i < kBlock; ++i)
        pad[i] = char(k[i] ^ 0x36);
    Sha256 h;
    h.add({pad, kBlock});
    h.add(data);
    const Digest inner = h.finish();
    for (std::size_t i = 0; i < kBlock; ++i)
        pad[i] = char(k[i] ^ 0x5c);
    h.reset();
    h.add({pad, kBlock});
    h.add(view(inner));
    return h.finish();
}

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

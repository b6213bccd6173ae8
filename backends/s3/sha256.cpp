#include "backends/s3/sha256.h"

#include <QByteArrayView>
#include <QCryptographicHash>

#include <cstring>

namespace strata::s3 {

namespace {

constexpr std::size_t kBlock = 64;

// One hasher per thread, made once (its state lives on the heap) and reset per use.
QCryptographicHash &hasher()
{
    thread_local QCryptographicHash h(QCryptographicHash::Sha256);
    h.reset();
    return h;
}

void add(QCryptographicHash &h, std::string_view data)
{
    h.addData(QByteArrayView(data.data(), qsizetype(data.size())));
}

Digest finish(QCryptographicHash &h)
{
    Digest out;
    const QByteArrayView r = h.resultView();
    std::memcpy(out.data(), r.data(), out.size());
    return out;
}

} // namespace

Digest sha256(std::string_view data)
{
    auto &h = hasher();
    add(h, data);
    return finish(h);
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
    auto &h = hasher();
    add(h, {pad, kBlock});
    add(h, data);
    const Digest inner = finish(h);
    for (std::size_t i = 0; i < kBlock; ++i)
        pad[i] = char(k[i] ^ 0x5c);
    h.reset();
    add(h, {pad, kBlock});
    add(h, view(inner));
    return finish(h);
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

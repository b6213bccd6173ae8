#include "core/io/hash.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <cstdlib>
#include <new>

namespace strata {

namespace {

// Fetched once: passing EVP_sha256() to every init would fetch the implementation again
// each time. A libcrypto without the algorithm is a broken installation, not an error a
// caller could handle.
const EVP_MD *fetchDigest(const char *name)
{
    EVP_MD *md = EVP_MD_fetch(nullptr, name, nullptr);
    if (!md)
        std::abort();
    return md;
}

const EVP_MD *sha256Md()
{
    static const EVP_MD *md = fetchDigest("SHA256");
    return md;
}

const EVP_MD *blake2bMd()
{
    static const EVP_MD *md = fetchDigest("BLAKE2B-512");
    return md;
}

} // namespace

std::string toHex(std::span<const unsigned char> digest)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(digest.size() * 2, '0');
    for (std::size_t i = 0; i < digest.size(); ++i) {
        out[i * 2] = digits[digest[i] >> 4];
        out[i * 2 + 1] = digits[digest[i] & 15];
    }
    return out;
}

EvpHash::EvpHash(const void *md) : m_md(md), m_ctx(EVP_MD_CTX_new())
{
    if (!m_ctx)
        throw std::bad_alloc();
    reset();
}

EvpHash::~EvpHash()
{
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX *>(m_ctx));
}

void EvpHash::reset()
{
    EVP_DigestInit_ex2(static_cast<EVP_MD_CTX *>(m_ctx), static_cast<const EVP_MD *>(m_md), nullptr);
}

void EvpHash::add(std::string_view data)
{
    EVP_DigestUpdate(static_cast<EVP_MD_CTX *>(m_ctx), data.data(), data.size());
}

void EvpHash::finishInto(std::span<unsigned char> out)
{
    unsigned int size = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX *>(m_ctx), out.data(), &size);
}

Sha256::Sha256() : EvpHash(sha256Md()) {}

Blake2b512::Blake2b512() : EvpHash(blake2bMd()) {}

Digest256 sha256(std::string_view data)
{
    thread_local Sha256 hash;
    hash.reset();
    hash.add(data);
    return hash.finish();
}

std::string contentMd5(std::string_view data)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_md5(), nullptr) != 1)
        std::abort(); // as fetchDigest: a libcrypto without MD5 is a broken installation
    std::string out(4 * ((length + 2) / 3), '\0');
    EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()), digest, int(length));
    return out;
}

Digest256 hmacSha256(std::string_view key, std::string_view data)
{
    // One MAC context per thread, its digest set once: a signature costs no fetch and no
    // context of its own.
    struct Mac {
        EVP_MAC *mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
        EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
        Mac()
        {
            char digest[] = "SHA256";
            const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                         OSSL_PARAM_construct_end()};
            if (!ctx || !EVP_MAC_CTX_set_params(ctx, params))
                std::abort();
        }
        ~Mac()
        {
            EVP_MAC_CTX_free(ctx);
            EVP_MAC_free(mac);
        }
    };
    thread_local Mac m;
    Digest256 out{};
    std::size_t size = 0;
    // A null key means "the previous key" to EVP_MAC_init: an empty key is given as "".
    const auto *k = reinterpret_cast<const unsigned char *>(key.empty() ? "" : key.data());
    EVP_MAC_init(m.ctx, k, key.size(), nullptr);
    EVP_MAC_update(m.ctx, reinterpret_cast<const unsigned char *>(data.data()), data.size());
    EVP_MAC_final(m.ctx, out.data(), &size, out.size());
    return out;
}

} // namespace strata

#pragma once

// Message digests from OpenSSL's libcrypto (EVP): SHA-256 for S3 signatures and content
// hashes, BLAKE2b-512 for --verify (b2sum's default, so a user can check a digest with it).
// libcrypto picks the CPU's SHA instructions itself.
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace strata {

using Digest256 = std::array<unsigned char, 32>;
using Digest512 = std::array<unsigned char, 64>;

// Lowercase hex of a digest.
std::string toHex(std::span<const unsigned char> digest);

// An incremental digest over one EVP context (made once; reset() reuses it).
class EvpHash {
public:
    EvpHash(const EvpHash &) = delete;
    EvpHash &operator=(const EvpHash &) = delete;
    ~EvpHash();

    void reset();
    void add(std::string_view data);
    void add(std::span<const std::byte> data) { add({reinterpret_cast<const char *>(data.data()), data.size()}); }

protected:
    explicit EvpHash(const void *md);              // an EVP_MD fetched once per process
    void finishInto(std::span<unsigned char> out); // then reset() before reuse

private:
    const void *m_md;
    void *m_ctx; // EVP_MD_CTX
};

class Sha256 : public EvpHash {
public:
    Sha256();
    Digest256 finish()
    {
        Digest256 d;
        finishInto(d);
        return d;
    }
};

class Blake2b512 : public EvpHash {
public:
    Blake2b512();
    Digest512 finish()
    {
        Digest512 d;
        finishInto(d);
        return d;
    }
};

// HMAC-SHA256 (RFC 2104) through EVP_MAC, with a context kept per thread.
Digest256 hmacSha256(std::string_view key, std::string_view data);
// SHA-256 of one buffer, with a context kept per thread.
Digest256 sha256(std::string_view data);
// The base64 of the MD5 of one buffer, as a Content-MD5 header carries it (RFC 1864).
std::string contentMd5(std::string_view data);

} // namespace strata

#include "core/io/hash.h"

#include <atomic>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define STRATA_SHA_NI 1
// glibc >= 2.33: the CPU features it found at start-up (its header is C, with _Bool, which
// clang does not take in C++; clang builds ask CPUID).
#if __has_include(<sys/platform/x86.h>) && !defined(__clang__)
#include <sys/platform/x86.h>
#endif
#endif

namespace strata {

namespace {

constexpr std::uint32_t rotr32(std::uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}
constexpr std::uint64_t rotr64(std::uint64_t x, int n)
{
    return (x >> n) | (x << (64 - n));
}

constexpr std::uint32_t kSha256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint64_t kBlake2bIv[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
                                         0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
                                         0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};

constexpr unsigned char kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

std::uint64_t load64le(const unsigned char *p)
{
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

} // namespace

std::string toHex(const Digest256 &digest)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(64, '0');
    for (std::size_t i = 0; i < digest.size(); ++i) {
        out[i * 2] = digits[digest[i] >> 4];
        out[i * 2 + 1] = digits[digest[i] & 15];
    }
    return out;
}

void Sha256::reset()
{
    static constexpr std::uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::memcpy(m_h, init, sizeof m_h);
    m_used = 0;
    m_length = 0;
}

namespace {

void sha256Portable(std::uint32_t *state, const unsigned char *p, std::size_t blocks)
{
    for (; blocks > 0; --blocks, p += 64) {
        std::uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = std::uint32_t(p[4 * i]) << 24 | std::uint32_t(p[4 * i + 1]) << 16 | std::uint32_t(p[4 * i + 2]) << 8
                   | std::uint32_t(p[4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t t1 = h + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) + ((e & f) ^ (~e & g)) + kSha256[i] + w[i];
            const std::uint32_t t2 = (rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
    }
}

#ifdef STRATA_SHA_NI
// The x86 SHA extensions (Intel since Goldmont and Ice Lake, AMD since Zen): four rounds
// per two sha256rnds2, the message schedule by sha256msg1/msg2. About 1.5-2 GB/s against
// ~300 MB/s for the portable rounds; a signed 256 KiB S3 upload hashes its body first.
__attribute__((target("sha,sse4.1,ssse3"))) void sha256Instructions(std::uint32_t *state, const unsigned char *p,
                                                                   std::size_t blocks)
{
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The state as the instructions want it: ABEF and CDGH.
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(state)), 0xB1); // CDAB
    __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(state + 4)), 0x1B); // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);   // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);         // CDGH
    for (; blocks > 0; --blocks, p += 64) {
        const __m128i abef = state0, cdgh = state1;
        __m128i w[4]; // words 4j..4j+3 of the schedule, in w[j % 4]
#pragma GCC unroll 16
        for (int j = 0; j < 16; ++j) {
            __m128i g;
            if (j < 4) {
                g = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16 * j)), byteSwap);
            } else {
                g = _mm_sha256msg1_epu32(w[(j - 4) & 3], w[(j - 3) & 3]);
                g = _mm_add_epi32(g, _mm_alignr_epi8(w[(j - 1) & 3], w[(j - 2) & 3], 4));
                g = _mm_sha256msg2_epu32(g, w[(j - 1) & 3]);
            }
            w[j & 3] = g;
            __m128i k = _mm_add_epi32(g, _mm_loadu_si128(reinterpret_cast<const __m128i *>(kSha256 + 4 * j)));
            state1 = _mm_sha256rnds2_epu32(state1, state0, k);
            k = _mm_shuffle_epi32(k, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, k);
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
    }
    tmp = _mm_shuffle_epi32(state0, 0x1B);        // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);     // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);  // state[0..3]: A B C D
    state1 = _mm_alignr_epi8(state1, tmp, 8);     // state[4..7]: E F G H
    _mm_storeu_si128(reinterpret_cast<__m128i *>(state), state0);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(state + 4), state1);
}

bool cpuHasShaInstructions()
{
#ifdef CPU_FEATURE_ACTIVE
    // What glibc learnt at start-up: no CPUID of our own, which in a virtual machine is a
    // trap to the hypervisor (~5 us each here; four made ~1/200 of an empty image's copy).
    return CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSE4_1) && CPU_FEATURE_ACTIVE(SSSE3);
#else
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3))
        return false;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (b & (1u << 29)) != 0; // CPUID.(EAX=7,ECX=0):EBX.SHA[bit 29]
#endif
}
#endif

using Sha256Blocks = void (*)(std::uint32_t *, const unsigned char *, std::size_t);

std::atomic<Sha256Blocks> &sha256Blocks()
{
#ifdef STRATA_SHA_NI
    static std::atomic<Sha256Blocks> chosen{cpuHasShaInstructions() ? &sha256Instructions : &sha256Portable};
#else
    static std::atomic<Sha256Blocks> chosen{&sha256Portable};
#endif
    return chosen;
}

} // namespace

bool detail::useSha256Instructions(bool on)
{
#ifdef STRATA_SHA_NI
    if (on && !cpuHasShaInstructions())
        return false;
    sha256Blocks().store(on ? &sha256Instructions : &sha256Portable);
    return true;
#else
    sha256Blocks().store(&sha256Portable);
    return !on;
#endif
}

void Sha256::block(const unsigned char *p, std::size_t blocks)
{
    sha256Blocks().load(std::memory_order_relaxed)(m_h, p, blocks);
}

void Sha256::add(std::string_view data)
{
    auto p = reinterpret_cast<const unsigned char *>(data.data());
    std::size_t n = data.size();
    m_length += n;
    if (m_used) {
        const std::size_t take = std::min(n, sizeof m_buffer - m_used);
        std::memcpy(m_buffer + m_used, p, take);
        m_used += take;
        p += take;
        n -= take;
        if (m_used < sizeof m_buffer)
            return;
        block(m_buffer, 1);
        m_used = 0;
    }
    if (n >= 64) {
        block(p, n / 64);
        p += n / 64 * 64;
        n %= 64;
    }
    std::memcpy(m_buffer, p, n);
    m_used = n;
}

Digest256 Sha256::finish()
{
    const std::uint64_t bits = m_length * 8;
    m_buffer[m_used++] = 0x80;
    if (m_used > 56) {
        std::memset(m_buffer + m_used, 0, 64 - m_used);
        block(m_buffer, 1);
        m_used = 0;
    }
    std::memset(m_buffer + m_used, 0, 56 - m_used);
    for (int i = 0; i < 8; ++i)
        m_buffer[56 + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    block(m_buffer, 1);
    Digest256 out;
    for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 4; ++k)
            out[std::size_t(4 * i + k)] = static_cast<unsigned char>(m_h[i] >> (24 - 8 * k));
    return out;
}

void Blake2b256::reset()
{
    std::memcpy(m_h, kBlake2bIv, sizeof m_h);
    m_h[0] ^= 0x01010000 ^ 32; // no key, 32-byte digest
    m_t[0] = m_t[1] = 0;
    m_used = 0;
}

void Blake2b256::compress(bool last)
{
    std::uint64_t v[16], m[16];
    for (int i = 0; i < 8; ++i) {
        v[i] = m_h[i];
        v[i + 8] = kBlake2bIv[i];
    }
    v[12] ^= m_t[0];
    v[13] ^= m_t[1];
    if (last)
        v[14] = ~v[14];
    for (int i = 0; i < 16; ++i)
        m[i] = load64le(m_buffer + 8 * i);
    auto g = [&](int a, int b, int c, int d, std::uint64_t x, std::uint64_t y) {
        v[a] = v[a] + v[b] + x;
        v[d] = rotr64(v[d] ^ v[a], 32);
        v[c] = v[c] + v[d];
        v[b] = rotr64(v[b] ^ v[c], 24);
        v[a] = v[a] + v[b] + y;
        v[d] = rotr64(v[d] ^ v[a], 16);
        v[c] = v[c] + v[d];
        v[b] = rotr64(v[b] ^ v[c], 63);
    };
    for (const auto &s : kSigma) {
        g(0, 4, 8, 12, m[s[0]], m[s[1]]);
        g(1, 5, 9, 13, m[s[2]], m[s[3]]);
        g(2, 6, 10, 14, m[s[4]], m[s[5]]);
        g(3, 7, 11, 15, m[s[6]], m[s[7]]);
        g(0, 5, 10, 15, m[s[8]], m[s[9]]);
        g(1, 6, 11, 12, m[s[10]], m[s[11]]);
        g(2, 7, 8, 13, m[s[12]], m[s[13]]);
        g(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; ++i)
        m_h[i] ^= v[i] ^ v[i + 8];
}

void Blake2b256::add(std::string_view data)
{
    auto p = reinterpret_cast<const unsigned char *>(data.data());
    std::size_t n = data.size();
    while (n > 0) {
        // A full buffer is compressed only once more input arrives: the last block must be
        // compressed with the final flag.
        if (m_used == sizeof m_buffer) {
            m_t[0] += sizeof m_buffer;
            if (m_t[0] < sizeof m_buffer)
                ++m_t[1];
            compress(false);
            m_used = 0;
        }
        const std::size_t take = std::min(n, sizeof m_buffer - m_used);
        std::memcpy(m_buffer + m_used, p, take);
        m_used += take;
        p += take;
        n -= take;
    }
}

Digest256 Blake2b256::finish()
{
    m_t[0] += m_used;
    if (m_t[0] < m_used)
        ++m_t[1];
    std::memset(m_buffer + m_used, 0, sizeof m_buffer - m_used);
    compress(true);
    Digest256 out;
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<unsigned char>(m_h[i / 8] >> (8 * (i % 8)));
    return out;
}

} // namespace strata

#pragma once

// What every unit test shares: QTest printers for the standard and Strata types it
// compares, byte helpers and checks that show the Error message when a Result fails.

#include "core/io/extent.h"
#include "core/storage/error.h"

#include <QTest>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace QTest {

template <>
inline char *toString(const std::string &s)
{
    return QTest::toPrettyCString(s.data(), qsizetype(s.size()));
}

template <>
inline char *toString(const std::string_view &s)
{
    return QTest::toPrettyCString(s.data(), qsizetype(s.size()));
}

template <>
inline char *toString(const strata::ErrorKind &kind)
{
    return qstrdup(std::string(strata::identifier(kind)).c_str());
}

} // namespace QTest

namespace strata {

inline std::span<const std::byte> asBytes(std::string_view s)
{
    return {reinterpret_cast<const std::byte *>(s.data()), s.size()};
}

// Data rows carry raw bytes (NUL and newline included) as QByteArray.
inline std::string_view view(const QByteArray &bytes)
{
    return {bytes.constData(), std::size_t(bytes.size())};
}

inline std::string asString(std::span<const std::byte> data)
{
    return {reinterpret_cast<const char *>(data.data()), data.size()};
}

// Deterministic, position-dependent bytes, so a chunk at the wrong offset shows.
inline std::vector<std::byte> patternBytes(std::size_t size, unsigned seed)
{
    std::vector<std::byte> out(size);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto &b : out) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = std::byte(x & 0xff);
    }
    return out;
}

// "data@0+65536 hole@65536+…": an extent map compared as text reads well when it differs.
inline std::string extentsText(const std::vector<Extent> &extents)
{
    std::string out;
    for (const auto &e : extents) {
        if (!out.empty())
            out += ' ';
        out += std::string(toString(e.kind)) + '@' + std::to_string(e.offset) + '+' + std::to_string(e.length);
    }
    return out;
}

} // namespace strata

// The Result must be ok; otherwise the test fails showing the error's message.
#define REQUIRE_OK(expr)                                                            \
    do {                                                                            \
        auto &&r_ = (expr);                                                         \
        if (!r_.ok())                                                               \
            QFAIL((std::string(#expr " failed: ") + r_.error().message()).c_str()); \
    } while (false)

// The Result must be an error of that kind.
#define REQUIRE_KIND(expr, wanted)                                     \
    do {                                                               \
        auto &&r_ = (expr);                                            \
        QVERIFY2(!r_.ok(), #expr " succeeded but should have failed"); \
        QCOMPARE(r_.error().kind(), wanted);                           \
    } while (false)

#pragma once

#include "core/storage/error.h"

#include <QTest>

#include <string>
#include <string_view>

namespace strata {

// Empty when `result` failed with `kind` and a message holding `needle`; else what differs.
template <typename R>
std::string wrongError(const R &result, ErrorKind kind, std::string_view needle)
{
    if (result.ok())
        return "it succeeded";
    const std::string message = result.error().message();
    if (result.error().kind() != kind)
        return "kind " + std::string(identifier(result.error().kind())) + ", wanted " + std::string(identifier(kind))
            + ": " + message;
    if (message.find(needle) == std::string::npos)
        return "'" + std::string(needle) + "' is not in: " + message;
    return {};
}

} // namespace strata

// The expression fails with that kind and its message holds the needle.
#define REQUIRE_ERROR(expr, kind, needle)                                         \
    do {                                                                          \
        const std::string problem_ = wrongError((expr), kind, needle);            \
        QVERIFY2(problem_.empty(), (std::string(#expr ": ") + problem_).c_str()); \
    } while (false)

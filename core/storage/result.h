#pragma once

#include "core/storage/error.h"

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace strata {

// A value or an Error (std::expected arrives with C++23; this is the subset we use).
template <typename T>
class [[nodiscard]] Result {
public:
    Result(const T &value) : m_v(std::in_place_index<0>, value) {}
    Result(T &&value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}
    // clang-format 14 cannot lay out a requires clause.
    // clang-format off
    template <typename U>
        requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::decay_t<U>, T>
                 && !std::is_same_v<std::decay_t<U>, Error>)
    Result(U &&value) : m_v(std::in_place_index<0>, std::forward<U>(value)) {} // NOLINT(bugprone-forwarding-reference-overload): the constraint excludes Result and Error
    // clang-format on

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() &
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    const T &value() const &
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    T &&value() &&
    {
        assert(ok());
        return std::get<0>(std::move(m_v));
    }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T &&operator*() && { return std::move(*this).value(); }

    const Error &error() const &
    {
        assert(!ok());
        return std::get<1>(m_v);
    }
    Error &error() &
    {
        assert(!ok());
        return std::get<1>(m_v);
    }
    Error &&error() &&
    {
        assert(!ok());
        return std::get<1>(std::move(m_v));
    }

private:
    std::variant<T, Error> m_v;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_ok(false) {}

    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error &error() const &
    {
        assert(!m_ok);
        return m_error;
    }
    Error &error() &
    {
        assert(!m_ok);
        return m_error;
    }
    Error &&error() &&
    {
        assert(!m_ok);
        return std::move(m_error);
    }

private:
    Error m_error;
    bool m_ok = true;
};

using Status = Result<void>;

} // namespace strata

#pragma once

#include <cstddef>
#include <string_view>

namespace strata {

// One code point read from UTF-8 text; `length` is 0 when the bytes there are no valid
// UTF-8 (a stray or cut-short byte, an overlong form, a surrogate, beyond U+10FFFF).
struct Utf8Char {
    char32_t codePoint = 0;
    std::size_t length = 0;
};

// The code point that starts at text[i] (i < text.size()).
Utf8Char decodeUtf8(std::string_view text, std::size_t i);

} // namespace strata

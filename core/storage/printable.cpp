#include "core/storage/printable.h"

#include <cstdint>

namespace strata {

namespace {

// Length of the valid UTF-8 sequence at text[i] that is not a C1 control, or 0.
std::size_t printableSequence(std::string_view text, std::size_t i)
{
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f)
        return 1;
    const std::size_t len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > text.size())
        return 0;
    std::uint32_t cp = c & (0xff >> (len + 1));
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(text[i + k]);
        if ((b & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3f);
    }
    // Overlong forms, surrogates, out of range and the C1 controls are escaped.
    static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
        return 0;
    return len;
}

} // namespace

bool isPrintable(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = printableSequence(text, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

std::string printable(std::string_view text)
{
    std::string out;
    appendPrintable(out, text);
    return out;
}

void appendPrintable(std::string &out, std::string_view text)
{
    if (isPrintable(text)) {
        out.append(text);
        return;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = printableSequence(text, i);
        if (n > 0) {
            out.append(text.substr(i, n));
            i += n;
            continue;
        }
        const auto c = static_cast<unsigned char>(text[i++]);
        switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
}

std::string skippedNameWarning(std::string_view where, std::string_view raw)
{
    return "skipped '" + printable(raw) + "' in " + std::string(where)
        + ": that name is no path here (an empty, '.' or '..' part, or a '/' inside a name), so it is left alone";
}

} // namespace strata

#include "core/storage/printable.h"

#include "core/io/utf8.h"

namespace strata {

namespace {

// Length of the valid UTF-8 sequence at text[i] that is not a C1 control, or 0.
std::size_t printableSequence(std::string_view text, std::size_t i)
{
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f)
        return 1;
    if (c < 0x80)
        return 0;
    const Utf8Char u = decodeUtf8(text, i);
    if (u.codePoint >= 0x80 && u.codePoint <= 0x9f)
        return 0;
    return u.length;
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

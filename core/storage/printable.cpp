#include "core/storage/printable.h"

#include "core/io/utf8.h"

namespace strata {

namespace {

// Invisible characters that reorder or break the text around them: the bidirectional marks,
// embeddings, overrides and isolates (U+202E shows "exe.txt" as "txt.exe") and the line and
// paragraph separators. Shown as \u escapes, like control characters.
bool isDisguising(char32_t cp)
{
    return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e)
        || (cp >= 0x2066 && cp <= 0x2069);
}

// Length of the valid UTF-8 sequence at text[i] that is not a C1 control or a disguising
// character, or 0.
std::size_t printableSequence(std::string_view text, std::size_t i)
{
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f)
        return 1;
    if (c < 0x80)
        return 0;
    const Utf8Char u = decodeUtf8(text, i);
    if ((u.codePoint >= 0x80 && u.codePoint <= 0x9f) || isDisguising(u.codePoint))
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
        if (const Utf8Char u = decodeUtf8(text, i); isDisguising(u.codePoint)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4)
                out += kHex[(u.codePoint >> shift) & 15];
            i += u.length;
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

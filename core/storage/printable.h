#pragma once

#include <string>
#include <string_view>

namespace strata {

// `text` as it may be written to a terminal: control characters (C0, DEL, C1) and bytes that
// are not UTF-8 become visible escapes (\n, \t, \x1b, …), and so do the invisible characters
// that reorder or break text (bidirectional controls U+202A–U+202E, U+2066–U+2069, U+200E,
// U+200F, U+061C; U+2028, U+2029: \u202e), so a name a server sends cannot move the cursor,
// clear the screen, forge a line or disguise itself. Other UTF-8 is kept as it is.
std::string printable(std::string_view text);

// Whether printable(text) would change nothing (no allocation).
bool isPrintable(std::string_view text);
// out += printable(text), without a temporary string.
void appendPrintable(std::string &out, std::string_view text);

// The warning for a name a listing left out (ListPage::skipped): `where` is the folder's
// display URI, `raw` the name as the storage sent it.
std::string skippedNameWarning(std::string_view where, std::string_view raw);

} // namespace strata

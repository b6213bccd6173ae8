#pragma once

#include <string>
#include <string_view>

namespace strata {

// `text` as it may be written to a terminal: control characters (C0, DEL, C1) and bytes that
// are not UTF-8 become visible escapes (\n, \t, \x1b, …), so a name a server sends cannot
// move the cursor, clear the screen or forge a line. Printable UTF-8 is kept as it is.
std::string printable(std::string_view text);

// Whether printable(text) would change nothing (no allocation).
bool isPrintable(std::string_view text);
// out += printable(text), without a temporary string.
void appendPrintable(std::string &out, std::string_view text);

// The warning for a name a listing left out (ListPage::skipped): `where` is the folder's
// display URI, `raw` the name as the storage sent it.
std::string skippedNameWarning(std::string_view where, std::string_view raw);

} // namespace strata

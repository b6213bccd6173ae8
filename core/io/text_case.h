#pragma once

#include <string>
#include <string_view>

namespace strata {

// `text` with every letter in its lower case (Unicode's simple case mapping, through the
// C.UTF-8 locale's tables); bytes that are not UTF-8 are kept as they are. How names
// compare on a storage that ignores case (Backend::namesIgnoreCase).
std::string foldCase(std::string_view text);

// `text` without ASCII white space around it.
std::string_view trimmed(std::string_view text);

} // namespace strata

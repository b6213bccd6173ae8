#pragma once

// The storage a command can name, as the registry's backends describe themselves
// (BackendDescription): for `strata --help` and the man page's LOCATIONS section. A backend
// registered is listed; nothing here names one.
#include <string>
#include <string_view>

namespace strata {
class Registry;
}

namespace strata::cli {

// "Locations:" and a few lines per backend: how its URIs are written and its ?options.
std::string locationsHelp(const Registry &registry);
// The man page's LOCATIONS section (roff), each option with what it does.
std::string locationsManSection(const Registry &registry);
// Text for roff: backslashes escaped, a line never starting with a control character,
// typographic characters spelled in ASCII for any man formatter.
std::string roff(std::string_view text);

} // namespace strata::cli

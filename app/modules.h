#pragma once

#include <string>

namespace strata::app {

// Opens one of strata's modules (strata-gui.so, the desktop app): next to the executable in
// a build tree, in ../lib/strata once installed. Null, with the reason in `problem`, when
// it is missing or cannot be loaded.
void *openModule(const char *fileName, std::string &problem);

} // namespace strata::app

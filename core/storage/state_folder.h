#pragma once

#include "core/storage/result.h"

#include <string>

namespace strata {

// Whether `dir`, a folder Strata keeps its own state in (transfer journals, benchmark
// history), may be used: if it exists, it must be a folder owned by this user that no one
// else can write to. Another user who can write there could plant a journal that a later
// run resumes, or a symlink a later write follows. A folder that is missing passes: Strata
// makes it private.
Status checkStateFolder(const std::string &dir);

} // namespace strata

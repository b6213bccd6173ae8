#pragma once

#include "core/storage/result.h"

#include <string>
#include <string_view>

namespace strata {

// Paths inside a backend are UTF-8, absolute ("/" is the root), without "." or ".."
// segments, empty segments or a trailing slash. Every path reaching a backend is one.

// Resolves "." and "..", collapses slashes. A path that climbs above the root, or holds a
// NUL byte, is refused with InvalidInput: nothing can name a place outside the root.
Result<std::string> normalizePath(std::string_view path);

// Whether a path is already in normal form (cheap; no allocation).
bool isNormalPath(std::string_view path);

// "/a/b" + "c" -> "/a/b/c"; the name must be a single segment.
std::string joinPath(std::string_view dir, std::string_view name);
// "/a/b/c" -> "/a/b"; "/a" -> "/"; "/" -> "/".
std::string_view parentPath(std::string_view path);
// "/a/b/c" -> "c"; "/" -> "".
std::string_view baseName(std::string_view path);
// Whether `name` is usable as one path segment (non-empty, no '/', not "." or "..", no NUL).
bool isValidName(std::string_view name);
// The hidden names a write works under beside its destination, until it is renamed into
// place: ".strata-DIGITS.part" (random, for one write) and ".strata-resume-KEY.part" (stable
// for a resume key: its letters, digits, '-' and '_', at most 64).
std::string temporaryPartName();
std::string resumePartName(std::string_view resumeKey);
// Whether `name` is a temporary name of the first kind: the only names a journal's pending
// token may make a backend remove (Backend::discardPending), whatever the journal says.
bool isTemporaryPartName(std::string_view name);
// Whether `rel` is one or more valid names joined by single slashes ("a/b", not "a//b",
// "./a", "a/.." or "/a"): a name a server sends for something below a folder.
bool isValidRelativePath(std::string_view rel);
// Whether normal path `path` names something strictly below normal path `dir`.
bool isStrictlyBelow(std::string_view path, std::string_view dir);

} // namespace strata

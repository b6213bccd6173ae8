#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::webdav {

// The URL path of a backend path, every byte outside the unreserved set and '/' encoded
// ("/a b/#1" -> "/a%20b/%231"); a collection's ends in '/' (some servers insist).
std::string encodePath(std::string_view path, bool collection = false);

// The backend path an href of a multistatus names: absolute ("/dav/a%20b"), a full URL on
// our own origin ("http://host:port/dav/a"), or relative to the collection asked for.
// nullopt for an href on another server, with a bad escape, or that is no path of normal
// form ("a//b", "a/./b", "a/../b", an encoded '/' in a name): such entries are never listed.
std::optional<std::string> hrefPath(std::string_view href, std::string_view origin, std::string_view requested);

// Where an upload to `path` waits for its commit: a unique hidden name in the same
// collection (the MOVE that publishes it is then a rename on the server's disk).
std::string temporaryPath(std::string_view path);
// Whether `name` (one path segment) is such a temporary name.
bool isTemporaryName(std::string_view name);

} // namespace strata::webdav

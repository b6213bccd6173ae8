#pragma once

#include "core/storage/error.h"
#include "core/storage/result.h"

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

// What stops a write or a removal below what the user named when a folder on the way is a
// symbolic link (planted where a folder was expected), on every storage alike. `folder`,
// when given, is the folder found out of place and `leadsTo` where the server resolved it.
Error plantedLinkError(std::string_view folder = {}, std::string_view leadsTo = {});

// Where a server that resolves names itself (SFTP, FTP: no openat) should find `path`, a
// server path at or below `top`, if no folder between them is a symbolic link: `realTop`
// (what the server resolved `top` to) followed by the names of `path` below `top`.
std::string expectedRealPath(std::string_view realTop, std::string_view top, std::string_view path);

class RealPathCache;

// The check of a server that resolves names itself (SFTP realpath, FTP CWD + PWD), with no
// openat to act beneath a folder: folder `dir` (a backend path) is reached from `within` (a
// backend path at or above it; empty: no check) through no symbolic link when the server
// resolves `dir` to where it resolves `within` followed by the same names. `serverPath`
// maps a backend path to the server's; `resolve` asks the server where a server path leads.
Status confirmResolved(std::string_view dir, std::string_view within,
                       const std::function<std::string(std::string_view)> &serverPath,
                       const std::function<Result<std::string>(const std::string &)> &resolve, RealPathCache &cache);

// The question confirmResolved asks the server, for a caller that asks it in a request of
// its own (beside other commands): server path `where` must resolve to `expected`. Nothing
// to ask when `dir` is `within` or not below it. `resolve` is called here for `within`
// only, and only when the cache does not hold it.
struct ResolvedCheck {
    std::string where, expected;
};
Result<std::optional<ResolvedCheck>>
resolvedCheck(std::string_view dir, std::string_view within,
              const std::function<std::string(std::string_view)> &serverPath,
              const std::function<Result<std::string>(const std::string &)> &resolve, RealPathCache &cache);

// The folder a server resolved a named top folder to, kept for a short while: a removal
// or a write checks every folder below it against it, and asking again for each would
// cost a round trip per file. A top folder that moves meanwhile makes every check below it
// fail (safe), not pass.
class RealPathCache {
public:
    std::optional<std::string> find(std::string_view top) const;
    void keep(std::string top, std::string real);

private:
    static constexpr std::chrono::seconds kLifetime{30};
    mutable std::mutex m_mutex;
    std::string m_top, m_real;
    std::chrono::steady_clock::time_point m_at;
};

} // namespace strata

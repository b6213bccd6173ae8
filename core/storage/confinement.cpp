#include "core/storage/confinement.h"

#include "core/storage/path.h"
#include "core/storage/printable.h"

namespace strata {

Error plantedLinkError(std::string_view folder, std::string_view leadsTo)
{
    std::string message = "a folder on the way is a symbolic link (planted where a folder was expected)";
    if (!folder.empty())
        message += ": '" + printable(folder) + "' leads to "
            + (leadsTo.empty() ? std::string("another place") : "'" + printable(leadsTo) + "'");
    return Error(ErrorKind::InvalidInput, message + "; nothing is written or removed through it");
}

std::string expectedRealPath(std::string_view realTop, std::string_view top, std::string_view path)
{
    std::string_view rest = path.substr(top.size()); // "" or "/a/b"
    if (top == "/")
        rest = path == "/" ? std::string_view() : path; // every path is below "/"
    std::string real(realTop == "/" && !rest.empty() ? std::string_view() : realTop);
    real += rest;
    return real;
}

Result<std::optional<ResolvedCheck>>
resolvedCheck(std::string_view dir, std::string_view within,
              const std::function<std::string(std::string_view)> &serverPath,
              const std::function<Result<std::string>(const std::string &)> &resolve, RealPathCache &cache)
{
    if (within.empty() || (dir != within && !isStrictlyBelow(dir, within)))
        return std::optional<ResolvedCheck>();
    const std::string top = serverPath(within);
    std::optional<std::string> realTop = cache.find(top);
    if (!realTop) {
        auto real = resolve(top);
        if (!real)
            return std::move(real).error();
        cache.keep(top, *real);
        realTop = std::move(*real);
    }
    if (dir == within)
        return std::optional<ResolvedCheck>(); // what the user named is taken as it resolves, links included
    std::string where = serverPath(dir);
    std::string expected = expectedRealPath(*realTop, top, where);
    return std::optional(ResolvedCheck{std::move(where), std::move(expected)});
}

Status confirmResolved(std::string_view dir, std::string_view within,
                       const std::function<std::string(std::string_view)> &serverPath,
                       const std::function<Result<std::string>(const std::string &)> &resolve, RealPathCache &cache)
{
    auto check = resolvedCheck(dir, within, serverPath, resolve, cache);
    if (!check)
        return std::move(check).error();
    if (!*check)
        return {};
    auto real = resolve((*check)->where);
    if (!real)
        return std::move(real).error();
    if (*real != (*check)->expected)
        return plantedLinkError(dir, *real);
    return {};
}

std::optional<std::string> RealPathCache::find(std::string_view top) const
{
    std::lock_guard lock(m_mutex);
    if (m_top.empty() || m_top != top || std::chrono::steady_clock::now() - m_at > kLifetime)
        return std::nullopt;
    return m_real;
}

void RealPathCache::keep(std::string top, std::string real)
{
    std::lock_guard lock(m_mutex);
    m_top = std::move(top);
    m_real = std::move(real);
    m_at = std::chrono::steady_clock::now();
}

} // namespace strata

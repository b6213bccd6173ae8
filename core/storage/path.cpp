#include "core/storage/path.h"

#include "core/storage/random.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace strata {

Result<std::string> normalizePath(std::string_view path)
{
    if (path.find('\0') != std::string_view::npos)
        return Error(ErrorKind::InvalidInput, "the path contains a NUL byte");
    std::vector<std::string_view> segments;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t end = path.find('/', pos);
        if (end == std::string_view::npos)
            end = path.size();
        std::string_view seg = path.substr(pos, end - pos);
        if (seg.empty() || seg == ".") {
            // nothing
        } else if (seg == "..") {
            if (segments.empty())
                return Error(ErrorKind::InvalidInput, "the path climbs above the root with '..'");
            segments.pop_back();
        } else {
            segments.push_back(seg);
        }
        pos = end + 1;
    }
    // Returned separately: assigning "/" to the built string trips GCC 12's -Wrestrict.
    if (segments.empty())
        return std::string("/");
    std::string out;
    out.reserve(path.size() + 1);
    for (auto seg : segments) {
        out += '/';
        out += seg;
    }
    return out;
}

bool isNormalPath(std::string_view path)
{
    if (path.empty() || path.front() != '/')
        return false;
    if (path.size() == 1)
        return true;
    if (path.back() == '/' || path.find('\0') != std::string_view::npos)
        return false;
    std::size_t pos = 1;
    while (pos <= path.size()) {
        std::size_t end = path.find('/', pos);
        if (end == std::string_view::npos)
            end = path.size();
        const auto seg = path.substr(pos, end - pos);
        if (seg.empty() || seg == "." || seg == "..")
            return false;
        pos = end + 1;
    }
    return true;
}

std::string joinPath(std::string_view dir, std::string_view name)
{
    std::string out(dir);
    if (out.empty() || out.back() != '/')
        out += '/';
    out += name;
    return out;
}

std::string_view parentPath(std::string_view path)
{
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos || slash == 0)
        return "/";
    return path.substr(0, slash);
}

std::string_view baseName(std::string_view path)
{
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos)
        return path;
    return path.substr(slash + 1);
}

bool isValidName(std::string_view name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos
        && name.find('\0') == std::string_view::npos;
}

bool isValidRelativePath(std::string_view rel)
{
    for (std::size_t pos = 0;;) {
        const std::size_t slash = rel.find('/', pos);
        if (!isValidName(rel.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos)))
            return false;
        if (slash == std::string_view::npos)
            return true;
        pos = slash + 1;
    }
}

bool isStrictlyBelow(std::string_view path, std::string_view dir)
{
    if (!isNormalPath(path) || !isNormalPath(dir) || path.size() <= dir.size() || !path.starts_with(dir))
        return false;
    return dir == "/" || path[dir.size()] == '/';
}

std::string temporaryPartName()
{
    return ".strata-" + std::to_string(randomU64()) + ".part";
}

std::string resumePartName(std::string_view resumeKey)
{
    std::string key;
    for (char c : resumeKey)
        if (key.size() < 64 && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'))
            key += c;
    return ".strata-resume-" + key + ".part";
}

bool isTemporaryPartName(std::string_view name)
{
    constexpr std::string_view prefix = ".strata-", suffix = ".part";
    return name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) && name.ends_with(suffix)
        && std::all_of(name.begin() + prefix.size(), name.end() - suffix.size(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace strata

#include "backends/webdav/webdav_href.h"

#include "core/storage/path.h"
#include "core/storage/random.h"
#include "core/storage/uri.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace strata::webdav {

namespace {

bool equalNoCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower((unsigned char)x) == std::tolower((unsigned char)y);
           });
}

} // namespace

std::string encodePath(std::string_view path, bool collection)
{
    std::string out = percentEncode(path, "/");
    if (collection && !out.ends_with('/'))
        out += '/';
    return out;
}

std::optional<std::string> hrefPath(std::string_view href, std::string_view origin, std::string_view requested)
{
    href = href.substr(0, href.find_first_of("?#"));
    if (auto scheme = href.find("://"); scheme != std::string_view::npos) {
        // A full URL: only on our own scheme, host and port.
        const auto slash = href.find('/', scheme + 3);
        if (!equalNoCase(href.substr(0, slash), origin))
            return std::nullopt;
        href = slash == std::string_view::npos ? std::string_view("/") : href.substr(slash);
    }
    // Each segment must decode to one valid name: an href with "//", "." or "..", or a
    // name holding an encoded '/', names no path of ours and is never made into another.
    std::string path;
    if (href.starts_with('/'))
        href.remove_prefix(1);
    else if (requested != "/")
        path = std::string(requested); // relative to the collection listed
    if (href.ends_with('/'))
        href.remove_suffix(1); // a collection's
    while (!href.empty()) {
        const auto slash = href.find('/');
        auto name = percentDecode(href.substr(0, slash));
        if (!name || !isValidName(*name))
            return std::nullopt;
        path += '/';
        path += *name;
        href = slash == std::string_view::npos ? std::string_view() : href.substr(slash + 1);
        if (slash != std::string_view::npos && href.empty())
            return std::nullopt; // "a//" after the collection's slash was taken
    }
    if (path.empty())
        path = "/";
    return path;
}

namespace {
constexpr std::string_view kTemporaryPrefix = ".strata-upload-";
}

bool isTemporaryName(std::string_view name)
{
    if (!name.starts_with(kTemporaryPrefix) || name.find('/') != std::string_view::npos)
        return false;
    const std::string_view tag = name.substr(kTemporaryPrefix.size(), 16);
    return tag.size() == 16 && tag.find_first_not_of("0123456789abcdef") == std::string_view::npos
        && (name.size() == kTemporaryPrefix.size() + 16 || name[kTemporaryPrefix.size() + 16] == '-');
}

std::string temporaryPath(std::string_view path)
{
    char tag[17];
    std::snprintf(tag, sizeof tag, "%016llx", static_cast<unsigned long long>(randomU64()));
    // The final name is kept when short, so a left-over upload (a killed process) says
    // what it was; a long one would push the name past the server's limit.
    const std::string_view name = baseName(path);
    return joinPath(parentPath(path),
                    std::string(kTemporaryPrefix) + tag + (name.size() <= 100 ? "-" + std::string(name) : ""));
}

} // namespace strata::webdav

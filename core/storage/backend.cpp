#include "core/storage/backend.h"

namespace strata {

Error unsupported(std::string_view what)
{
    return Error(ErrorKind::Unsupported, std::string(what) + " is not available on this storage");
}

Status Writer::writeAt(std::uint64_t, std::span<const std::byte>)
{
    return unsupported("writing at an offset");
}

Status Writer::setLength(std::uint64_t)
{
    return unsupported("setting the length of an object being written");
}

Status Writer::zero(std::uint64_t, std::uint64_t)
{
    return unsupported("zeroing a range in place");
}

Status Backend::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    auto writer = write(path, options);
    if (!writer)
        return std::move(writer).error();
    if (auto st = (*writer)->write(data); !st) {
        (*writer)->abort();
        return st;
    }
    return (*writer)->commit();
}

Status Backend::removeMany(std::span<const std::string> paths, std::string_view within)
{
    for (const auto &path : paths)
        if (auto st = remove(path, within); !st)
            return st;
    return {};
}

Status Backend::createDir(std::string_view)
{
    return unsupported("creating directories");
}

Result<std::unique_ptr<Reader>> Backend::openReader(std::string_view, const Entry &)
{
    return unsupported("opening an object for reading");
}

Status Backend::setPermissions(std::string_view, std::uint32_t, std::string_view)
{
    return unsupported("setting permissions");
}

Status Backend::rename(std::string_view, std::string_view, bool)
{
    return unsupported("renaming");
}

Status Backend::copy(std::string_view, std::string_view)
{
    return unsupported("server-side copy");
}

Result<std::vector<Extent>> Backend::extents(std::string_view)
{
    return unsupported("an extent map");
}

Status Backend::copyRange(std::string_view, std::uint64_t, std::uint64_t, Writer &)
{
    return unsupported("copying ranges inside the storage");
}

} // namespace strata

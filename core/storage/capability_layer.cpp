#include "core/storage/capability_layer.h"

namespace strata {

namespace {

Error missing(Capability cap)
{
    return Error(ErrorKind::Unsupported, "this storage does not offer '" + std::string(toString(cap)) + "'");
}

} // namespace

#define STRATA_REQUIRE(cap)                       \
    do {                                          \
        if (!capabilities().has(Capability::cap)) \
            return missing(Capability::cap);      \
    } while (false)

Result<Entry> CapabilityLayer::stat(std::string_view path)
{
    STRATA_REQUIRE(Stat);
    return Layer::stat(path);
}

Result<ListPage> CapabilityLayer::list(std::string_view dir, const ListOptions &options)
{
    STRATA_REQUIRE(List);
    if (options.recursive)
        STRATA_REQUIRE(ListRecursive);
    return Layer::list(dir, options);
}

Result<std::size_t> CapabilityLayer::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    STRATA_REQUIRE(Read);
    if (offset != 0)
        STRATA_REQUIRE(RangedRead);
    return Layer::read(path, offset, buffer);
}

Result<std::unique_ptr<Writer>> CapabilityLayer::write(std::string_view path, const WriteOptions &options)
{
    STRATA_REQUIRE(Write);
    return Layer::write(path, options);
}

Status CapabilityLayer::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    STRATA_REQUIRE(Write);
    return Layer::put(path, data, options);
}

Status CapabilityLayer::remove(std::string_view path, std::string_view within)
{
    STRATA_REQUIRE(Remove);
    return Layer::remove(path, within);
}

Status CapabilityLayer::createDir(std::string_view path)
{
    STRATA_REQUIRE(CreateDir);
    return Layer::createDir(path);
}

Status CapabilityLayer::rename(std::string_view from, std::string_view to, bool replace)
{
    STRATA_REQUIRE(Rename);
    return Layer::rename(from, to, replace);
}

Status CapabilityLayer::copy(std::string_view from, std::string_view to)
{
    STRATA_REQUIRE(Copy);
    return Layer::copy(from, to);
}

Result<std::vector<Extent>> CapabilityLayer::extents(std::string_view path)
{
    STRATA_REQUIRE(Extents);
    return Layer::extents(path);
}

#undef STRATA_REQUIRE

} // namespace strata

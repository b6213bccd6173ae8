#pragma once

#include "core/storage/layer.h"

namespace strata {

// Refuses an operation the backend does not declare, with Unsupported, before any I/O.
class CapabilityLayer final : public Layer {
public:
    using Layer::Layer;

    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status copy(std::string_view from, std::string_view to) override;
    Result<std::vector<Extent>> extents(std::string_view path) override;
};

} // namespace strata

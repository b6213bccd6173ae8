#pragma once

#include "core/storage/layer.h"

#include <functional>
#include <string_view>

namespace strata {

using LogSink = std::function<void(std::string_view line)>;

// Writes one line per backend request to a sink: operation, redacted URI, outcome, time.
class LoggingLayer final : public Layer {
public:
    LoggingLayer(std::shared_ptr<Backend> inner, LogSink sink);

    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status copy(std::string_view from, std::string_view to) override;
    Result<std::vector<Extent>> extents(std::string_view path) override;
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to) override;

private:
    template <typename F>
    auto logged(std::string_view op, std::string_view path, std::string_view extra, F &&call) -> decltype(call());

    LogSink m_sink;
};

} // namespace strata

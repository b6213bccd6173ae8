#pragma once

// A Backend forwarding every call to another, for test doubles that change a few answers
// (a listing that lies, a slow remove). Not a layer: product layers derive from Layer and
// handle every operation in Layer::around().
#include "core/storage/backend.h"

#include <memory>

namespace strata::testing {

class ForwardingBackend : public Backend {
public:
    explicit ForwardingBackend(std::shared_ptr<Backend> inner) : m_inner(std::move(inner)) {}

    Capabilities capabilities() const override { return m_inner->capabilities(); }
    Uri uriFor(std::string_view path) const override { return m_inner->uriFor(path); }
    Result<Entry> stat(std::string_view path) override { return m_inner->stat(path); }
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override
    {
        return m_inner->list(dir, options);
    }
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override
    {
        return m_inner->read(path, offset, buffer);
    }
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version) override
    {
        return m_inner->readVersion(path, offset, buffer, version);
    }
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override
    {
        return m_inner->write(path, options);
    }
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override
    {
        return m_inner->put(path, data, options);
    }
    Status remove(std::string_view path, std::string_view within) override { return m_inner->remove(path, within); }
    Status removeMany(std::span<const std::string> paths, std::string_view within) override
    {
        return m_inner->removeMany(paths, within);
    }
    Status createDir(std::string_view path) override { return m_inner->createDir(path); }
    Status markDir(std::string_view path) override { return m_inner->markDir(path); }
    Status rename(std::string_view from, std::string_view to, bool replace) override
    {
        return m_inner->rename(from, to, replace);
    }
    Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow) override
    {
        return m_inner->setPermissions(path, mode, confineBelow);
    }
    Result<std::unique_ptr<Reader>> openReader(std::string_view path, const Entry &expected) override
    {
        return m_inner->openReader(path, expected);
    }
    Status copy(std::string_view from, std::string_view to) override { return m_inner->copy(from, to); }
    Result<std::vector<Extent>> extents(std::string_view path) override { return m_inner->extents(path); }
    Result<VersionPage> listVersions(std::string_view dir, const ListOptions &options) override
    {
        return m_inner->listVersions(dir, options);
    }
    Result<UploadPage> listUploads(std::string_view dir, const ListOptions &options) override
    {
        return m_inner->listUploads(dir, options);
    }
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to) override
    {
        return m_inner->copyRange(from, offset, length, to);
    }
    std::size_t preferredIoSize() const override { return m_inner->preferredIoSize(); }
    std::uint64_t preferredBytesInFlight() const override { return m_inner->preferredBytesInFlight(); }
    std::size_t preferredStreams(Flow flow) const override { return m_inner->preferredStreams(flow); }
    void willRead(std::string_view path, std::span<const Extent> ranges) override { m_inner->willRead(path, ranges); }
    void discardPending(std::string_view path, const std::string &token) override
    {
        m_inner->discardPending(path, token);
    }
    std::optional<std::string> localPath(std::string_view path) const override { return m_inner->localPath(path); }
    bool namesIgnoreCase(std::string_view path) const override { return m_inner->namesIgnoreCase(path); }

protected:
    std::shared_ptr<Backend> m_inner;
};

} // namespace strata::testing

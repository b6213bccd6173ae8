#include "backends/null/null_backend.h"

#include "core/storage/path.h"

namespace strata {

namespace {

class NullWriter final : public Writer {
public:
    Status write(std::span<const std::byte> data) override
    {
        m_length += data.size();
        return {};
    }
    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        std::lock_guard lock(m_mutex);
        m_length = std::max(m_length, offset + data.size());
        return {};
    }
    Status setLength(std::uint64_t length) override
    {
        std::lock_guard lock(m_mutex);
        m_length = length;
        return {};
    }
    Status commit() override
    {
        m_committed = true;
        return {};
    }
    void abort() override {}
    std::optional<std::uint64_t> committedSize() const override
    {
        return m_committed ? std::optional<std::uint64_t>(m_length) : std::nullopt;
    }

private:
    std::mutex m_mutex;
    std::uint64_t m_length = 0;
    bool m_committed = false;
};

// The root is an empty directory that accepts any file or folder and keeps none.
class NullBackend final : public Backend {
public:
    Capabilities capabilities() const override
    {
        return {Capability::Stat,      Capability::List,   Capability::Write,          Capability::PositionalWrite,
                Capability::CreateDir, Capability::Remove, Capability::RealDirectories};
    }
    Uri uriFor(std::string_view path) const override
    {
        Uri uri;
        uri.setScheme("null");
        uri.setPath(std::string(path));
        return uri;
    }
    Result<Entry> stat(std::string_view path) override
    {
        if (path != "/")
            return Error(ErrorKind::NotFound, "null: keeps nothing");
        Entry root;
        root.path = "/";
        root.kind = EntryKind::Directory;
        return root;
    }
    Result<ListPage> list(std::string_view dir, const ListOptions &) override
    {
        if (dir != "/")
            return Error(ErrorKind::NotFound, "null: keeps nothing");
        return ListPage{};
    }
    Result<std::size_t> read(std::string_view, std::uint64_t, std::span<std::byte>) override
    {
        return Error(ErrorKind::NotFound, "null: keeps nothing");
    }
    Result<std::unique_ptr<Writer>> write(std::string_view, const WriteOptions &) override
    {
        return std::unique_ptr<Writer>(std::make_unique<NullWriter>());
    }
    Status remove(std::string_view, std::string_view) override { return {}; }
    Status createDir(std::string_view) override { return {}; }
};

} // namespace

BackendDescription NullFactory::describe() const
{
    return {"Null destination", {"null:"}, "A destination that discards what it is given.", {}, {}};
}

Result<Target> NullFactory::locate(const Uri &uri)
{
    std::string path = uri.path().empty() ? std::string("/") : uri.path();
    return Target{"null:", path};
}

Result<std::shared_ptr<Backend>> NullFactory::create(const Uri &, const Target &, const ConnectionSecret &)
{
    return std::shared_ptr<Backend>(std::make_shared<NullBackend>());
}

} // namespace strata

#pragma once

// Layers wrap a Backend to add one concern (logging, metrics, retries, the capability
// check) to every operation. As in OpenDAL's layers, a layer does not override operations
// one by one (a forgotten one would silently bypass it): every operation of the backend,
// and of the writers and readers it returns, reaches the layer's one around() with a Call
// describing it, and the layer decides, in a switch over Operation, what to do.
#include "core/storage/backend.h"
#include "core/storage/operation.h"

#include <memory>

namespace strata {

// One operation as a layer sees it.
struct Call {
    Call(Operation o, std::string_view p, std::string_view oth = {}, std::uint64_t off = 0, std::uint64_t n = 0)
        : op(o), path(p), other(oth), offset(off), size(n)
    {
    }

    Operation op;
    std::string_view path;
    std::string_view other;   // rename, copy: the destination; read-version: the ETag
    std::uint64_t offset = 0; // reads, positional writes, copy-range
    // Bytes asked for (reads), given (put, writes, copy-range), the new length
    // (set-length), paths (remove-many), or for commit/abort/suspend the bytes written
    // through the writer; permission bits for set-permissions.
    std::uint64_t size = 0;
    bool recursive = false; // list
    bool replace = false;   // rename
};

// What came of an operation, as far as a layer cares.
struct Outcome {
    Status status;           // failed: the error the caller gets
    std::uint64_t bytes = 0; // succeeded: bytes read (reads), else 0

    bool ok() const { return status.ok(); }
    Error &error() { return status.error(); }
    const Error &error() const { return status.error(); }
};

// Runs the operation on the inner backend (again, for a retry); a reference to a callable
// that lives on the caller's stack, no allocation.
class Next {
public:
    template <typename F>
    explicit Next(F &f) : m_callable(&f), m_call([](void *c) { return (*static_cast<F *>(c))(); })
    {
    }
    Outcome operator()() const { return m_call(m_callable); }

private:
    void *m_callable;
    Outcome (*m_call)(void *);
};

class Layer : public Backend, public std::enable_shared_from_this<Layer> {
public:
    explicit Layer(std::shared_ptr<Backend> inner) : m_inner(std::move(inner)) {}

    // Queries, not operations: answered by the inner backend.
    Capabilities capabilities() const override { return m_inner->capabilities(); }
    Uri uriFor(std::string_view path) const override { return m_inner->uriFor(path); }
    std::size_t preferredIoSize() const override { return m_inner->preferredIoSize(); }
    std::uint64_t preferredBytesInFlight() const override { return m_inner->preferredBytesInFlight(); }
    bool oneStreamPerObject(Flow flow) const override { return m_inner->oneStreamPerObject(flow); }
    std::size_t preferredStreams(Flow flow) const override { return m_inner->preferredStreams(flow); }
    std::optional<std::string> localPath(std::string_view path) const override { return m_inner->localPath(path); }
    bool namesIgnoreCase(std::string_view path) const override { return m_inner->namesIgnoreCase(path); }
    void hangUp() override { m_inner->hangUp(); }
    Result<std::string> shareLink(std::string_view path, std::chrono::seconds lifetime) const override
    {
        return m_inner->shareLink(path, lifetime);
    }

    // Operations: each through around(), none to override.
    Result<Entry> stat(std::string_view path) final;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) final;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) final;
    Result<std::size_t> readQueue(std::string_view path, IoQueue &queue) final;
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version) final;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) final;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) final;
    Status remove(std::string_view path, std::string_view within) final;
    Status removeMany(std::span<const std::string> paths, std::string_view within) final;
    Status createDir(std::string_view path) final;
    Status markDir(std::string_view path) final; // counted as a CreateDir
    Status rename(std::string_view from, std::string_view to, bool replace) final;
    Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow) final;
    Result<std::unique_ptr<Reader>> openReader(std::string_view path, const Entry &expected) final;
    Status copy(std::string_view from, std::string_view to) final;
    Result<std::vector<Extent>> extents(std::string_view path) final;
    Result<VersionPage> listVersions(std::string_view dir, const ListOptions &options) final;
    Result<UploadPage> listUploads(std::string_view dir, const ListOptions &options) final;
    Result<ObjectDetails> details(std::string_view path) final;
    Status changeDetails(std::string_view path, const DetailsChange &change) final;
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to) final;
    void willRead(std::string_view path, std::span<const Extent> ranges) final;
    void discardPending(std::string_view path, const std::string &token) final;

    // Runs `inner` (the operation below this layer) through around(). Public for the
    // writers and readers this layer hands out.
    template <typename T, typename F>
    Result<T> run(const Call &call, F &&inner);

protected:
    // Every operation passes here once per call. `next` performs it on the inner backend
    // and may be called again (a retry) or not at all (a refusal: return the error).
    virtual Outcome around(const Call &call, Next next) = 0;

    std::shared_ptr<Backend> m_inner;
};

namespace detail {

template <typename T>
Outcome outcomeOf(const Result<T> &result)
{
    if (!result.ok())
        return {Status(result.error()), 0};
    if constexpr (std::is_same_v<T, std::size_t>)
        return {Status(), std::uint64_t(*result)};
    else
        return {};
}
inline Outcome outcomeOf(const Status &status)
{
    return {status, 0};
}

} // namespace detail

template <typename T, typename F>
Result<T> Layer::run(const Call &call, F &&inner)
{
    std::optional<Result<T>> result;
    auto once = [&]() -> Outcome {
        result.emplace(inner());
        return detail::outcomeOf(*result);
    };
    Outcome outcome = around(call, Next(once));
    if (!outcome.status.ok())
        return std::move(outcome.status).error(); // as the layer returns it (a cause added, a refusal)
    if constexpr (std::is_void_v<T>) {
        return {}; // a layer may turn a failure into success (a retried create-dir found done)
    } else {
        if (!result) // a layer that neither ran the operation nor refused it: a bug in that layer
            return Error(ErrorKind::Unexpected, "a storage layer skipped " + std::string(toString(call.op)));
        return std::move(*result);
    }
}

} // namespace strata

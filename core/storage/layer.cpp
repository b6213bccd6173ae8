#include "core/storage/layer.h"

#include <atomic>

namespace strata {

std::string_view toString(Operation op)
{
    switch (op) {
    case Operation::Stat: return "stat";
    case Operation::List: return "list";
    case Operation::Read: return "read";
    case Operation::ReadQueue: return "read-queue";
    case Operation::ReadVersion: return "read-version";
    case Operation::OpenWriter: return "open-writer";
    case Operation::Put: return "put";
    case Operation::Remove: return "remove";
    case Operation::RemoveMany: return "remove-many";
    case Operation::CreateDir: return "create-dir";
    case Operation::Rename: return "rename";
    case Operation::SetPermissions: return "set-permissions";
    case Operation::OpenReader: return "open-reader";
    case Operation::Copy: return "copy";
    case Operation::Extents: return "extents";
    case Operation::CopyRange: return "copy-range";
    case Operation::WillRead: return "will-read";
    case Operation::DiscardPending: return "discard-pending";
    case Operation::ListVersions: return "list-versions";
    case Operation::ListUploads: return "list-uploads";
    case Operation::Details: return "details";
    case Operation::ChangeDetails: return "change-details";
    case Operation::WriterWrite: return "write";
    case Operation::WriterWriteAt: return "write-at";
    case Operation::WriterSetLength: return "set-length";
    case Operation::WriterZero: return "zero";
    case Operation::WriterWriteQueue: return "write-queue";
    case Operation::WriterCommit: return "commit";
    case Operation::WriterAbort: return "abort";
    case Operation::WriterSuspend: return "suspend";
    case Operation::ReaderRead: return "reader-read";
    case Operation::ReaderCopyRange: return "reader-copy-range";
    case Operation::ReaderStat: return "reader-stat";
    case Operation::Count_: break;
    }
    return "unknown";
}

namespace {

// The layer a writer or reader was opened through: kept alive by the writer when the
// layer is shared (it usually is: writers may outlive the operator that made them).
struct LayerRef {
    explicit LayerRef(Layer &l) : keep(l.weak_from_this().lock()), layer(&l) {}
    std::shared_ptr<Layer> keep;
    Layer *layer;
};

// A writer whose every operation passes through the layer that opened it.
class LayerWriter final : public Writer {
public:
    LayerWriter(std::unique_ptr<Writer> inner, Layer &layer, std::string_view path)
        : m_inner(std::move(inner)), m_ref(layer), m_path(path)
    {
    }
    ~LayerWriter() override
    {
        if (!m_done)
            abort();
    }
    Status write(std::span<const std::byte> data) override
    {
        auto st =
            m_ref.layer->run<void>(call(Operation::WriterWrite, 0, data.size()), [&] { return m_inner->write(data); });
        if (st)
            m_bytes.fetch_add(data.size(), std::memory_order_relaxed);
        return st;
    }
    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        auto st = m_ref.layer->run<void>(call(Operation::WriterWriteAt, offset, data.size()),
                                         [&] { return m_inner->writeAt(offset, data); });
        if (st)
            m_bytes.fetch_add(data.size(), std::memory_order_relaxed);
        return st;
    }
    Status setLength(std::uint64_t length) override
    {
        return m_ref.layer->run<void>(call(Operation::WriterSetLength, 0, length),
                                      [&] { return m_inner->setLength(length); });
    }
    Status zero(std::uint64_t offset, std::uint64_t length) override
    {
        return m_ref.layer->run<void>(call(Operation::WriterZero, offset, length),
                                      [&] { return m_inner->zero(offset, length); });
    }
    Result<std::size_t> writeQueue(IoQueue &queue) override
    {
        auto n = m_ref.layer->run<std::size_t>(call(Operation::WriterWriteQueue, 0, queue.depth),
                                               [&] { return m_inner->writeQueue(queue); });
        if (n)
            m_bytes.fetch_add(*n, std::memory_order_relaxed);
        return n;
    }
    Status commit() override
    {
        m_done = true;
        return m_ref.layer->run<void>(call(Operation::WriterCommit, 0, m_bytes), [&] { return m_inner->commit(); });
    }
    void abort() override
    {
        if (m_done) {
            m_inner->abort(); // idempotent below; reported once
            return;
        }
        m_done = true;
        (void)m_ref.layer->run<void>(call(Operation::WriterAbort, 0, m_bytes), [&] {
            m_inner->abort();
            return Status();
        });
    }
    void suspend() override
    {
        m_done = true;
        (void)m_ref.layer->run<void>(call(Operation::WriterSuspend, 0, m_bytes), [&] {
            m_inner->suspend();
            return Status();
        });
    }
    bool keepsPartialState() const override { return m_inner->keepsPartialState(); }
    std::optional<std::uint64_t> partialLength() const override { return m_inner->partialLength(); }
    std::string refusedPartial() const override { return m_inner->refusedPartial(); }
    int nativeHandle() const override { return m_inner->nativeHandle(); }
    std::optional<std::uint64_t> committedSize() const override { return m_inner->committedSize(); }

private:
    Call call(Operation op, std::uint64_t offset, std::uint64_t size) const
    {
        return Call{op, m_path, {}, offset, size};
    }

    std::unique_ptr<Writer> m_inner;
    LayerRef m_ref;
    std::string m_path;
    std::atomic<std::uint64_t> m_bytes{0};
    bool m_done = false;
};

// A reader whose every operation passes through the layer that opened it.
class LayerReader final : public Reader {
public:
    LayerReader(std::unique_ptr<Reader> inner, Layer &layer, std::string_view path)
        : m_inner(std::move(inner)), m_ref(layer), m_path(path)
    {
    }
    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) override
    {
        return m_ref.layer->run<std::size_t>(Call{Operation::ReaderRead, m_path, {}, offset, buffer.size()},
                                             [&] { return m_inner->read(offset, buffer); });
    }
    Status copyRangeTo(std::uint64_t offset, std::uint64_t length, Writer &to) override
    {
        return m_ref.layer->run<void>(Call{Operation::ReaderCopyRange, m_path, {}, offset, length},
                                      [&] { return m_inner->copyRangeTo(offset, length, to); });
    }
    Result<Entry> stat() override
    {
        return m_ref.layer->run<Entry>(Call{Operation::ReaderStat, m_path}, [&] { return m_inner->stat(); });
    }

private:
    std::unique_ptr<Reader> m_inner;
    LayerRef m_ref;
    std::string m_path;
};

} // namespace

Result<Entry> Layer::stat(std::string_view path)
{
    return run<Entry>(Call{Operation::Stat, path}, [&] { return m_inner->stat(path); });
}

Result<ListPage> Layer::list(std::string_view dir, const ListOptions &options)
{
    Call call{Operation::List, dir};
    call.recursive = options.recursive;
    return run<ListPage>(call, [&] { return m_inner->list(dir, options); });
}

Result<std::size_t> Layer::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    return run<std::size_t>(Call{Operation::Read, path, {}, offset, buffer.size()},
                            [&] { return m_inner->read(path, offset, buffer); });
}

Result<std::size_t> Layer::readQueue(std::string_view path, IoQueue &queue)
{
    return run<std::size_t>(Call{Operation::ReadQueue, path, {}, 0, queue.depth},
                            [&] { return m_inner->readQueue(path, queue); });
}

Result<std::size_t> Layer::readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                       const ObjectVersion &version)
{
    return run<std::size_t>(Call{Operation::ReadVersion, path, version.etag, offset, buffer.size()},
                            [&] { return m_inner->readVersion(path, offset, buffer, version); });
}

Result<std::unique_ptr<Writer>> Layer::write(std::string_view path, const WriteOptions &options)
{
    auto writer =
        run<std::unique_ptr<Writer>>(Call{Operation::OpenWriter, path}, [&] { return m_inner->write(path, options); });
    if (!writer)
        return writer;
    return std::unique_ptr<Writer>(std::make_unique<LayerWriter>(std::move(*writer), *this, path));
}

Status Layer::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    return run<void>(Call{Operation::Put, path, {}, 0, data.size()}, [&] { return m_inner->put(path, data, options); });
}

Status Layer::remove(std::string_view path, std::string_view within)
{
    return run<void>(Call{Operation::Remove, path}, [&] { return m_inner->remove(path, within); });
}

Status Layer::removeMany(std::span<const std::string> paths, std::string_view within)
{
    const std::string_view first = paths.empty() ? std::string_view() : std::string_view(paths.front());
    return run<void>(Call{Operation::RemoveMany, first, {}, 0, paths.size()},
                     [&] { return m_inner->removeMany(paths, within); });
}

Status Layer::createDir(std::string_view path)
{
    return run<void>(Call{Operation::CreateDir, path}, [&] { return m_inner->createDir(path); });
}

Status Layer::markDir(std::string_view path)
{
    return run<void>(Call{Operation::CreateDir, path}, [&] { return m_inner->markDir(path); });
}

Status Layer::rename(std::string_view from, std::string_view to, bool replace)
{
    Call call{Operation::Rename, from, to};
    call.replace = replace;
    return run<void>(call, [&] { return m_inner->rename(from, to, replace); });
}

Status Layer::setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow)
{
    return run<void>(Call{Operation::SetPermissions, path, {}, 0, mode},
                     [&] { return m_inner->setPermissions(path, mode, confineBelow); });
}

Result<std::unique_ptr<Reader>> Layer::openReader(std::string_view path, const Entry &expected)
{
    auto reader = run<std::unique_ptr<Reader>>(Call{Operation::OpenReader, path},
                                               [&] { return m_inner->openReader(path, expected); });
    if (!reader)
        return reader;
    return std::unique_ptr<Reader>(std::make_unique<LayerReader>(std::move(*reader), *this, path));
}

Status Layer::copy(std::string_view from, std::string_view to)
{
    return run<void>(Call{Operation::Copy, from, to}, [&] { return m_inner->copy(from, to); });
}

Result<std::vector<Extent>> Layer::extents(std::string_view path)
{
    return run<std::vector<Extent>>(Call{Operation::Extents, path}, [&] { return m_inner->extents(path); });
}

Result<VersionPage> Layer::listVersions(std::string_view dir, const ListOptions &options)
{
    return run<VersionPage>(Call{Operation::ListVersions, dir}, [&] { return m_inner->listVersions(dir, options); });
}

Result<UploadPage> Layer::listUploads(std::string_view dir, const ListOptions &options)
{
    return run<UploadPage>(Call{Operation::ListUploads, dir}, [&] { return m_inner->listUploads(dir, options); });
}

Result<ObjectDetails> Layer::details(std::string_view path)
{
    return run<ObjectDetails>(Call{Operation::Details, path}, [&] { return m_inner->details(path); });
}

Status Layer::changeDetails(std::string_view path, const DetailsChange &change)
{
    return run<void>(Call{Operation::ChangeDetails, path}, [&] { return m_inner->changeDetails(path, change); });
}

Status Layer::copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to)
{
    return run<void>(Call{Operation::CopyRange, from, {}, offset, length},
                     [&] { return m_inner->copyRange(from, offset, length, to); });
}

void Layer::willRead(std::string_view path, std::span<const Extent> ranges)
{
    (void)run<void>(Call{Operation::WillRead, path, {}, 0, ranges.size()}, [&] {
        m_inner->willRead(path, ranges);
        return Status();
    });
}

void Layer::discardPending(std::string_view path, const std::string &token)
{
    (void)run<void>(Call{Operation::DiscardPending, path}, [&] {
        m_inner->discardPending(path, token);
        return Status();
    });
}

} // namespace strata

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

namespace {

// A queue without a backend's own: each request completes before the next is asked for.
Result<std::size_t> oneAfterAnother(IoQueue &queue, const std::function<Result<std::size_t>(IoQueue::Request &)> &one)
{
    std::size_t total = 0;
    IoQueue::Request request; // slot 0, the only one
    while (queue.next(request)) {
        auto n = one(request);
        if (!n)
            return std::move(n).error();
        total += *n;
        queue.done(request);
    }
    return total;
}

} // namespace

Result<std::size_t> Writer::writeQueue(IoQueue &queue)
{
    return oneAfterAnother(queue, [this](IoQueue::Request &r) -> Result<std::size_t> {
        if (auto st = writeAt(r.offset, r.buffer); !st)
            return std::move(st).error();
        return r.buffer.size();
    });
}

Result<std::size_t> Backend::readQueue(std::string_view path, IoQueue &queue)
{
    return oneAfterAnother(queue, [&](IoQueue::Request &r) { return read(path, r.offset, r.buffer); });
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

Result<ObjectDetails> Backend::details(std::string_view)
{
    return Error(ErrorKind::Unsupported, "this storage keeps no details besides the bytes");
}

Status Backend::changeDetails(std::string_view, const DetailsChange &)
{
    return Error(ErrorKind::Unsupported, "this storage keeps no metadata or tags to change");
}

Result<std::string> Backend::shareLink(std::string_view, std::chrono::seconds) const
{
    return Error(ErrorKind::Unsupported, "this storage has no share links");
}

Result<VersionPage> Backend::listVersions(std::string_view, const ListOptions &)
{
    return unsupported("object versions");
}

Result<UploadPage> Backend::listUploads(std::string_view, const ListOptions &)
{
    return unsupported("a list of unfinished uploads");
}

Status Backend::copyRange(std::string_view, std::uint64_t, std::uint64_t, Writer &)
{
    return unsupported("copying ranges inside the storage");
}

} // namespace strata

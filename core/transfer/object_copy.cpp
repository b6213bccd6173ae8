#include "core/transfer/object_copy.h"

#include "core/io/buffer_pool.h"

namespace strata {

namespace {

Error cancelled(const Location &dst)
{
    return Error(ErrorKind::Cancelled, "stopped before the copy finished; nothing was written")
        .withContext("copy to", dst.display());
}

} // namespace

Result<ObjectCopyReport> copyObject(const Location &src, const Location &dst, const ObjectCopyOptions &options)
{
    auto entry = src.op->stat(src.path);
    if (!entry)
        return std::move(entry).error();
    if (entry->isDir())
        return Error(ErrorKind::IsDirectory, "copying a directory needs a recursive transfer")
            .withContext("copy", src.display());

    ObjectCopyReport report;
    report.bytes = entry->size;

    if (src.sameBackend(dst) && src.op->capabilities().has(Capability::Copy) && options.overwrite && !options.sync) {
        if (src.path == dst.path)
            return Error(ErrorKind::InvalidInput, "source and destination are the same object")
                .withContext("copy", src.display());
        auto st = src.op->copy(src.path, dst.path);
        if (!st)
            return std::move(st).error();
        report.serverSide = true;
        if (options.progress)
            options.progress(report.bytes, report.bytes);
        return report;
    }

    auto writer = dst.op->write(dst.path, WriteOptions{entry->size, options.overwrite, options.sync});
    if (!writer)
        return std::move(writer).error();

    // Ranges to move: the data extents when both ends allow skipping holes, else all.
    std::vector<Extent> ranges;
    const bool sparse = src.op->capabilities().has(Capability::Extents)
        && dst.op->capabilities().has(Capability::PositionalWrite);
    if (sparse) {
        if (auto map = src.op->extents(src.path); map)
            ranges = std::move(*map);
    }
    if (ranges.empty() && entry->size > 0)
        ranges.push_back({0, entry->size, ExtentKind::Data});

    BufferPool pool(std::min<std::uint64_t>(options.chunkSize, std::max<std::uint64_t>(entry->size, 4096)), 1);
    PooledBuffer buffer = pool.acquire();
    std::uint64_t done = 0;
    for (const auto &range : ranges) {
        if (range.kind != ExtentKind::Data) {
            done += range.length;
            continue;
        }
        std::uint64_t pos = range.offset;
        while (pos < range.end()) {
            auto want = buffer.span().first(std::size_t(std::min<std::uint64_t>(buffer.size(), range.end() - pos)));
            auto n = src.op->read(src.path, pos, want);
            if (!n)
                return std::move(n).error(); // the writer aborts as it goes out of scope
            if (*n == 0)
                return Error(ErrorKind::Corrupt, "the source ended early; it may have changed during the copy")
                    .withContext("copy", src.display());
            auto chunk = want.first(*n);
            auto st = sparse ? (*writer)->writeAt(pos, chunk) : (*writer)->write(chunk);
            if (!st)
                return std::move(st).error();
            pos += *n;
            done += *n;
            report.bytesMoved += *n;
            if (options.progress && !options.progress(done, report.bytes))
                return cancelled(dst);
        }
    }
    if (sparse)
        if (auto st = (*writer)->setLength(entry->size); !st)
            return std::move(st).error();
    if (auto st = (*writer)->commit(); !st)
        return std::move(st).error();
    return report;
}

} // namespace strata

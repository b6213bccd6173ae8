#include "core/storage/logging_layer.h"

#include <atomic>
#include <chrono>
#include <cstdio>

namespace strata {

namespace {

std::string elapsedSince(std::chrono::steady_clock::time_point start)
{
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f ms", ms);
    return buf;
}

template <typename R>
std::string outcome(const R &result)
{
    if (result.ok())
        return "ok";
    return "failed: " + std::string(identifier(result.error().kind())) + " (" + result.error().cause() + ")";
}

// Logs what was sent through a writer when it is committed or aborted.
class LoggingWriter final : public Writer {
public:
    void suspend() override
    {
        m_inner->suspend();
        if (!m_done)
            m_sink("suspend " + m_uri + " (" + std::to_string(m_bytes.load()) + " bytes kept for resuming)");
        m_done = true;
    }
    bool keepsPartialState() const override { return m_inner->keepsPartialState(); }
    int nativeHandle() const override { return m_inner->nativeHandle(); }
    std::optional<std::uint64_t> committedSize() const override { return m_inner->committedSize(); }
    LoggingWriter(std::unique_ptr<Writer> inner, const LogSink &sink, std::string uri)
        : m_inner(std::move(inner)), m_sink(sink), m_uri(std::move(uri))
    {
    }
    ~LoggingWriter() override
    {
        if (!m_done)
            abort();
    }
    Status write(std::span<const std::byte> data) override
    {
        m_bytes += data.size();
        return m_inner->write(data);
    }
    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        m_bytes += data.size();
        return m_inner->writeAt(offset, data);
    }
    Status setLength(std::uint64_t length) override { return m_inner->setLength(length); }
    Status commit() override
    {
        const auto start = std::chrono::steady_clock::now();
        auto st = m_inner->commit();
        m_done = true;
        m_sink("commit " + m_uri + " (" + std::to_string(m_bytes.load()) + " bytes) " + outcome(st) + " "
               + elapsedSince(start));
        return st;
    }
    void abort() override
    {
        m_inner->abort();
        if (!m_done)
            m_sink("abort " + m_uri + " (" + std::to_string(m_bytes.load()) + " bytes discarded)");
        m_done = true;
    }

private:
    std::unique_ptr<Writer> m_inner;
    LogSink m_sink;
    std::string m_uri;
    std::atomic<std::uint64_t> m_bytes{0};
    bool m_done = false;
};

} // namespace

LoggingLayer::LoggingLayer(std::shared_ptr<Backend> inner, LogSink sink)
    : Layer(std::move(inner)), m_sink(std::move(sink))
{
}

template <typename F>
auto LoggingLayer::logged(std::string_view op, std::string_view path, std::string_view extra, F &&call)
    -> decltype(call())
{
    const auto start = std::chrono::steady_clock::now();
    auto result = call();
    std::string line(op);
    line += ' ';
    line += uriFor(path).redacted();
    if (!extra.empty()) {
        line += ' ';
        line += extra;
    }
    line += ' ';
    line += outcome(result);
    line += ' ';
    line += elapsedSince(start);
    m_sink(line);
    return result;
}

Result<Entry> LoggingLayer::stat(std::string_view path)
{
    return logged("stat", path, {}, [&] { return Layer::stat(path); });
}

Result<ListPage> LoggingLayer::list(std::string_view dir, const ListOptions &options)
{
    return logged("list", dir, options.recursive ? "(recursive)" : "", [&] { return Layer::list(dir, options); });
}

Result<std::size_t> LoggingLayer::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    const std::string range = "[" + std::to_string(offset) + "+" + std::to_string(buffer.size()) + "]";
    return logged("read", path, range, [&] { return Layer::read(path, offset, buffer); });
}

Result<std::size_t> LoggingLayer::readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                              const ObjectVersion &version)
{
    const std::string range = "[" + std::to_string(offset) + "+" + std::to_string(buffer.size()) + "] if " + std::string(version.etag);
    return logged("read", path, range, [&] { return Layer::readVersion(path, offset, buffer, version); });
}

Result<std::unique_ptr<Writer>> LoggingLayer::write(std::string_view path, const WriteOptions &options)
{
    auto writer = logged("open-writer", path, {}, [&] { return Layer::write(path, options); });
    if (!writer)
        return writer;
    return std::unique_ptr<Writer>(std::make_unique<LoggingWriter>(std::move(*writer), m_sink, uriFor(path).redacted()));
}

Status LoggingLayer::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    return logged("put", path, std::to_string(data.size()) + " bytes", [&] { return Layer::put(path, data, options); });
}

Status LoggingLayer::remove(std::string_view path, std::string_view within)
{
    return logged("remove", path, {}, [&] { return Layer::remove(path, within); });
}

Status LoggingLayer::createDir(std::string_view path)
{
    return logged("create-dir", path, {}, [&] { return Layer::createDir(path); });
}

Status LoggingLayer::rename(std::string_view from, std::string_view to, bool replace)
{
    const std::string target = "-> " + uriFor(to).redacted() + (replace ? " (replace)" : "");
    return logged("rename", from, target, [&] { return Layer::rename(from, to, replace); });
}

Status LoggingLayer::copy(std::string_view from, std::string_view to)
{
    const std::string target = "-> " + uriFor(to).redacted();
    return logged("copy", from, target, [&] { return Layer::copy(from, to); });
}

Status LoggingLayer::copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to)
{
    const std::string range = "[" + std::to_string(offset) + "+" + std::to_string(length) + "]";
    return logged("copy-range", from, range, [&] { return Layer::copyRange(from, offset, length, to); });
}

Result<std::vector<Extent>> LoggingLayer::extents(std::string_view path)
{
    return logged("extents", path, {}, [&] { return Layer::extents(path); });
}

} // namespace strata

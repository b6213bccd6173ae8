#include "backends/webdav/webdav_writer.h"

#include "backends/webdav/webdav_backend.h"
#include "backends/webdav/webdav_href.h"
#include "core/storage/path.h"

#include <cstring>

namespace strata::webdav {

WebDavWriter::WebDavWriter(std::shared_ptr<WebDavBackend> backend, std::string path, WriteOptions options)
    : m_backend(std::move(backend)), m_path(std::move(path)), m_temp(temporaryPath(m_path)),
      m_options(std::move(options))
{
    if (m_options.sizeHint && *m_options.sizeHint <= kStreamFrom)
        m_buffer.reserve(std::size_t(*m_options.sizeHint));
}

void WebDavWriter::announce()
{
    // Before the server sees a byte: a process killed between this upload's PUT and its
    // MOVE leaves the temporary file, and the next run finds its name in the journal.
    m_sentSome = true;
    if (m_options.onPending)
        m_options.onPending(std::string(baseName(m_temp)));
}

WebDavWriter::~WebDavWriter()
{
    abort();
}

Status WebDavWriter::write(std::span<const std::byte> data)
{
    if (m_finished)
        return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
    m_written += data.size();
    if (!m_thread.joinable()) {
        const bool large = m_options.sizeHint && *m_options.sizeHint > kStreamFrom;
        if (!large && m_buffer.size() + data.size() <= kBufferLimit) {
            m_buffer.insert(m_buffer.end(), data.begin(), data.end());
            return {};
        }
        if (auto st = startStream(); !st)
            return st;
    }
    if (m_options.sizeHint && m_written > *m_options.sizeHint)
        return Error(ErrorKind::InvalidInput,
                     "more bytes were written than the " + std::to_string(*m_options.sizeHint) + " announced");
    if (!m_buffer.empty()) { // what was kept before the stream started goes first
        auto st = handOver(m_buffer);
        m_buffer = {};
        if (!st)
            return st;
    }
    return handOver(data);
}

Status WebDavWriter::startStream()
{
    // The first request to a server that wants credentials is answered 401 and sent again:
    // a streamed body cannot be, so the server is asked its scheme first.
    auto scheme = m_backend->authSchemeFor(parentPath(m_path));
    if (!scheme)
        return std::move(scheme).error();
    announce();
    http::Request request;
    request.source = [this](std::span<std::byte> out) { return pull(out); };
    request.sourceSize = m_options.sizeHint; // none: sent chunked
    request.authSchemes = *scheme;
    m_thread = std::thread([this, request = std::move(request)]() mutable {
        auto st = m_backend->upload(m_temp, std::move(request));
        std::lock_guard lock(m_mutex);
        if (!st)
            m_streamError = std::move(st).error();
        m_done = true;
        m_cv.notify_all();
    });
    return {};
}

Status WebDavWriter::handOver(std::span<const std::byte> data)
{
    if (data.empty())
        return {};
    std::unique_lock lock(m_mutex);
    m_pending = data;
    m_cv.notify_all();
    m_cv.wait(lock, [this] { return m_pending.empty() || m_done; });
    if (!m_pending.empty()) {
        m_pending = {}; // the caller's bytes: never touched once write() returned
        return m_streamError ? *m_streamError : Error(ErrorKind::Network, "the server ended the upload early");
    }
    return {};
}

std::size_t WebDavWriter::pull(std::span<std::byte> out)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return !m_pending.empty() || m_end || m_cancel; });
    if (m_cancel)
        return http::Request::kAbortBody;
    const std::size_t n = std::min(out.size(), m_pending.size());
    std::memcpy(out.data(), m_pending.data(), n);
    m_pending = m_pending.subspan(n);
    if (m_pending.empty())
        m_cv.notify_all();
    return n; // 0 only at the end
}

Status WebDavWriter::finishStream()
{
    {
        std::lock_guard lock(m_mutex);
        m_end = true;
        m_cv.notify_all();
    }
    m_thread.join();
    std::lock_guard lock(m_mutex);
    if (m_streamError)
        return *m_streamError;
    return {};
}

void WebDavWriter::stopStream()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_cancel = true;
        m_cv.notify_all();
    }
    m_thread.join();
}

Status WebDavWriter::commit()
{
    if (m_finished)
        return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
    m_finished = true;
    Status sent;
    if (m_thread.joinable() && m_options.sizeHint && m_written != *m_options.sizeHint) {
        stopStream();
        sent = Error(ErrorKind::InvalidInput,
                     std::to_string(m_written) + " bytes were written of the " + std::to_string(*m_options.sizeHint)
                         + " announced");
    } else if (m_thread.joinable()) {
        sent = finishStream();
    } else {
        announce();
        http::Request request;
        request.body = m_buffer;
        sent = m_backend->upload(m_temp, std::move(request));
    }
    m_buffer = {};
    if (!sent) {
        m_backend->discard(m_temp); // a server may keep what it received of a broken upload
        return sent;
    }
    if (auto st = m_backend->publish(m_temp, m_path, m_options.overwrite); !st)
        return st;
    m_committed = m_written;
    return {};
}

void WebDavWriter::abort()
{
    if (m_finished)
        return;
    m_finished = true;
    stopStream();
    m_buffer = {};
    if (m_sentSome)
        m_backend->discard(m_temp);
}

} // namespace strata::webdav

#include "backends/webdav/webdav_writer.h"

#include "backends/webdav/webdav_backend.h"
#include "backends/webdav/webdav_href.h"
#include "core/storage/path.h"

#include <cstring>

namespace strata::webdav {

WebDavWriter::WebDavWriter(std::shared_ptr<WebDavBackend> backend, std::string path, WriteOptions options)
    : m_backend(std::move(backend)), m_path(std::move(path)), m_temp(temporaryPath(m_path)), m_options(std::move(options))
{
    if (m_options.sizeHint && *m_options.sizeHint <= kBufferLimit)
        m_buffer.reserve(std::size_t(*m_options.sizeHint));
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
        const bool large = m_options.sizeHint && *m_options.sizeHint > kBufferLimit;
        if (!large && m_buffer.size() + data.size() <= kBufferLimit) {
            m_buffer.insert(m_buffer.end(), data.begin(), data.end());
            return {};
        }
        if (auto st = startStream(); !st)
            return st;
    }
    if (m_options.sizeHint && m_written > *m_options.sizeHint)
        return Error(ErrorKind::InvalidInput, "more bytes were written than the " + std::to_string(*m_options.sizeHint)
                                                  + " announced");
    return enqueue(data);
}

Status WebDavWriter::startStream()
{
    // The first request to a server that wants credentials is answered 401 and sent again:
    // a streamed body cannot be, so the server is asked its scheme first.
    auto scheme = m_backend->authSchemeFor(parentPath(m_path));
    if (!scheme)
        return std::move(scheme).error();
    m_sentSome = true;
    if (!m_buffer.empty()) {
        m_queued = m_buffer.size();
        m_queue.push_back(std::move(m_buffer));
        m_buffer = {};
    }
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

Status WebDavWriter::enqueue(std::span<const std::byte> data)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return m_queued < kQueueLimit || m_done; });
    if (m_done)
        return m_streamError ? *m_streamError : Error(ErrorKind::Network, "the server ended the upload early");
    m_queue.emplace_back(data.begin(), data.end());
    m_queued += data.size();
    m_cv.notify_all();
    return {};
}

std::size_t WebDavWriter::pull(std::span<std::byte> out)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return !m_queue.empty() || m_end || m_cancel; });
    if (m_cancel)
        return http::Request::kAbortBody;
    std::size_t n = 0;
    while (n < out.size() && !m_queue.empty()) {
        auto &front = m_queue.front();
        const std::size_t take = std::min(out.size() - n, front.size() - m_frontSent);
        std::memcpy(out.data() + n, front.data() + m_frontSent, take);
        n += take;
        m_frontSent += take;
        if (m_frontSent == front.size()) {
            m_queue.pop_front();
            m_frontSent = 0;
        }
    }
    m_queued -= n;
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
        sent = Error(ErrorKind::InvalidInput, std::to_string(m_written) + " bytes were written of the "
                                                  + std::to_string(*m_options.sizeHint) + " announced");
    } else if (m_thread.joinable()) {
        sent = finishStream();
    } else {
        m_sentSome = true;
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

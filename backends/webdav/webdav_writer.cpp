#include "backends/webdav/webdav_writer.h"

#include "backends/webdav/webdav_backend.h"
#include "backends/webdav/webdav_href.h"
#include "core/storage/path.h"

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
        auto st = m_pipe.handOver(m_buffer);
        m_buffer = {};
        if (!st)
            return st;
    }
    return m_pipe.handOver(data);
}

Status WebDavWriter::startStream()
{
    // The first request to a server that wants credentials is answered 401 and sent again:
    // a streamed body cannot be, so the server is asked its scheme first.
    auto scheme = m_backend->authSchemeFor(parentPath(m_path));
    if (!scheme)
        return std::move(scheme).error();
    // A large body is not sent into a link planted where its folder was (checked again
    // before the MOVE).
    if (auto st = m_backend->confirmFolder(parentPath(m_path), m_options.confineBelow); !st)
        return st;
    announce();
    http::Request request;
    request.source = [this](std::span<std::byte> out) { return pull(out); };
    request.sourceSize = m_options.sizeHint; // none: sent chunked
    request.authSchemes = *scheme;
    m_thread = std::thread([this, request = std::move(request)]() mutable {
        m_pipe.finished(m_backend->upload(m_temp, std::move(request)));
    });
    return {};
}

std::size_t WebDavWriter::pull(std::span<std::byte> out)
{
    auto n = m_pipe.pull(out);
    return n ? *n : http::Request::kAbortBody;
}

Status WebDavWriter::finishStream()
{
    auto st = m_pipe.end();
    m_thread.join();
    return st;
}

void WebDavWriter::stopStream()
{
    if (!m_thread.joinable())
        return;
    m_pipe.cancel();
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
        // The server resolves the folders on the way again for the MOVE: the one it goes
        // into must still be a folder (a link swapped in sends nothing through it).
        if (sent)
            sent = m_backend->confirmFolder(parentPath(m_path), m_options.confineBelow);
    } else {
        // Checked just before the upload and its MOVE: nothing goes through a link.
        sent = m_backend->confirmFolder(parentPath(m_path), m_options.confineBelow);
        if (!sent) {
            m_buffer = {};
            return sent; // nothing was sent
        }
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

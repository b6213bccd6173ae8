#include "backends/sftp/read_stream.h"

#include <algorithm>
#include <cstring>

namespace strata::sftp {

ReadStream::ReadStream(Session &session, sftp_file file, std::uint64_t offset, std::optional<std::uint64_t> size)
    : m_session(session), m_file(file), m_size(size), m_next(offset), m_sentTo(offset),
      m_window(size ? session.readDepth() : 1), m_chunk(std::uint32_t(session.readChunk()))
{
}

ReadStream::~ReadStream()
{
    drain();
    if (!m_session.broken())
        sftp_close(m_file);
}

void ReadStream::send(std::uint64_t limit)
{
    const std::size_t before = m_inFlight.size();
    sendRequests(limit);
    if (m_inFlight.size() > before) {
        // The window holds every answer asked for, and one more request's worth.
        std::uint64_t bytes = m_chunk;
        for (const auto &r : m_inFlight)
            bytes += r.length;
        m_session.openWindow(bytes);
    }
}

void ReadStream::sendRequests(std::uint64_t limit)
{
    for (;;) {
        // Past the size the file was said to have, one request at a time (it may have grown).
        const bool past = m_size && m_sentTo >= *m_size;
        const std::size_t window = past ? 1 : m_window;
        if (m_failed || m_ended || m_inFlight.size() >= window || m_sentTo >= limit)
            return;
        const std::uint64_t end = past || !m_size ? limit : std::min(limit, *m_size);
        const auto length = std::uint32_t(std::min<std::uint64_t>(m_chunk, end - m_sentTo));
        sftp_seek64(m_file, m_sentTo); // where the request reads; also forgets an end seen before
        const int id = sftp_async_read_begin(m_file, length);
        if (id < 0) {
            m_failed = true;
            m_error = m_session.error("cannot read");
            return;
        }
        m_inFlight.push_back({std::uint32_t(id), m_sentTo, length});
        m_sentTo += length;
    }
}

void ReadStream::settle()
{
    drain();
    m_sentTo = m_next;
    m_ahead = false;
}

void ReadStream::drain()
{
    // Every answer is taken in, or it would wait in libssh's queue as long as the session.
    std::vector<std::byte> scratch;
    while (!m_inFlight.empty() && !m_session.broken()) {
        const Request r = m_inFlight.front();
        m_inFlight.pop_front();
        scratch.resize(r.length);
        sftp_seek64(m_file, r.offset); // an end of file seen stops libssh taking the answer in
        if (sftp_async_read(m_file, scratch.data(), r.length, r.id) < 0 && m_session.broken())
            break;
    }
    m_inFlight.clear();
    m_spareFrom = m_spareTo = 0;
}

Result<std::size_t> ReadStream::read(std::uint64_t offset, std::span<std::byte> buffer)
{
    if (m_failed)
        return m_error ? *m_error : Error(ErrorKind::Network, "cannot read: the request failed").setTemporary(true);
    if (offset != m_next) {
        drain();
        m_next = m_sentTo = offset;
        m_ended = false;
        m_ahead = false;
        m_chunk = std::uint32_t(m_session.readChunk()); // a short answer at an end said nothing of here
    } else {
        m_ahead = m_reads > 0; // a second read in order: worth asking past what is asked
    }
    ++m_reads;
    std::size_t got = 0;
    // What the last answer brought past the last read's buffer.
    if (m_spareFrom < m_spareTo && m_spareAt == m_next) {
        const std::size_t n = std::min(buffer.size(), m_spareTo - m_spareFrom);
        std::memcpy(buffer.data(), m_spare.data() + m_spareFrom, n);
        m_spareFrom += n;
        m_spareAt += n;
        got = n;
    }
    while (got < buffer.size()) {
        send(m_ahead ? UINT64_MAX : offset + buffer.size());
        if (m_failed) {
            drain();
            return *m_error;
        }
        if (m_inFlight.empty())
            break; // the end of the file
        const Request r = m_inFlight.front();
        m_inFlight.pop_front();
        // Straight into the caller's buffer where the answer fits; else the rest waits.
        const bool fits = r.length <= buffer.size() - got;
        if (!fits)
            m_spare.resize(r.length);
        std::byte *into = fits ? buffer.data() + got : m_spare.data();
        sftp_seek64(m_file, r.offset);
        const int n = sftp_async_read(m_file, into, r.length, r.id);
        if (n < 0) {
            m_failed = true;
            m_error = m_session.error("cannot read"); // said again to every later read
            drain();
            return *m_error;
        }
        if (std::uint32_t(n) < r.length) {
            // The end of the file, or a server that answers less than asked: what was
            // sent after this is dropped and asked again from here.
            drain();
            m_sentTo = r.offset + std::uint32_t(n);
            m_ended = n == 0;
            if (n > 0)
                m_chunk = std::uint32_t(n); // what it answers: asked no more from now on
        } else {
            m_window = std::min(m_window * 2, m_session.readDepth()); // answers come whole: more
        }
        const std::size_t take = std::min<std::size_t>(std::size_t(n), buffer.size() - got);
        if (!fits) {
            std::memcpy(buffer.data() + got, m_spare.data(), take);
            m_spareAt = r.offset + take;
            m_spareFrom = take;
            m_spareTo = std::size_t(n);
        }
        got += take;
        if (n == 0)
            break;
    }
    m_next = offset + got;
    return got;
}

} // namespace strata::sftp

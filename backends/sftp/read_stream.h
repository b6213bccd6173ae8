#pragma once

#include "backends/sftp/sftp_session.h"

#include <libssh/sftp.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

namespace strata::sftp {

// One open file read in order with requests sent ahead (libssh's asynchronous reads: up to
// Session::readDepth() requests of readChunk() in flight). A read where the last one ended
// takes the answers already on their way; a read elsewhere first takes in (and drops) what
// is in flight. Used by one thread at a time, on the connection that opened the file.
class ReadStream {
public:
    // `file`: open for reading on `session`; reads start at `offset`. With the file's size
    // known, requests fill the window from the first read; else one, then twice as many
    // after each whole answer (a small file costs one request).
    ReadStream(Session &session, sftp_file file, std::uint64_t offset, std::optional<std::uint64_t> size);
    ~ReadStream(); // takes in what is in flight, then closes the file
    ReadStream(const ReadStream &) = delete;
    ReadStream &operator=(const ReadStream &) = delete;

    // Fills `buffer` from `offset` (fewer bytes only at the end of the file).
    Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer);
    // Takes in every answer still on its way (the next read asks again from next()). Due
    // before any other request on the connection: libssh 0.10's sftp_async_read reads a
    // packet off the wire before it looks in its queue, so answers a blocking call (a stat,
    // an open) queued meanwhile would leave the last reads waiting for packets that never
    // come.
    void settle();
    std::uint64_t next() const { return m_next; }
    sftp_file file() const { return m_file; }

private:
    struct Request {
        std::uint32_t id;
        std::uint64_t offset;
        std::uint32_t length;
    };
    void send(std::uint64_t limit);
    void sendRequests(std::uint64_t limit);
    void drain();

    Session &m_session;
    sftp_file m_file;
    std::optional<std::uint64_t> m_size;
    std::uint64_t m_next;   // the offset the next read is expected at
    std::uint64_t m_sentTo; // where the next request starts
    std::size_t m_window;   // requests kept in flight
    std::uint32_t m_chunk;  // bytes a request asks for
    std::uint64_t m_reads = 0;
    bool m_ahead = false;  // a read went on where the last ended: send past the buffer
    bool m_ended = false;  // the server said end of file at m_sentTo's last request
    bool m_failed = false; // a request failed: nothing more is sent or taken
    std::optional<Error> m_error;
    std::deque<Request> m_inFlight;
    std::vector<std::byte> m_spare; // an answer that ran past the caller's buffer
    std::uint64_t m_spareAt = 0;
    std::size_t m_spareFrom = 0, m_spareTo = 0;
};

} // namespace strata::sftp

#pragma once

#include "backends/http/upload_pipe.h"
#include "core/storage/backend.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace strata::webdav {

class WebDavBackend;

// Uploads to a temporary name beside the destination and MOVEs it there at commit, so
// nothing half-written is ever visible under the name; abort (or destruction) removes the
// temporary. Small objects are kept in memory and sent in one PUT at commit; larger ones
// stream in one PUT from a thread while they are written: each write() hands its bytes to
// curl's read callback and returns once curl has taken them (no copy of ours, memory stays
// bounded by curl's upload buffer).
class WebDavWriter final : public Writer {
public:
    // An object announced larger than this streams from its first write.
    static constexpr std::size_t kStreamFrom = 1u << 20;
    // Up to this size (when none was announced), one PUT at commit from memory.
    static constexpr std::size_t kBufferLimit = 8u << 20;

    WebDavWriter(std::shared_ptr<WebDavBackend> backend, std::string path, WriteOptions options);
    ~WebDavWriter() override;

    Status write(std::span<const std::byte> data) override;
    Status commit() override;
    void abort() override;
    std::optional<std::uint64_t> committedSize() const override { return m_committed; }

private:
    void announce(); // the temporary name goes to WriteOptions::onPending before the first PUT
    Status startStream();
    // curl's read callback on the upload thread: the next bytes, 0 at the end, or abort.
    std::size_t pull(std::span<std::byte> out);
    Status finishStream();
    void stopStream();

    std::shared_ptr<WebDavBackend> m_backend;
    std::string m_path;
    std::string m_temp;
    WriteOptions m_options;
    std::vector<std::byte> m_buffer; // everything written, until a stream starts
    std::uint64_t m_written = 0;
    bool m_finished = false;
    bool m_sentSome = false; // a PUT began: the temporary may exist on the server
    std::optional<std::uint64_t> m_committed;

    http::UploadPipe m_pipe; // write() hands its bytes to the streamed PUT
    std::thread m_thread;    // runs the streamed PUT
};

} // namespace strata::webdav

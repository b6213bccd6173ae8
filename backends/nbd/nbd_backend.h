#pragma once

#include "core/storage/backend.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct nbd_handle;

namespace strata::nbd {

// How an export is reached and how hard it is driven.
struct Config {
    Uri uri;                // as given, for display (secrets redacted by Uri)
    std::string connectUri; // what libnbd connects to: our own query keys removed
    std::string exportName;
    // At most; 1 unless the server allows multi-conn. 0: as many as this machine has
    // cores, up to 4 (nbdcopy's rule: more connections than cores only make the server's
    // threads fight over them).
    std::size_t connections = 0;
    std::size_t requestsPerConnection = 64; // commands in flight on one connection
    std::size_t requestSize = 256u << 10;   // one NBD read or write command
};

// Checks an nbd:// / nbds:// / nbd+unix:// URI and takes our own keys out of it:
//   connections=N (1..16), requests=N (1..1024), request-size=BYTES (4 KiB..32 MiB).
Result<Config> parseConfig(const Uri &uri);

class Connection;

// One NBD export, seen as a single object: the image, at the backend's root path "/".
// Reads and writes are split into requests of Config::requestSize spread over several
// connections (when the server advertises multi-conn), each driven by its own I/O thread
// through libnbd's asynchronous calls and completing straight into the caller's buffer.
// Only the first connection is made at open; the others handshake in the background when
// the first data command is sent, so a look at an image (stat, its extents, an empty
// image's copy) costs one connection, and a copy's first requests never wait for them.
class NbdBackend final : public Backend, public std::enable_shared_from_this<NbdBackend> {
public:
    static Result<std::shared_ptr<NbdBackend>> open(Config config);
    ~NbdBackend() override;

    Capabilities capabilities() const override;
    std::size_t preferredIoSize() const override { return 4u << 20; }
    // Every slot of every connection it will have (not only those made so far).
    std::uint64_t preferredBytesInFlight() const override
    {
        return std::uint64_t(m_wanted) * m_config.requestsPerConnection * m_config.requestSize;
    }
    Uri uriFor(std::string_view path) const override;
    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::size_t> readQueue(std::string_view path, IoQueue &queue) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Result<std::vector<Extent>> extents(std::string_view path) override;

    std::uint64_t size() const { return m_size; }
    // Connections made so far (at most Config::connections; 1 until data moves).
    std::size_t connectionCount() const { return m_live.load(std::memory_order_acquire); }

    // Used by the writer: positional writes, zeroing, flushing; all wait for completion.
    Status pwrite(std::uint64_t offset, std::span<const std::byte> data);
    // Reads or writes kept in flight on one connection as the queue asks (io_queue.h): one
    // command per request (at most 32 MiB), at most requests=N of them; the bytes moved.
    // `written` hears of each write that completed.
    Result<std::size_t> runQueue(IoQueue &queue, bool write,
                                 const std::function<void(std::uint64_t, std::uint64_t)> &written = {});
    Status zero(std::uint64_t offset, std::uint64_t length);
    Status flush();
    Result<std::vector<Extent>> extentsOf(std::uint64_t offset, std::uint64_t length);
    // extentsOf for a range whose questions fit one round (kMaxSlicesARound).
    Result<std::vector<Extent>> extentsWindow(std::uint64_t offset, std::uint64_t end);

private:
    explicit NbdBackend(Config config);
    Status checkPath(std::string_view path) const;
    Connection &next();
    Connection &nextForData(); // as next(), and the other connections start connecting
    // For a queue (runQueue), which keeps its connection to its end: the index of one no
    // other queue uses, driven on the caller's thread as fio's nbd engine drives each job's
    // handle; connections still handshaking are waited for rather than shared through an
    // I/O thread (a hand-over each way per command). When every connection has a queue,
    // the one with fewest. releaseQueue() gives it back.
    std::size_t takeForQueue();
    void releaseQueue(std::size_t index);
    void addConnection(std::unique_ptr<Connection> connection);
    std::string imageName() const;

    Config m_config;
    std::function<Result<nbd_handle *>()> m_connect;
    // Fixed slots, filled in order; m_live of them are ready (readers need no lock).
    std::unique_ptr<std::unique_ptr<Connection>[]> m_connections;
    std::atomic<std::size_t> m_next{0};
    std::size_t m_wanted = 1;
    std::atomic<std::size_t> m_live{0};
    std::atomic<bool> m_growing{false};
    std::mutex m_growMutex;
    std::condition_variable m_grown;     // a grower ended (its connection added, or not)
    std::size_t m_growersLeft = 0;       // under m_growMutex
    std::vector<std::size_t> m_queuesOn; // queues running on each connection (under m_growMutex)
    std::vector<std::jthread> m_growers; // joined before the connections go
    std::uint64_t m_size = 0;
    bool m_readOnly = false;
    bool m_canZero = false;
    bool m_canFlush = false;
    bool m_allocation = false; // base:allocation block status negotiated
};

} // namespace strata::nbd

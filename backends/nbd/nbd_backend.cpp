#include "backends/nbd/nbd_backend.h"

#include "backends/nbd/nbd_connection.h"
#include "core/io/size_text.h"

#include <libnbd.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace strata::nbd {

namespace {

constexpr std::uint64_t kMaxCommand = 1u << 30; // NBD lengths are 32-bit: zeroing in slices
// A block status question may cover almost 4 GiB (32-bit length, kept 64 KiB-aligned): a
// server walks its map in one go, and an image's map costs few round trips.
constexpr std::uint64_t kMaxStatus = (std::uint64_t(1) << 32) - (std::uint64_t(1) << 16);
// What a server may claim without being believed: an export past 64 PiB is a broken or
// hostile answer (mapping it would take billions of questions); a map past this many
// pieces is held no longer, the rest of the image is then taken as data (copied, which is
// always right).
constexpr std::uint64_t kMaxExportSize = std::uint64_t(1) << 56;
constexpr std::size_t kMaxExtents = std::size_t(1) << 22;
// Slices asked at once: memory stays bounded whatever the export's size.
constexpr std::size_t kMaxSlicesARound = 1024;

// A count or size option ("4", "256K", "1MiB"), within [low, high].
bool parseCount(std::string_view text, std::uint64_t low, std::uint64_t high, std::uint64_t &out)
{
    const auto value = text.find('.') == std::string_view::npos ? parseSize(text) : std::nullopt; // whole numbers only
    if (!value || *value < low || *value > high)
        return false;
    out = *value;
    return true;
}

} // namespace

Result<Config> parseConfig(const Uri &uri)
{
    const auto &scheme = uri.scheme();
    if (scheme != "nbd" && scheme != "nbds" && scheme != "nbd+unix" && scheme != "nbds+unix")
        return Error(ErrorKind::InvalidInput,
                     "not an NBD URI (nbd://host[:port]/export or nbd+unix:///export?socket=PATH)");
    const bool unixSocket = scheme.ends_with("+unix");
    Config config;
    config.uri = uri;
    std::vector<Uri::QueryItem> passOn;
    bool haveSocket = false;
    for (const auto &[key, value] : uri.query()) {
        std::uint64_t n = 0;
        if (key == "connections") {
            if (!parseCount(value, 1, 16, n))
                return Error(ErrorKind::InvalidInput, "connections= takes a number from 1 to 16");
            config.connections = n;
        } else if (key == "requests") {
            if (!parseCount(value, 1, 1024, n))
                return Error(ErrorKind::InvalidInput, "requests= takes a number from 1 to 1024");
            config.requestsPerConnection = n;
        } else if (key == "request-size") {
            if (!parseCount(value, 4u << 10, 32u << 20, n))
                return Error(ErrorKind::InvalidInput, "request-size= takes a size from 4K to 32M");
            config.requestSize = n;
        } else if (key == "socket" || key.starts_with("tls-")) {
            // libnbd's own keys (the NBD URI standard): socket=, tls-certificates=, …
            if (key == "socket")
                haveSocket = !value.empty();
            passOn.push_back({key, value});
        } // any other: refused by BackendFactory::resolve (checkOptions)
    }
    if (unixSocket && !haveSocket)
        return Error(ErrorKind::InvalidInput,
                     "an nbd+unix URI needs ?socket=PATH (nbd+unix:///export?socket=/run/nbd.sock)");
    if (!unixSocket && uri.host().empty())
        return Error(ErrorKind::InvalidInput, "an nbd URI needs a host (nbd://host[:port]/export)");
    std::string path = uri.path();
    if (path.starts_with('/'))
        path.erase(0, 1);
    config.exportName = path;
    Uri connect = uri;
    connect.setQuery(std::move(passOn));
    config.connectUri = connect.toString();
    return config;
}

NbdBackend::NbdBackend(Config config) : m_config(std::move(config)) {}

NbdBackend::~NbdBackend()
{
    m_growers.clear(); // connections still handshaking finish (or fail) first
}

Result<std::shared_ptr<NbdBackend>> NbdBackend::open(Config config)
{
    auto backend = std::shared_ptr<NbdBackend>(new NbdBackend(std::move(config)));
    auto &cfg = backend->m_config;
    // Also kept by each connection, to connect again after the server dropped it.
    backend->m_connect = [uri = cfg.connectUri]() -> Result<nbd_handle *> {
        nbd_handle *h = nbd_create();
        if (!h)
            return libraryError("cannot create an NBD handle");
        nbd_set_handle_name(h, "strata");
        // Reads land in our buffers, which are never shown unfilled: no need to zero them first.
        nbd_set_pread_initialize(h, false);
        nbd_add_meta_context(h, LIBNBD_CONTEXT_BASE_ALLOCATION);
        if (nbd_connect_uri(h, uri.c_str()) == -1) {
            auto error = libraryError("cannot connect to the NBD server");
            nbd_close(h);
            if (error.kind() == ErrorKind::Unexpected || error.kind() == ErrorKind::InvalidInput)
                error = Error(ErrorKind::Network, error.message());
            return error;
        }
        return h;
    };
    auto first = backend->m_connect();
    if (!first)
        return std::move(first).error();
    nbd_handle *h = *first;
    const std::int64_t size = nbd_get_size(h);
    if (size < 0) {
        auto error = libraryError("the server does not tell the export's size");
        nbd_close(h);
        return error;
    }
    if (std::uint64_t(size) > kMaxExportSize) {
        nbd_close(h);
        return Error(ErrorKind::InvalidInput,
                     "the server says the export holds " + std::to_string(size)
                         + " bytes, more than 64 PiB; a broken or hostile answer, not used");
    }
    backend->m_size = std::uint64_t(size);
    backend->m_readOnly = nbd_is_read_only(h) == 1;
    backend->m_canZero = nbd_can_zero(h) == 1;
    backend->m_canFlush = nbd_can_flush(h) == 1;
    backend->m_allocation = nbd_can_meta_context(h, LIBNBD_CONTEXT_BASE_ALLOCATION) == 1;
    std::size_t connections = cfg.connections;
    if (connections == 0)
        connections = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
    backend->m_wanted = nbd_can_multi_conn(h) == 1 ? connections : 1;
    backend->m_connections = std::make_unique<std::unique_ptr<Connection>[]>(backend->m_wanted);
    backend->addConnection(std::make_unique<Connection>(h, cfg.requestsPerConnection, backend->m_connect));
    return backend;
}

void NbdBackend::addConnection(std::unique_ptr<Connection> connection)
{
    std::lock_guard lock(m_growMutex);
    const std::size_t n = m_live.load(std::memory_order_relaxed);
    m_connections[n] = std::move(connection);
    m_live.store(n + 1, std::memory_order_release);
}

Connection &NbdBackend::nextForData()
{
    if (m_wanted > 1 && !m_growing.exchange(true, std::memory_order_acq_rel)) {
        // The other connections handshake at the same time, each on its own thread, and
        // join the rotation as they are ready. One that fails is not needed: what
        // connected is enough (the first one always did).
        std::lock_guard lock(m_growMutex);
        m_growersLeft = m_wanted - 1;
        for (std::size_t i = 1; i < m_wanted; ++i)
            m_growers.emplace_back([this] {
                if (auto h = m_connect(); h && *h)
                    addConnection(std::make_unique<Connection>(*h, m_config.requestsPerConnection, m_connect));
                std::lock_guard ended(m_growMutex);
                --m_growersLeft;
                m_grown.notify_all();
            });
    }
    return next();
}

std::size_t NbdBackend::takeForQueue()
{
    nextForData(); // the other connections start connecting, if they have not
    std::unique_lock lock(m_growMutex);
    if (m_queuesOn.size() < m_wanted)
        m_queuesOn.resize(m_wanted, 0);
    for (;;) {
        const std::size_t live = m_live.load(std::memory_order_acquire);
        for (std::size_t i = 0; i < live; ++i)
            if (m_queuesOn[i] == 0) {
                ++m_queuesOn[i];
                return i;
            }
        if (live < m_wanted && m_growersLeft > 0) {
            m_grown.wait(lock);
            continue;
        }
        const auto fewest = std::min_element(m_queuesOn.begin(), m_queuesOn.begin() + std::ptrdiff_t(live));
        ++*fewest;
        return std::size_t(fewest - m_queuesOn.begin());
    }
}

void NbdBackend::releaseQueue(std::size_t index)
{
    std::lock_guard lock(m_growMutex);
    --m_queuesOn[index];
}

Capabilities NbdBackend::capabilities() const
{
    Capabilities caps{Capability::Stat,    Capability::Read,         Capability::RangedRead,
                      Capability::Extents, Capability::SingleObject, Capability::Queue};
    if (!m_readOnly)
        caps.add(Capability::Write).add(Capability::PositionalWrite);
    return caps;
}

Uri NbdBackend::uriFor(std::string_view path) const
{
    (void)path;
    return m_config.uri;
}

std::string NbdBackend::imageName() const
{
    std::string_view name = m_config.exportName;
    if (auto slash = name.rfind('/'); slash != std::string_view::npos)
        name.remove_prefix(slash + 1);
    return name.empty() ? std::string("export") : std::string(name);
}

Status NbdBackend::checkPath(std::string_view path) const
{
    if (path == "/" || path.empty())
        return {};
    return Error(ErrorKind::NotFound, "an NBD export is one image: name the export in the URI, with no path after it");
}

Connection &NbdBackend::next()
{
    const std::size_t live = m_live.load(std::memory_order_acquire);
    return *m_connections[m_next.fetch_add(1, std::memory_order_relaxed) % live];
}

Result<Entry> NbdBackend::stat(std::string_view path)
{
    if (auto st = checkPath(path); !st)
        return std::move(st).error();
    Entry entry;
    entry.name = imageName();
    entry.path = "/";
    entry.kind = EntryKind::File;
    entry.size = m_size;
    return entry;
}

Result<ListPage> NbdBackend::list(std::string_view dir, const ListOptions &options)
{
    (void)options;
    if (auto st = checkPath(dir); !st)
        return std::move(st).error();
    return Error(ErrorKind::NotDirectory, "an NBD export is one image, not a directory");
}

Result<std::size_t> NbdBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    if (auto st = checkPath(path); !st)
        return std::move(st).error();
    if (offset >= m_size || buffer.empty())
        return std::size_t(0);
    const std::size_t total = std::size_t(std::min<std::uint64_t>(buffer.size(), m_size - offset));
    const std::size_t step = m_config.requestSize;
    Batch batch;
    std::vector<Connection::Command> commands((total + step - 1) / step);
    for (std::size_t i = 0, done = 0; done < total; ++i, done += step) {
        commands[i] = {.batch = &batch,
                       .op = Connection::Command::Op::Read,
                       .data = buffer.data() + done,
                       .length = std::min(step, total - done),
                       .offset = offset + done};
        nextForData().submit(commands[i]);
    }
    if (auto st = batch.wait("read"); !st)
        return std::move(st).error();
    return total;
}

Result<std::size_t> NbdBackend::readQueue(std::string_view path, IoQueue &queue)
{
    if (auto st = checkPath(path); !st)
        return std::move(st).error();
    return runQueue(queue, false);
}

Result<std::size_t> NbdBackend::runQueue(IoQueue &queue, bool write,
                                         const std::function<void(std::uint64_t, std::uint64_t)> &written)
{
    constexpr std::size_t kMaxRequest = 32u << 20; // what servers accept in one command
    struct Seat {                                  // given back when the queue ends
        NbdBackend &backend;
        std::size_t index;
        ~Seat() { backend.releaseQueue(index); }
    } seat{*this, takeForQueue()};
    Connection &connection = *m_connections[seat.index];
    if (queue.depth > connection.slots())
        return Error(ErrorKind::InvalidInput,
                     "a queue depth of " + std::to_string(queue.depth) + " is more than the "
                         + std::to_string(connection.slots())
                         + " requests a connection keeps in flight: raise requests= in the URI");
    // The requests in flight, by the slot of the command carrying each.
    std::vector<IoQueue::Request> requests(std::max<std::size_t>(queue.depth, 1));
    std::size_t total = 0;
    std::optional<Error> refused;
    const auto fill = [&](std::size_t slot, Connection::Command &command) {
        IoQueue::Request &r = requests[slot];
        r.slot = slot;
        if (!queue.next(r))
            return false;
        if (r.buffer.empty() || r.buffer.size() > kMaxRequest || r.offset > m_size
            || r.buffer.size() > m_size - r.offset) {
            refused = Error(ErrorKind::InvalidInput,
                            "a queued request must hold 1 byte to 32 MiB inside the export (" + std::to_string(m_size)
                                + " bytes); this one is " + std::to_string(r.buffer.size()) + " bytes at "
                                + std::to_string(r.offset));
            return false;
        }
        command.op = write ? Connection::Command::Op::Write : Connection::Command::Op::Read;
        command.data = r.buffer.data();
        command.length = r.buffer.size();
        command.offset = r.offset;
        return true;
    };
    const auto reap = [&](std::size_t slot, const Connection::Command &) {
        const IoQueue::Request &r = requests[slot];
        total += r.buffer.size();
        if (written)
            written(r.offset, r.buffer.size());
        queue.done(r);
    };
    if (auto st = connection.runQueue(requests.size(), fill, reap, write ? "write" : "read"); !st)
        return std::move(st).error();
    if (refused)
        return std::move(*refused);
    return total;
}

Status NbdBackend::pwrite(std::uint64_t offset, std::span<const std::byte> data)
{
    if (data.empty())
        return {};
    if (offset + data.size() > m_size)
        return Error(ErrorKind::NoSpace,
                     "the export holds " + std::to_string(m_size) + " bytes; the write ends at byte "
                         + std::to_string(offset + data.size()));
    const std::size_t step = m_config.requestSize;
    Batch batch;
    std::vector<Connection::Command> commands((data.size() + step - 1) / step);
    for (std::size_t i = 0, done = 0; done < data.size(); ++i, done += step) {
        // libnbd only reads from a write's buffer.
        commands[i] = {.batch = &batch,
                       .op = Connection::Command::Op::Write,
                       .data = const_cast<std::byte *>(data.data() + done),
                       .length = std::min(step, data.size() - done),
                       .offset = offset + done};
        nextForData().submit(commands[i]);
    }
    return batch.wait("write");
}

Status NbdBackend::zero(std::uint64_t offset, std::uint64_t length)
{
    if (length == 0)
        return {};
    if (!m_canZero) {
        // No WRITE_ZEROES: zeros as data, in request-sized writes.
        static const std::vector<std::byte> zeros(1u << 20);
        for (std::uint64_t pos = offset; pos < offset + length;) {
            const std::size_t n = std::size_t(std::min<std::uint64_t>(zeros.size(), offset + length - pos));
            if (auto st = pwrite(pos, std::span(zeros).first(n)); !st)
                return st;
            pos += n;
        }
        return {};
    }
    Batch batch;
    std::vector<Connection::Command> commands((length + kMaxCommand - 1) / kMaxCommand);
    for (std::size_t i = 0; i < commands.size(); ++i) {
        const std::uint64_t at = offset + i * kMaxCommand;
        commands[i] = {.batch = &batch,
                       .op = Connection::Command::Op::Zero,
                       .length = std::min(kMaxCommand, offset + length - at),
                       .offset = at};
        nextForData().submit(commands[i]);
    }
    return batch.wait("write zeroes");
}

Status NbdBackend::flush()
{
    if (!m_canFlush)
        return {};
    // Every connection flushes: with multi-conn, one flush covers all, but not every
    // server promises that for writes still in flight on another connection.
    Batch batch;
    const std::size_t live = m_live.load(std::memory_order_acquire);
    std::vector<Connection::Command> commands(live);
    for (std::size_t i = 0; i < live; ++i) {
        commands[i] = {.batch = &batch, .op = Connection::Command::Op::Flush};
        m_connections[i]->submit(commands[i]);
    }
    return batch.wait("flush");
}

Result<std::vector<Extent>> NbdBackend::extentsOf(std::uint64_t offset, std::uint64_t length)
{
    const std::uint64_t end = std::min(m_size, offset + length);
    if (offset >= end)
        return std::vector<Extent>{};
    if (!m_allocation)
        return std::vector<Extent>{{offset, end - offset, ExtentKind::Data}};
    // Windows of at most kMaxSlicesARound questions of the longest length each.
    const std::uint64_t window = kMaxSlicesARound * kMaxStatus;
    if (end - offset <= window)
        return extentsWindow(offset, end);
    std::vector<Extent> all;
    for (std::uint64_t at = offset; at < end; at += std::min(window, end - at)) {
        auto part = extentsWindow(at, at + std::min(window, end - at));
        if (!part)
            return part;
        all.insert(all.end(), part->begin(), part->end());
        if (all.size() > kMaxExtents) {
            const std::uint64_t reached = all.back().end();
            all.push_back({reached, end - reached, ExtentKind::Data});
            break;
        }
    }
    return coalesce(std::move(all));
}

Result<std::vector<Extent>> NbdBackend::extentsWindow(std::uint64_t offset, std::uint64_t end)
{
    // Slices asked in parallel, two per connection (and as many as the longest question
    // allows); each slice repeats its question from where the server's answer stopped
    // (answers may cover less).
    const std::uint64_t span = end - offset;
    const std::size_t slices = std::max<std::size_t>(
        {2, m_live.load(std::memory_order_acquire) * 2, std::size_t((span + kMaxStatus - 1) / kMaxStatus)});
    const std::uint64_t sliceLength =
        std::max<std::uint64_t>(((end - offset) / slices + 0xFFFF) & ~std::uint64_t(0xFFFF), 1u << 16);
    struct Slice {
        std::uint64_t pos, end;
        std::vector<Extent> found;
    };
    std::vector<Slice> work;
    for (std::uint64_t pos = offset; pos < end; pos += sliceLength)
        work.push_back({pos, std::min(end, pos + sliceLength), {}});
    std::vector<Connection::Command> commands(work.size());
    while (true) {
        Batch batch;
        bool any = false;
        // Asks every unfinished slice through `submit(command)`.
        auto askAll = [&](auto &&submit) {
            for (std::size_t i = 0; i < work.size(); ++i) {
                auto &slice = work[i];
                if (slice.pos >= slice.end)
                    continue;
                any = true;
                commands[i] = {.batch = &batch,
                               .op = Connection::Command::Op::BlockStatus,
                               .length = std::min(kMaxStatus, slice.end - slice.pos),
                               .offset = slice.pos,
                               .extents = &slice.found};
                submit(commands[i]);
            }
        };
        // Before data moves there is one connection and no I/O thread: this thread asks
        // and reads the answers itself.
        Connection &first = *m_connections[0];
        const bool here = m_live.load(std::memory_order_acquire) == 1 && work.size() <= first.slots()
            && first.driveHere(batch, askAll);
        if (!here)
            askAll([this](Connection::Command &command) { next().submit(command); });
        if (!any)
            break;
        if (auto st = batch.wait("block status"); !st)
            return std::move(st).error();
        std::size_t pieces = 0;
        for (auto &slice : work) {
            pieces += slice.found.size();
            if (slice.pos >= slice.end)
                continue;
            const std::uint64_t reached = slice.found.empty() ? slice.pos : slice.found.back().end();
            if (reached <= slice.pos)
                return Error(ErrorKind::Corrupt, "the server answered a block status question with no extent");
            slice.pos = reached;
            // Too fine a map to hold: what is not mapped yet counts as data.
            if (pieces > kMaxExtents) {
                slice.found.push_back({slice.pos, slice.end - slice.pos, ExtentKind::Data});
                slice.pos = slice.end;
            }
        }
    }
    std::vector<Extent> all;
    for (auto &slice : work) {
        for (auto &e : slice.found) {
            const std::uint64_t from = std::max(e.offset, offset), to = std::min(e.end(), slice.end);
            if (from < to)
                all.push_back({from, to - from, e.kind});
        }
    }
    return coalesce(std::move(all));
}

Result<std::vector<Extent>> NbdBackend::extents(std::string_view path)
{
    if (auto st = checkPath(path); !st)
        return std::move(st).error();
    return extentsOf(0, m_size);
}

namespace {

// Writes land in the export in place (a block device has no temporary name). Whatever the
// source did not write — its holes and zero ranges — is zeroed at commit, unless the
// export already reads as zeros there; then everything is flushed.
class NbdWriter final : public Writer {
public:
    NbdWriter(std::shared_ptr<NbdBackend> backend, std::uint64_t length)
        : m_backend(std::move(backend)), m_length(length)
    {
    }

    Status write(std::span<const std::byte> data) override
    {
        auto st = writeAt(m_pos, data);
        if (st)
            m_pos += data.size();
        return st;
    }

    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        // Zeros are not sent: the range stays a gap, zeroed at commit where needed.
        if (data.size() >= (64u << 10) && isAllZero(data.data(), data.size())) {
            if (offset + data.size() > m_backend->size())
                return tooSmall(m_backend->size(), offset + data.size());
            std::lock_guard lock(m_mutex);
            m_length = std::max(m_length, offset + data.size());
            return {};
        }
        if (auto st = m_backend->pwrite(offset, data); !st)
            return st;
        std::lock_guard lock(m_mutex);
        mark(offset, offset + data.size());
        m_length = std::max(m_length, offset + data.size());
        return {};
    }

    Status setLength(std::uint64_t length) override
    {
        if (length > m_backend->size())
            return tooSmall(m_backend->size(), length);
        std::lock_guard lock(m_mutex);
        m_length = length;
        return {};
    }

    Status zero(std::uint64_t offset, std::uint64_t length) override
    {
        if (offset + length > m_backend->size() || offset + length < offset)
            return tooSmall(m_backend->size(), offset + length);
        if (auto st = m_backend->zero(offset, length); !st)
            return st;
        std::lock_guard lock(m_mutex);
        mark(offset, offset + length);
        return {};
    }

    // Every request is sent, zeros too (a disk benchmark writes what it says).
    Result<std::size_t> writeQueue(IoQueue &queue) override
    {
        return m_backend->runQueue(queue, true, [this](std::uint64_t offset, std::uint64_t length) {
            std::lock_guard lock(m_mutex);
            mark(offset, offset + length);
            m_length = std::max(m_length, offset + length);
        });
    }

    Status commit() override
    {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps;
        {
            std::lock_guard lock(m_mutex);
            // Up to the end of the export: a smaller image leaves no old data after it.
            const std::uint64_t end = m_backend->size();
            std::uint64_t pos = 0;
            compact();
            for (const auto &[from, to] : m_written) {
                if (from >= end)
                    break;
                if (from > pos)
                    gaps.push_back({pos, from});
                pos = std::max(pos, to);
            }
            if (pos < end)
                gaps.push_back({pos, end});
        }
        for (const auto &[from, to] : gaps) {
            auto there = m_backend->extentsOf(from, to - from);
            if (!there)
                return std::move(there).error();
            for (const auto &e : *there)
                if (e.kind == ExtentKind::Data)
                    if (auto st = m_backend->zero(e.offset, e.length); !st)
                        return st;
        }
        if (auto st = m_backend->flush(); !st)
            return st;
        m_committed = true;
        return {};
    }

    void abort() override {}
    std::optional<std::uint64_t> committedSize() const override
    {
        return m_committed ? std::optional<std::uint64_t>(m_length) : std::nullopt;
    }

    static Error tooSmall(std::uint64_t exportSize, std::uint64_t needed)
    {
        return Error(ErrorKind::NoSpace,
                     "the export holds " + std::to_string(exportSize) + " bytes, the image needs "
                         + std::to_string(needed));
    }

private:
    // Records [from, to) as written, merging neighbours.
    // A written range is appended; the list is sorted and merged once it has doubled since
    // (and at commit). A write costs no tree node and no search: a disk benchmark's 100 000
    // random 4 KiB writes a second spent a sixth of their CPU in a std::map.
    void mark(std::uint64_t from, std::uint64_t to)
    {
        m_written.emplace_back(from, to);
        if (m_written.size() >= 2 * m_compacted + 4096)
            compact();
    }
    void compact()
    {
        std::sort(m_written.begin(), m_written.end());
        std::size_t kept = 0;
        for (const auto &range : m_written) {
            if (kept > 0 && range.first <= m_written[kept - 1].second)
                m_written[kept - 1].second = std::max(m_written[kept - 1].second, range.second);
            else
                m_written[kept++] = range;
        }
        m_written.resize(kept);
        m_compacted = kept;
    }

    std::shared_ptr<NbdBackend> m_backend;
    std::mutex m_mutex;
    std::vector<std::pair<std::uint64_t, std::uint64_t>>
        m_written; // [from, to); the first m_compacted sorted and merged
    std::size_t m_compacted = 0;
    std::uint64_t m_length = 0;
    std::uint64_t m_pos = 0;
    bool m_committed = false;
};

} // namespace

Result<std::unique_ptr<Writer>> NbdBackend::write(std::string_view path, const WriteOptions &options)
{
    if (auto st = checkPath(path); !st)
        return std::move(st).error();
    if (m_readOnly)
        return Error(ErrorKind::PermissionDenied, "the export is read-only");
    if (!options.overwrite)
        return Error(ErrorKind::AlreadyExists, "an NBD export always holds an image");
    if (options.sizeHint && *options.sizeHint > m_size)
        return NbdWriter::tooSmall(m_size, *options.sizeHint);
    return std::unique_ptr<Writer>(std::make_unique<NbdWriter>(shared_from_this(), options.sizeHint.value_or(0)));
}

Status NbdBackend::remove(std::string_view path, std::string_view)
{
    (void)path;
    return unsupported("removing an NBD export");
}

} // namespace strata::nbd

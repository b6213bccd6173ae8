#include "backends/sftp/sftp_writer.h"

#include "backends/sftp/sftp_backend.h"
#include "core/storage/path.h"

#include <fcntl.h>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace strata::sftp {

namespace {

class SftpWriter final : public Writer {
public:
    // `lease` and `handle`: the connection that made the temporary file and the file still
    // open on it, for the writes in order (two round trips less than opening it again).
    SftpWriter(std::shared_ptr<SftpBackend> backend, std::string path, std::string temp, WriteOptions options,
               std::uint32_t mode, bool resumable, std::uint64_t length, SessionPool::Lease lease, Handle handle)
        : m_backend(std::move(backend)), m_path(std::move(path)), m_temp(std::move(temp)),
          m_options(std::move(options)), m_mode(mode), m_resumable(resumable), m_partial(length), m_appendAt(length),
          m_lease(std::move(lease)), m_handle(std::move(handle))
    {
        // Kept between writes: watched while a call of ours waits on it (Session::Busy),
        // not while the copier reads what comes next.
        m_lease->idle();
        sftp_seek64(m_handle.get(), m_appendAt);
    }
    ~SftpWriter() override
    {
        if (!m_finished)
            abort();
    }

    Status write(std::span<const std::byte> data) override
    {
        std::lock_guard lock(m_mutex);
        if (!m_lease || !m_handle || (*m_lease)->broken()) {
            closeHandle();
            auto lease = m_backend->pool().lease();
            if (!lease)
                return std::move(lease).error();
            m_lease.emplace(std::move(*lease));
            m_lease->idle();
        }
        Session::Busy busy(**m_lease);
        if (!m_handle) {
            auto h = openOn(**m_lease, m_temp, O_WRONLY, 0, "cannot write");
            if (!h)
                return std::move(h).error();
            m_handle = std::move(*h);
            sftp_seek64(m_handle.get(), m_appendAt);
        }
        if (auto st = writeAll(**m_lease, m_handle.get(), data, "cannot write"); !st)
            return st;
        m_appendAt += data.size();
        return {};
    }

    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override
    {
        // The handle that made the file, where no other part is using it (one part at a
        // time, as a small file is written: no second connection, no second open).
        if (std::unique_lock lock(m_mutex, std::try_to_lock); lock.owns_lock() && m_lease && m_handle) {
            if (!(*m_lease)->broken()) {
                Session::Busy busy(**m_lease);
                sftp_seek64(m_handle.get(), offset);
                return writeAll(**m_lease, m_handle.get(), data, "cannot write");
            }
            // A connection that broke is never written to again (a retry would fail at once):
            // this part goes to a connection of its own.
            closeHandle();
            m_lease.reset();
        }
        // Else a connection of its own with the file open on it, kept for the next part's
        // writes: parts written from several threads go out side by side.
        std::unique_ptr<Side> side;
        {
            std::lock_guard lock(m_sidesMutex);
            std::erase_if(m_sides, [](const auto &idle) { return idle->lease->broken(); });
            if (!m_sides.empty()) {
                side = std::move(m_sides.back());
                m_sides.pop_back();
            }
        }
        if (!side) {
            auto lease = m_backend->pool().lease();
            if (!lease)
                return std::move(lease).error();
            auto h = openOn(**lease, m_temp, O_WRONLY, 0, "cannot write");
            if (!h)
                return std::move(h).error();
            side = std::make_unique<Side>(Side{std::move(*lease), std::move(*h)});
            side->lease.idle();
        }
        {
            Session::Busy busy(*side->lease);
            sftp_seek64(side->handle.get(), offset);
            if (auto st = writeAll(*side->lease, side->handle.get(), data, "cannot write"); !st)
                return st; // the side goes: its connection may be broken
        }
        std::lock_guard lock(m_sidesMutex);
        m_sides.push_back(std::move(side));
        return {};
    }

    Status setLength(std::uint64_t length) override
    {
        {
            // Set with the mode and time at commit, on the open handle: one request.
            std::lock_guard lock(m_mutex);
            if (m_lease && m_handle) {
                m_length = length;
                return {};
            }
        }
        auto lease = m_backend->pool().lease();
        if (!lease)
            return std::move(lease).error();
        sftp_attributes_struct attrs{};
        attrs.flags = SSH_FILEXFER_ATTR_SIZE;
        attrs.size = length;
        return setAttributes(**lease, m_temp, attrs, "cannot set the length");
    }

    Status commit() override
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return Error(ErrorKind::InvalidInput, "the write was already finished");
        std::optional<SessionPool::Lease> lease = std::move(m_lease);
        m_lease.reset();
        if (!lease) {
            auto fresh = m_backend->pool().lease();
            if (!fresh)
                return fail(std::move(fresh).error());
            lease.emplace(std::move(*fresh));
        }
        Session &s = **lease;
        Session::Busy busy(s);
        if (auto st = closeSides(); !st)
            return fail(std::move(st).error(), &s);
        if (m_options.sync) {
            if (!m_handle) {
                auto h = openOn(s, m_temp, O_WRONLY, 0, "cannot sync");
                if (!h)
                    return fail(std::move(h).error());
                m_handle = std::move(*h);
            }
            // fsync@openssh.com; a server without it has nothing to offer instead.
            if (sftp_extension_supported(s.sftp(), "fsync@openssh.com", "1") == 1)
                (void)sftp_fsync(m_handle.get());
        }
        // Closed first (its answer says whether every write landed), then the mode, time
        // and length set by name (libssh 0.10 sets none on an open file).
        if (m_handle.close() < 0)
            return fail(s.error("cannot write"), &s);
        // Checked again before anything more is done by name: a folder on the way swapped
        // for a link since the write began.
        if (auto st = m_backend->confirmFolder(s, parentPath(m_path), m_options.confineBelow, "cannot publish"); !st)
            return fail(std::move(st).error(), &s);
        sftp_attributes_struct attrs{};
        attrs.flags = SSH_FILEXFER_ATTR_PERMISSIONS;
        attrs.permissions = m_mode;
        if (m_options.mtimeNs) {
            attrs.flags |= SSH_FILEXFER_ATTR_ACMODTIME;
            attrs.mtime = attrs.atime = static_cast<std::uint32_t>(*m_options.mtimeNs / 1'000'000'000);
        }
        if (m_length) {
            attrs.flags |= SSH_FILEXFER_ATTR_SIZE;
            attrs.size = *m_length;
        }
        if (auto st = setAttributes(s, m_temp, attrs, "cannot set the permissions"); !st)
            return fail(std::move(st).error(), &s);
        m_backend->pool().changed();
        if (auto st = renameOn(s, m_temp, m_backend->serverPath(m_path), m_options.overwrite, "cannot publish"); !st)
            return fail(std::move(st).error(), &s);
        m_finished = true;
        return {};
    }

    void abort() override
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return;
        m_finished = true;
        (void)closeSides();
        closeHandle();
        auto lease = m_lease ? std::move(m_lease) : std::optional<SessionPool::Lease>();
        m_lease.reset();
        if (!lease)
            if (auto fresh = m_backend->pool().lease())
                lease.emplace(std::move(*fresh));
        if (lease && !(*lease)->broken()) {
            Session::Busy busy(**lease);
            (void)removeFile(**lease, m_temp);
        }
    }

    void suspend() override
    {
        if (!m_resumable)
            return abort();
        std::lock_guard lock(m_mutex);
        m_finished = true;
        (void)closeSides();
        closeHandle();
        m_lease.reset();
    }

    bool keepsPartialState() const override { return m_resumable; }
    std::string refusedPartial() const override { return m_refusedPartial; }
    void setRefusedPartial(std::string why) { m_refusedPartial = std::move(why); }
    std::optional<std::uint64_t> partialLength() const override
    {
        return m_resumable ? std::optional(m_partial) : std::nullopt;
    }

private:
    // A connection of a part written side by side, with the file open on it.
    struct Side {
        SessionPool::Lease lease;
        Handle handle; // closed before the connection goes back
    };
    // Closes the sides' handles: each close's answer says whether its writes landed. Each
    // side is a connection of its own, so they are closed at once, one round trip for all
    // (one after another, 16 sides 80 ms away took 1.3 s).
    Status closeSides()
    {
        std::vector<std::unique_ptr<Side>> sides;
        {
            std::lock_guard lock(m_sidesMutex);
            sides.swap(m_sides);
        }
        std::vector<Status> closed(sides.size());
        const auto close = [&sides, &closed](std::size_t i) {
            Session::Busy busy(*sides[i]->lease); // a close waits for an answer: watched
            if (sides[i]->handle.close() < 0)
                closed[i] = sides[i]->lease->error("cannot write");
        };
        {
            std::vector<std::jthread> closers;
            for (std::size_t i = 1; i < sides.size(); ++i)
                closers.emplace_back(close, i);
            if (!sides.empty())
                close(0);
        }
        for (auto &st : closed)
            if (!st)
                return st;
        return {};
    }

    // Closes the file on the writer's own connection, watched (the close waits for an answer).
    void closeHandle()
    {
        if (!m_handle)
            return;
        if (!m_lease) {
            m_handle.reset();
            return;
        }
        Session::Busy busy(**m_lease);
        m_handle.reset();
    }

    // A failed commit leaves no temporary file (a resumable one stays for the next try).
    Status fail(Error error, Session *s = nullptr)
    {
        m_handle.reset();
        if (!m_resumable && s && !s->broken())
            (void)removeFile(*s, m_temp);
        m_finished = m_finished || !m_resumable;
        return error;
    }

    std::shared_ptr<SftpBackend> m_backend;
    std::string m_path; // backend path of the destination
    std::string m_temp; // server path of the temporary file
    WriteOptions m_options;
    std::uint32_t m_mode;
    bool m_resumable;
    std::uint64_t m_partial;
    std::uint64_t m_appendAt;
    std::mutex m_mutex;
    std::optional<SessionPool::Lease> m_lease; // the sequential writes' connection and handle
    Handle m_handle;
    std::optional<std::uint64_t> m_length; // setLength's, for commit to set on m_handle
    std::string m_refusedPartial;
    std::mutex m_sidesMutex;
    std::vector<std::unique_ptr<Side>> m_sides; // idle ones; writeAt takes one out
    bool m_finished = false;
};

} // namespace

std::unique_ptr<Writer> makeWriter(std::shared_ptr<SftpBackend> backend, std::string path, std::string temp,
                                   WriteOptions options, std::uint32_t mode, bool resumable, std::uint64_t length,
                                   SessionPool::Lease lease, Handle handle, std::string refusedPartial)
{
    auto writer = std::make_unique<SftpWriter>(std::move(backend), std::move(path), std::move(temp), std::move(options),
                                               mode, resumable, length, std::move(lease), std::move(handle));
    writer->setRefusedPartial(std::move(refusedPartial));
    return writer;
}

} // namespace strata::sftp

#include "backends/ftp/ftp_writer.h"

#include "backends/ftp/ftp_listing.h"
#include "backends/http/upload_pipe.h"
#include "core/storage/path.h"

#include <atomic>
#include <cstdio>
#include <future>
#include <iterator>
#include <thread>

namespace strata::ftp {

std::string octal(std::uint32_t mode)
{
    char text[8];
    std::snprintf(text, sizeof text, "%o", unsigned(mode & 07777));
    return text;
}

namespace {

// A word given once, by whichever side comes first (later ones are dropped).
class Once {
public:
    void operator()(bool value)
    {
        if (!m_given.exchange(true))
            m_promise.set_value(value);
    }
    std::future<bool> future() { return m_promise.get_future(); }

private:
    std::promise<bool> m_promise;
    std::atomic<bool> m_given = false;
};

// Uploads to a temporary name beside the destination and renames it into place at commit,
// so nothing half-written is ever visible under the name. Small files are kept in memory
// and sent at commit in one request that also renames them when they may replace
// (RNFR/RNTO after the STOR, on the same connection), or that checks the name and folder
// and sends the RNFR when they may not (the RNTO follows once the checks are judged);
// larger ones stream from a thread while they are written.
class FtpWriter final : public Writer {
public:
    static constexpr std::size_t kStreamFrom = 1u << 20;
    static constexpr std::size_t kBufferLimit = 8u << 20;

    FtpWriter(std::shared_ptr<FtpBackend> backend, std::string path, std::string temp, WriteOptions options,
              std::optional<std::uint32_t> mode, bool resumable, std::uint64_t partial)
        : m_backend(std::move(backend)), m_path(std::move(path)), m_temp(std::move(temp)),
          m_options(std::move(options)), m_mode(mode), m_resumable(resumable), m_partial(partial)
    {
        if (m_options.sizeHint && *m_options.sizeHint <= kStreamFrom)
            m_buffer.reserve(std::size_t(*m_options.sizeHint));
        else if (m_options.sizeHint)
            startStream(); // the STOR's round trips pass while the first bytes are read
    }
    ~FtpWriter() override { abort(); }

    Status write(std::span<const std::byte> data) override
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
            startStream();
        }
        if (!m_buffer.empty()) { // what was kept before the stream started goes first
            auto st = m_pipe.handOver(m_buffer);
            m_buffer = {};
            if (!st)
                return st;
        }
        // The first look found the name taken or the folder swapped: the rest is not sent.
        if (m_prepared.valid() && m_prepared.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
            if (Status early = m_prepared.get(); !early)
                return early;
        return m_pipe.handOver(data);
    }

    Status commit() override
    {
        if (m_finished)
            return Error(ErrorKind::InvalidInput, "the writer was already committed or aborted");
        m_finished = true;
        // A resumed writer's file starts with what the partial file held.
        const std::uint64_t total = m_written + (m_resumable ? m_partial : 0);
        if (m_options.sizeHint && total != *m_options.sizeHint) {
            stopStream();
            discard();
            return Error(ErrorKind::InvalidInput,
                         std::to_string(total) + " bytes were written of the " + std::to_string(*m_options.sizeHint)
                             + " announced");
        }
        // Where nothing may be replaced, look just before the rename (FTP's RNTO replaces).
        const bool checkFirst = !m_options.overwrite;
        Status sent;
        if (m_thread.joinable()) {
            // Streamed. After the 226 the stream's connection sends RNFR; meanwhile one
            // connection looks at the name and then sets the time (and the mode, if the
            // first look could not), another confirms the folder (on a server nearby, the
            // same one: a round trip there costs less than a login). The RNTO follows on
            // the stream's connection: two round trips after the 226, not five.
            // Both wait for the first look, whose connections they take (over TLS its
            // logins can outlast the bytes; taking others would log in more).
            const bool sideBySide = m_backend->pool().distant();
            auto named = std::async(std::launch::async, [this, checkFirst, sideBySide, looked = m_prepared] {
                if (looked.valid() && !looked.get())
                    return looked.get();
                if (auto st = sideBySide ? (checkFirst ? nameFree() : Status{}) : checkName(checkFirst); !st)
                    return st;
                const std::vector<std::string> lines = timeAndMode(!m_modeSet);
                if (!m_landing.get() || lines.empty())
                    return Status{}; // the stream's error is the one reported
                return m_backend->pool().lease()->commands(lines, "cannot write");
            });
            std::future<Status> inFolder;
            if (sideBySide)
                inFolder = std::async(std::launch::async, [this, looked = m_prepared] {
                    if (looked.valid())
                        looked.wait();
                    return confirmFolder();
                });
            Status stored = m_pipe.end();
            // The checks' findings first: a folder swapped for a link also fails the RNFR
            // (through the link, the temporary file is not there), and the link is the news.
            for (Status st : {named.get(), inFolder.valid() ? inFolder.get() : Status{}, stored})
                if (sent)
                    sent = std::move(st);
            m_publish(bool(sent));
            m_thread.join();
            if (sent)
                sent = m_published;
        } else {
            if (!checkFirst)
                if (auto st = confirmFolder(); !st)
                    return st; // nothing was sent
            // Where nothing may be replaced, the rename's checks ride in the bytes' request
            // (renameChecks): two requests per file, not four. Over a server without MLST,
            // they are asked on their own.
            const bool checksAlong = checkFirst && m_backend->features().mlst;
            std::optional<ResolvedCheck> folder;
            if (checksAlong) {
                auto check = m_backend->folderCheck(parentPath(m_path), m_options.confineBelow, "cannot publish");
                if (!check)
                    return std::move(check).error(); // nothing was sent
                folder = std::move(*check);
            }
            announce();
            bool learning = false;
            std::vector<std::string> publish = timeAndMode(true, &learning);
            const std::size_t checksAt = publish.size();
            if (!checkFirst)
                std::ranges::move(renameCommands(), std::back_inserter(publish));
            else if (checksAlong)
                std::ranges::move(renameChecks(folder), std::back_inserter(publish));
            {
                auto lease = m_backend->pool().lease();
                sent = lease->store(m_temp, appends(), m_buffer, publish, "cannot write");
                if (sent && learning)
                    m_backend->learnNewFileMode(m_temp, lease->replies());
                if (sent && checksAlong) {
                    sent = renameChecked(*lease, publish.size(), checksAt, folder);
                    if (sent)
                        sent = lease->commands({"RNTO " + m_backend->serverPath(m_path)}, "cannot publish");
                    else
                        lease->retire(); // its RNFR waits for an RNTO that will not come
                }
            }
            m_buffer = {};
            if (sent && checkFirst && !checksAlong)
                sent = checkName(true);
            if (sent && checkFirst && !checksAlong)
                sent = m_backend->pool().lease()->commands(renameCommands(), "cannot publish");
        }
        if (!sent) {
            discard();
            return sent;
        }
        confirm(total);
        return {};
    }

    void abort() override
    {
        if (m_finished)
            return;
        m_finished = true;
        stopStream();
        m_buffer = {};
        if (m_sentSome || m_resumable)
            (void)m_backend->pool().lease()->commands({"DELE " + m_temp}, "cannot remove the partial file");
    }

    void suspend() override
    {
        if (!m_resumable)
            return abort();
        if (m_finished)
            return;
        m_finished = true;
        // What the stream sent stays in the partial file (APPE); what is still in memory
        // goes there too, so that the next writer finds it.
        stopStream();
        if (!m_buffer.empty()) {
            (void)m_backend->pool().lease()->store(m_temp, true, m_buffer, {}, "cannot keep the partial file");
            m_buffer = {};
        }
    }

    bool keepsPartialState() const override { return m_resumable; }
    std::optional<std::uint64_t> partialLength() const override
    {
        return m_resumable ? std::optional(m_partial) : std::nullopt;
    }
    std::string refusedPartial() const override { return m_refusedPartial; }
    void setRefusedPartial(std::string why) { m_refusedPartial = std::move(why); }
    // The server's 226 came after every byte (libcurl fails a STOR otherwise): the size
    // is known without asking again.
    std::optional<std::uint64_t> committedSize() const override { return m_committed; }

private:
    // A file stored from its start (STOR) holds what was sent once the 226 came; one
    // appended to a kept part (APPE) is stat'ed by the caller as before (the part was
    // measured earlier).
    void confirm(std::uint64_t total)
    {
        if (!m_resumable || m_partial == 0)
            m_committed = total;
    }

    // APPE onto what a resumable write found kept; else STOR, which empties whatever has the
    // temporary name (a look skipped in a new folder never appends to a stranger's bytes).
    bool appends() const { return m_resumable && m_partial > 0; }

    // Checked again just before the rename: a folder on the way swapped for a link since
    // the write began.
    Status confirmFolder()
    {
        return m_backend->confirmFolder(parentPath(m_path), m_options.confineBelow, "cannot publish");
    }

    void announce()
    {
        // Before the server sees a byte: a process killed between the STOR and the rename
        // leaves the temporary file, and the next run finds its name in the journal.
        if (m_sentSome)
            return;
        m_sentSome = true;
        if (!m_resumable && m_options.onPending)
            m_options.onPending(std::string(baseName(m_temp)));
    }

    void startStream()
    {
        announce();
        m_publishing = m_publish.future();
        m_landing = m_landed.future();
        std::future<bool> begun = m_begun.future();
        // Taken here, before the look below takes one: the stream gets the connection the
        // plan logged in, not a new login's four round trips.
        m_thread = std::thread([this, lease = m_backend->pool().lease(true)]() mutable {
            // RNFR right after the 226, on the same connection, while the commit looks at
            // the name and the folder: its RNTO is then one round trip.
            const auto pull = [this](std::span<std::byte> out) {
                m_begun(true);
                return m_pipe.pull(out);
            };
            Status stored =
                lease->store(m_temp, appends(), pull, {"RNFR " + m_temp}, "cannot write", [this] { m_landed(true); });
            m_begun(false);
            m_landed(false);
            m_pipe.finished(stored);
            if (!stored)
                return;
            if (m_publishing.get())
                m_published = lease->commands({"RNTO " + m_backend->serverPath(m_path)}, "cannot publish");
            else
                lease->retire(); // its RNFR waits for an RNTO that will not come
        });
        // Looked at once now (a folder swapped, or a name taken unless the plan found it
        // free, is known early), on the connections the commit checks on, which logs them
        // in while the bytes flow. Some modes are given once the STOR made the file (see
        // earlyMode); where the server says no, the commit sets it.
        m_prepared = std::async(std::launch::async, [this, begun = std::move(begun)]() mutable {
            const bool distant = m_backend->pool().distant();
            std::future<void> other; // on a distant server, a second connection logged in
            if (distant && (m_options.overwrite || m_options.fresh))
                other = std::async(std::launch::async, [this] { (void)m_backend->pool().lease()->commands({}, ""); });
            Status looked = checkName(!m_options.overwrite && !m_options.fresh, distant);
            if (looked && earlyMode() && begun.get())
                m_modeSet = bool(m_backend->pool().lease()->commands({"SITE CHMOD " + octal(*m_mode) + " " + m_temp},
                                                                     "cannot set the mode"));
            if (other.valid())
                other.wait();
            return looked;
        });
    }

    // A mode given while the bytes flow: one that keeps the owner's write (an APPE onto a
    // kept part still works), gives no one else write (a kept part with it is taken up
    // again: FtpBackend::keptPartSize) and no set-ID bit (a write by the server clears it).
    bool earlyMode() const { return m_mode && (*m_mode & 06222) == 0200; }

    void stopStream()
    {
        if (m_thread.joinable()) {
            m_pipe.cancel();
            m_publish(false); // its RNFR, if any, waits for no RNTO
            m_thread.join();
        }
        if (m_prepared.valid())
            m_prepared.wait();
    }

    // Nothing has the name (FTP's RNTO would replace it).
    Status nameFree()
    {
        auto there = m_backend->statServer(m_backend->serverPath(m_path), "cannot publish");
        if (there)
            return Error(ErrorKind::AlreadyExists, "cannot publish: something has that name");
        if (there.error().kind() != ErrorKind::NotFound)
            return std::move(there).error();
        return {};
    }

    // Nothing has the name (unless it may be replaced), and the folder is still the one
    // named: on one connection, or on two side by side.
    Status checkName(bool checkFirst, bool sideBySide = false)
    {
        if (!checkFirst)
            return confirmFolder();
        std::future<Status> inFolder;
        if (sideBySide)
            inFolder = std::async(std::launch::async, [this] { return confirmFolder(); });
        Status named = nameFree();
        Status st = inFolder.valid() ? inFolder.get() : named ? confirmFolder() : Status{};
        return named ? st : named;
    }

    // A failed commit leaves no temporary file (a resumable one stays for the next try).
    void discard()
    {
        if (!m_resumable && m_sentSome)
            (void)m_backend->pool().lease()->commands({"DELE " + m_temp}, "cannot remove the partial file");
    }

    // After the STOR, on its connection. '*': a server without MFMT or SITE CHMOD still
    // takes the file. No SITE CHMOD where a new file in the folder gets the mode anyway
    // (FtpBackend::newFileMode); where that is not known yet and `learning` is given, an
    // MLST of the new file before it, whose answer the caller hands to learnNewFileMode.
    std::vector<std::string> timeAndMode(bool withMode, bool *learning = nullptr) const
    {
        std::vector<std::string> lines;
        if (m_options.mtimeNs && m_backend->features().mfmt)
            lines.push_back("*MFMT " + formatFtpTime(*m_options.mtimeNs) + " " + m_temp);
        if (!m_mode || !withMode)
            return lines;
        // A resumable writer's STOR may have met a part it refused, whose mode STOR keeps.
        const bool made = !m_resumable;
        const auto usual = made ? m_backend->newFileMode(m_temp) : std::nullopt;
        if (usual && *usual == (*m_mode & 07777))
            return lines;
        if (made && !usual && learning && m_backend->features().mlst) {
            lines.push_back("*MLST " + m_temp);
            *learning = true;
        }
        lines.push_back("*SITE CHMOD " + octal(*m_mode) + " " + m_temp);
        return lines;
    }

    // After the bytes and before the rename, in the same request: is the folder still where
    // the user named it (CWD + PWD, when it is below that; see FtpBackend::folderCheck), is
    // anything under the name (MLST), then RNFR. libcurl's '*' lets each fail: the replies
    // are judged by renameChecked, so a folder swapped meanwhile is told as such even when
    // the RNFR, looking through it, found nothing.
    std::vector<std::string> renameChecks(const std::optional<ResolvedCheck> &folder) const
    {
        std::vector<std::string> lines;
        if (folder) {
            lines.push_back("*CWD " + folder->where);
            lines.push_back("*PWD");
        }
        lines.push_back("*MLST " + m_backend->serverPath(m_path));
        lines.push_back("*RNFR " + m_temp);
        return lines;
    }

    // What renameChecks' commands answered, the last `sent` replies of `c`'s request from
    // index `at` on, each by the code its command gives (anything else refuses): the folder
    // was found in place (250, then PWD's 257 naming it), nothing has the name (MLST's 550),
    // and the RNFR waits for its RNTO (350).
    Status renameChecked(Connection &c, std::size_t sent, std::size_t at,
                         const std::optional<ResolvedCheck> &folder) const
    {
        constexpr std::string_view what = "cannot publish";
        const auto finals = c.finalReplies(sent);
        if (finals.size() != sent || sent < at + (folder ? 4 : 2))
            return Error(ErrorKind::Corrupt, std::string(what) + ": the server's replies are missing");
        const auto code = [&](std::size_t i) { return Connection::replyCode(finals[i]); };
        if (folder) {
            if (code(at) / 100 != 2)
                return c.refusal(finals[at], what);
            if (code(at + 1) != 257)
                return c.refusal(finals[at + 1], what);
            if (auto st = m_backend->folderFound(parentPath(m_path), *folder, finals[at + 1], what); !st)
                return st;
            at += 2;
        }
        if (code(at) / 100 == 2)
            return Error(ErrorKind::AlreadyExists, std::string(what) + ": something has that name");
        if (code(at) != 550)
            return c.refusal(finals[at], what);
        if (code(at + 1) != 350)
            return c.refusal(finals[at + 1], what);
        return {};
    }

    std::vector<std::string> renameCommands() const
    {
        return {"RNFR " + m_temp, "RNTO " + m_backend->serverPath(m_path)};
    }

    std::shared_ptr<FtpBackend> m_backend;
    std::string m_path; // backend path of the destination
    std::string m_temp; // server path of the temporary file
    WriteOptions m_options;
    std::optional<std::uint32_t> m_mode; // given to the file before the rename
    bool m_resumable;
    std::uint64_t m_partial;
    std::vector<std::byte> m_buffer; // everything written, until a stream starts
    std::uint64_t m_written = 0;
    bool m_finished = false;
    bool m_sentSome = false; // a STOR began: the temporary may exist on the server
    http::UploadPipe m_pipe;
    std::thread m_thread; // runs the streamed STOR
    std::string m_refusedPartial;
    std::optional<std::uint64_t> m_committed; // bytes the published file holds
    std::shared_future<Status> m_prepared;    // the look taken as the stream began
    bool m_modeSet = false;                   // by that look: the temporary file has m_mode
    Once m_begun;                             // the STOR's bytes began to flow (its file exists), or it ended first
    Once m_landed;                            // the STOR's 226 came (the time can be set), or it ended without
    Once m_publish;                           // the commit's word to the stream's connection: RNTO or not
    std::future<bool> m_landing;
    std::future<bool> m_publishing;
    Status m_published; // the RNTO's outcome
};

} // namespace

std::unique_ptr<Writer> makeWriter(std::shared_ptr<FtpBackend> backend, std::string path, std::string temp,
                                   WriteOptions options, std::optional<std::uint32_t> mode, bool resumable,
                                   std::uint64_t partial, std::string refusedPartial)
{
    auto writer = std::make_unique<FtpWriter>(std::move(backend), std::move(path), std::move(temp), std::move(options),
                                              mode, resumable, partial);
    writer->setRefusedPartial(std::move(refusedPartial));
    return writer;
}

} // namespace strata::ftp

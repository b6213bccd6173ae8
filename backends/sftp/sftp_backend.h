#pragma once

#include "backends/sftp/sftp_files.h"
#include "backends/sftp/sftp_session.h"
#include "core/storage/backend.h"
#include "core/storage/confinement.h"
#include "core/storage/listing_cache.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace strata::sftp {

// A server's files over SFTP (OpenSSH's sftp-server, internal-sftp and the like), through
// libssh: one SSH connection per request in flight, taken from a pool and given back.
// Reads keep requests in flight ahead of the caller (ReadStream); writes go to a hidden
// temporary name beside the destination and are renamed into place on commit; positional
// writes go over several connections at once.
class SftpBackend final : public Backend, public std::enable_shared_from_this<SftpBackend> {
public:
    // Connects once (a wrong host, key or password fails here, clearly), keeps that
    // connection for the first request.
    static Result<std::shared_ptr<SftpBackend>> open(Config config, ConnectionPrompts prompts);

    Capabilities capabilities() const override;
    Uri uriFor(std::string_view path) const override;
    std::size_t preferredIoSize() const override { return 4u << 20; }
    // A read keeps 4 MiB of requests in flight (OpenSSH's sftp: 2 MiB): more streams per
    // file would add read-ahead thrown away at the ends of their ranges. A write waits for
    // each request's answer (libssh 0.10 keeps none in flight): parts of a large file are
    // written side by side, each on a connection of its own, or a distant server would
    // take one request per round trip.
    bool oneStreamPerObject(Flow flow) const override { return flow == Flow::Reading; }
    // SessionPool::distantStreams(), both ways: a large file written in that many parts
    // side by side, or that many files in flight (read one stream each: each small file
    // costs a connection some seven round trips).
    std::size_t preferredStreams(Flow flow) const override;

    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    // One handle for the whole copy: every read comes from the file that was opened, even
    // when another is renamed over its name (SFTP v3 times are whole seconds and carry no
    // inode: a rewrite in the same second could not be told apart; a mix of two versions
    // never arrives). A file that is no longer the listed size is Corrupt at once.
    Result<std::unique_ptr<Reader>> openReader(std::string_view path, const Entry &expected) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow) override;
    // Removes the temporary file a killed writer of `path` announced (WriteOptions::onPending);
    // only a name of ours (".strata-DIGITS.part"), whatever the journal says.
    void discardPending(std::string_view path, const std::string &token) override;
    ~SftpBackend() override { m_listings.stop(); } // its readers use what follows
    void hangUp() override { m_pool.hangUp(); }

    // The server's name for a backend path (below the login folder for sftp://host/~/…).
    std::string serverPath(std::string_view path) const;
    // Checks that folder `dir` (a backend path) is reached from `within` (a backend path at
    // or above it; empty: no check) through no symbolic link, as the server resolves names
    // now: its realpath must be the realpath of `within` followed by the same names. SFTP
    // has no openat: an act by name after this check can still meet a link swapped in
    // meanwhile (one round trip later), which the next check then finds.
    Status confirmFolder(Session &s, std::string_view dir, std::string_view within, std::string_view what);
    SessionPool &pool() { return m_pool; }

private:
    // Removes temporary file `temp` (a server path) if an open that created it lost its
    // answer with its connection: only an empty regular file.
    void discardUnanswered(const std::string &temp);
    SftpBackend(Config config, ConnectionPrompts prompts) : m_pool(std::move(config), std::move(prompts)) {}
    // The folder's entries, each batch the server sends to `sink` (see ListingCache).
    Status listAll(const std::string &dir, const std::string &within, const ListingCache::Sink &sink,
                   std::vector<std::string> &skipped);
    // The partial file an earlier writer kept under `temp`, opened for writing (its length
    // in `length`), or a new one there. What is under the name is taken only when it is ours
    // as we left it (ownFile()): else it is left alone, `refused` says why and the handle
    // is empty.
    Result<Handle> openKeptPart(Session &s, const std::string &temp, std::uint64_t &length, std::string &refused);
    // The owner and permissions a private file we create in server folder `dir` gets: a
    // file made and removed once per server (SFTP names no login user's id).
    Result<Attributes> ownFile(Session &s, const std::string &dir);

    SessionPool m_pool;
    std::string m_root; // the server folder the backend's "/" is
    ListingCache m_listings;
    RealPathCache m_realTops; // what confirmFolder's `within` resolves to
    std::mutex m_ownMutex;
    std::optional<Attributes> m_own; // ownFile()'s answer
};

} // namespace strata::sftp

#pragma once

#include "backends/ftp/ftp_connection.h"
#include "backends/ftp/ftp_listing.h"
#include "core/storage/backend.h"
#include "core/storage/confinement.h"
#include "core/storage/listing_cache.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata::ftp {

// What the server said it can do (FEAT), read once at open.
struct Features {
    bool mlsd = false; // MLSD listings: exact sizes, UTC times, types (else LIST is parsed)
    bool mlst = false; // MLST: one entry's facts in one round trip
    bool mfmt = false; // MFMT: a file's modification time can be set
};

// A server's files over FTP or FTPS (explicit TLS), through libcurl: one control
// connection per request in flight, kept open in a pool. Reads ask for a range (REST +
// RETR), or stream a whole file through a Reader; writes go to a hidden temporary name beside the destination (STOR, or APPE to go
// on with a kept partial file) and are renamed into place (RNFR/RNTO) on commit.
class FtpBackend final : public Backend, public std::enable_shared_from_this<FtpBackend> {
public:
    // Logs in once (a wrong host, password or certificate fails here, clearly) and asks the
    // server's features.
    static Result<std::shared_ptr<FtpBackend>> open(Config config);

    Capabilities capabilities() const override;
    Uri uriFor(std::string_view path) const override;
    std::size_t preferredIoSize() const override { return 8u << 20; }
    // Far away, more files side by side (ConnectionPool::learnRoundTrip); else no wish.
    std::size_t preferredStreams(Flow) const override { return m_pool.limit() > 8 ? m_pool.limit() : 0; }

    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::unique_ptr<Reader>> openReader(std::string_view path, const Entry &expected) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    // One download per file (a stream per part would cost a login each).
    bool oneStreamPerObject(Flow) const override { return true; }
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow) override;
    // Removes the temporary file a killed writer of `path` announced (WriteOptions::onPending);
    // only a name of ours (".strata-DIGITS.part"), whatever the journal says.
    void discardPending(std::string_view path, const std::string &token) override;
    ~FtpBackend() override { m_listings.stop(); } // its readers use the pool
    void hangUp() override { m_pool.hangUp(); }

    // The server's name for a backend path (below the folder the login starts in).
    std::string serverPath(std::string_view path) const;
    // An entry by its server path (MLST, or the parent's listing on servers without it).
    Result<Entry> statServer(const std::string &where, std::string_view what);
    // Checks that folder `dir` (a backend path) is reached from `within` (a backend path at
    // or above it; empty: no check) through no symbolic link: the folder the server goes
    // into for it (CWD, then PWD, which names the folder reached) must be the one it goes
    // into for `within` followed by the same names. FTP has no openat: an act by name after
    // this check can still meet a link swapped in meanwhile, which the next check then finds.
    Status confirmFolder(std::string_view dir, std::string_view within, std::string_view what);
    // The same check, for a request that carries it beside other commands: "CWD where" and
    // "PWD" are sent there, and folderFound judges PWD's reply. Nothing to send: no check.
    Result<std::optional<ResolvedCheck>> folderCheck(std::string_view dir, std::string_view within,
                                                     std::string_view what);
    Status folderFound(std::string_view dir, const ResolvedCheck &check, std::string_view pwdReply,
                       std::string_view what);
    ConnectionPool &pool() { return m_pool; }
    const Features &features() const { return m_features; }
    // The permissions a file made by STOR at server path `file` gets (the server's umask
    // for this login, learned per folder), once an upload into its folder has seen them;
    // nullopt before. A writer whose file gets the mode it wants anyway sends no SITE
    // CHMOD: one round trip less per file.
    std::optional<std::uint32_t> newFileMode(const std::string &file);
    // Learns it from the replies of a request that sent "MLST file" just after making it.
    void learnNewFileMode(const std::string &file, std::string_view replies);

private:
    explicit FtpBackend(Config config) : m_pool(std::move(config)) {}
    // The folder's entries, in batches as they arrive, to `sink` (see ListingCache).
    Status listAll(const std::string &dir, const std::string &within, const ListingCache::Sink &sink,
                   std::vector<std::string> &skipped);
    // The folder the server goes into for `where` (CWD, then PWD).
    Result<std::string> resolvedFolder(const std::string &where, std::string_view what);
    // The folder a PWD reply names (none: the reply names none).
    static std::optional<std::string> pwdFolder(std::string_view replies);
    std::string folderPath(std::string_view path) const; // serverPath, "/" for the top
    // What MLST says of one server path.
    Result<ListedName> factsOf(const std::string &where, std::string_view what);
    // The size of the partial file an earlier writer kept under `temp` (0: none), when it is
    // ours as we left it (ownFile(), or with `mode`, which its writer gives early: see
    // FtpWriter::earlyMode); else `refused` says why and it is left alone.
    Result<std::uint64_t> keptPartSize(const std::string &temp, std::optional<std::uint32_t> mode,
                                       std::string &refused);
    // What MLST says of a file we upload into server folder `dir`: made and removed once
    // per server (FTP names no login user's id).
    Result<ListedName> ownFile(const std::string &dir);

    ConnectionPool m_pool;
    std::string m_root; // the server folder the backend's "/" is ("" for the server's /)
    Features m_features;
    ListingCache m_listings;
    RealPathCache m_realTops; // what confirmFolder's `within` resolves to
    std::mutex m_ownMutex;
    std::optional<ListedName> m_own;                                  // ownFile()'s answer
    std::map<std::string, std::uint32_t, std::less<>> m_newFileModes; // by server folder
};

} // namespace strata::ftp

#pragma once

#include "backends/http/http_client.h"
#include "backends/webdav/webdav_config.h"
#include "backends/webdav/webdav_multistatus.h"
#include "core/storage/backend.h"
#include "core/storage/listing_cache.h"
#include "core/storage/retrier.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace strata::webdav {

// A WebDAV server over libcurl: PROPFIND (Depth 1 lists, Depth 0 stats), GET with Range
// into the caller's buffer, PUT to a temporary name and MOVE on commit, MKCOL, DELETE,
// MOVE and COPY. Backend paths are the server's URL paths, decoded. Thread-safe:
// connections come from the HTTP client's pool and are kept alive.
class WebDavBackend final : public Backend, public std::enable_shared_from_this<WebDavBackend> {
public:
    WebDavBackend(Config config, std::shared_ptr<http::Client> client);

    Capabilities capabilities() const override;
    std::size_t preferredIoSize() const override { return 8u << 20; }
    // Far away, more files in flight, and a large file read in more ranges side by side
    // (as S3: each ranged GET waits a round trip for its first byte).
    std::size_t preferredStreams(Flow) const override { return http::distantStreams(*m_client); }
    Uri uriFor(std::string_view path) const override;
    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override;
    void discardPending(std::string_view path, const std::string &token) override;
    ~WebDavBackend() override { m_listings.stop(); } // its readers use the client
    void hangUp() override { m_client->hangUp(); }
    Status remove(std::string_view path, std::string_view within) override;
    Status removeMany(std::span<const std::string> paths, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status copy(std::string_view from, std::string_view to) override;

    // The writer's steps. upload: a PUT of the request's body to `path`.
    Status upload(std::string_view path, http::Request request);
    // MOVEs a finished upload to its name: never over a directory, over a file only when
    // `overwrite`; the temporary is removed when that fails.
    Status publish(std::string_view temp, std::string_view path, bool overwrite);
    // Checks that folder `dir`, strictly below `within` (empty: no check), is a folder as the
    // server answers for the name itself: lighttpd describes a symbolic link there as what
    // it is (not a collection) when asked without a trailing '/'. Servers that answer for
    // what a link points to cannot be checked: WebDAV has no other way to tell.
    Status confirmFolder(std::string_view dir, std::string_view within);
    // Removes a temporary upload, best effort.
    void discard(std::string_view path);
    // The authentication scheme the server wants in `dir` (http::kAuth* bits; 0: the client's
    // choice will do), asked before a body that cannot be sent twice for a 401 round trip;
    // once per directory (the uploads of a tree ask it once, not once per file).
    Result<long> authSchemeFor(std::string_view dir);

private:
    using OnResource = std::function<void(std::string path, DavResource &&resource)>;

    // Sends `method` to `path`; a collection's URL ends in '/'.
    Result<http::Response> send(std::string_view method, std::string_view path, http::Request request = {},
                                bool collection = false);
    Error fail(const http::Response &response, std::string_view method, std::string_view xmlProblem = {}) const;
    // PROPFIND at Depth 0 or 1; every resource of the answer on this server, with its path.
    // Hrefs that name no path of ours go to `skipped` (as sent) when given, else are dropped.
    // `fed`, when given, runs after each piece of the answer is parsed; false stops it.
    Status propfind(std::string_view path, int depth, const OnResource &onResource,
                    std::vector<std::string> *skipped = nullptr, const std::function<bool()> &fed = {});
    // The children of `dir`, in batches as they arrive, to `sink` (see ListingCache).
    Status listing(const std::string &dir, const std::string &within, const ListingCache::Sink &sink,
                   std::vector<std::string> &skipped);
    // A 207 answering `method` on `path`: nothing when every member it lists succeeded, else
    // the first failure, with the member's path and status.
    Status multistatus(const http::Response &response, std::string_view method, std::string_view path) const;
    // MOVE or COPY that never replaces a directory, and a file only when `overwrite`.
    Status relocate(std::string_view method, std::string_view from, std::string_view to, bool overwrite);

    Config m_config;
    std::shared_ptr<http::Client> m_client;
    Retrier m_retrier; // for clean-up requests no layer sees (the storage stack's policy)
    ListingCache m_listings;
    std::mutex m_schemesMutex;
    std::map<std::string, long, std::less<>> m_schemes; // authSchemeFor's answers, by directory
};

} // namespace strata::webdav

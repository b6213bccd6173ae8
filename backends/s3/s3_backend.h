#pragma once

#include "backends/http/http_client.h"
#include "backends/s3/s3_config.h"
#include "core/storage/backend.h"
#include "core/storage/retrier.h"

#include <memory>
#include <optional>

namespace strata::s3 {

// One S3 request before signing: method, key (raw, no leading '/'; empty for the bucket),
// query, headers and body. The method and key are views: the caller keeps them alive.
struct Call {
    std::string_view method = "GET";
    std::string_view key;
    std::vector<Header> query;
    std::vector<Header> headers;
    std::span<const std::byte> body;
    std::span<std::byte> into;
    std::uint64_t skip = 0;
    // Sends "Range: bytes=first-last" (built on the stack: reads are frequent enough that a
    // header vector per read would show in their allocation count).
    std::optional<std::pair<std::uint64_t, std::uint64_t>> range;
    bool bucketRoot = false; // the bucket itself (HEAD bucket, list), no key segment
    bool allHeaders = false; // keep every response header (http::Request::allHeaders)
};

// A bucket of an S3-compatible store over libcurl, signed with our SigV4. Paths map to
// keys ("/a/b" -> "a/b"); directories are key prefixes ("a/"), created as zero-byte
// "a/" markers. Thread-safe: connections come from the shared HTTP client's pool.
class S3Backend final : public Backend, public std::enable_shared_from_this<S3Backend> {
public:
    S3Backend(Config config, Credentials credentials, std::shared_ptr<http::Client> client);

    Capabilities capabilities() const override;
    std::size_t preferredIoSize() const override { return 8u << 20; }
    // Far away, more files in flight, and a large file read in more ranges side by side.
    std::size_t preferredStreams(Flow) const override { return http::distantStreams(*m_client); }
    Uri uriFor(std::string_view path) const override;
    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<VersionPage> listVersions(std::string_view dir, const ListOptions &options) override;
    Result<UploadPage> listUploads(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                    const ObjectVersion &version) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status removeMany(std::span<const std::string> paths, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status markDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status copy(std::string_view from, std::string_view to) override;
    Result<ObjectDetails> details(std::string_view path) override;
    Status changeDetails(std::string_view path, const DetailsChange &change) override;
    Result<std::string> shareLink(std::string_view path, std::chrono::seconds lifetime) const override;
    // Aborts the multipart upload `token` of `path` (a killed run's).
    void discardPending(std::string_view path, const std::string &token) override;
    void hangUp() override { m_client->hangUp(); }

    // Sends a call (signed unless anonymous) and returns the raw answer.
    Result<http::Response> send(const Call &call);
    // Sends and turns any non-2xx answer into an error.
    Result<http::Response> sendOk(const Call &call);
    // sendOk, again while it fails for a while (a 503, a cut connection), for the requests
    // a writer sends on its own (a part, a whole small object): no layer sees those, and one
    // bad answer among the dozens of a large upload must not cost the whole file.
    Result<http::Response> sendRetried(const Call &call)
    {
        return m_retrier.run([&] { return sendOk(call); });
    }
    const Config &config() const { return m_config; }
    Result<http::Response> head(const std::string &key); // the raw answer to a HEAD of key

private:
    // A bucket listing paged by a key marker and an id marker (ListObjectVersions,
    // ListMultipartUploads): its subresource, the names of its parameters, what it lists.
    struct MarkedListing {
        const char *subresource, *limit, *idMarker, *noun;
    };
    Result<http::Response> listMarked(const MarkedListing &what, const std::string &prefix, const ListOptions &options);
    // Writing through an instance pinned to one version (?versionId=) is refused.
    Status refusePinned() const;
    Result<bool> prefixExists(const std::string &prefix);
    Result<Entry> statDirectory(std::string_view path, const std::string &key);

    Config m_config;
    std::string m_host; // m_config.host(), made once
    Credentials m_credentials;
    std::shared_ptr<http::Client> m_client;
    Retrier m_retrier; // the storage stack's policy (RetryPolicy's defaults)
};

inline constexpr std::size_t kMaxKeyBytes = 1024;
Error keyTooLong();

// "/a/b" -> "a/b"; "/" -> "" (a view into path).
std::string_view keyOf(std::string_view path);

} // namespace strata::s3

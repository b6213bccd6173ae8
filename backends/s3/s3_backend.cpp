#include "backends/s3/s3_backend.h"

#include "backends/s3/s3_writer.h"
#include "backends/s3/s3_xml.h"
#include "core/io/hash.h"
#include "core/storage/path.h"

#include <charconv>

namespace strata::s3 {

namespace {

Entry fileEntry(std::string_view path, std::uint64_t size, std::optional<std::int64_t> mtime, std::string etag)
{
    Entry e;
    e.path = std::string(path);
    e.name = std::string(baseName(path));
    e.kind = EntryKind::File;
    e.size = size;
    e.mtimeNs = mtime;
    e.etag = std::move(etag);
    return e;
}

Entry dirEntry(std::string_view path)
{
    Entry e;
    e.path = std::string(path);
    e.name = std::string(baseName(path));
    e.kind = EntryKind::Directory;
    return e;
}

} // namespace

std::string_view keyOf(std::string_view path)
{
    return path.size() <= 1 ? std::string_view() : path.substr(1);
}

S3Backend::S3Backend(Config config, Credentials credentials, std::shared_ptr<http::Client> client)
    : m_config(std::move(config)), m_host(m_config.host()), m_credentials(std::move(credentials)),
      m_client(std::move(client))
{
}

Capabilities S3Backend::capabilities() const
{
    return {Capability::Stat,       Capability::List,          Capability::Read,          Capability::Write,
            Capability::Remove,     Capability::CreateDir,     Capability::Rename,        Capability::Copy,
            Capability::RangedRead, Capability::ListRecursive, Capability::VersionedRead, Capability::Versions,
            Capability::Uploads,    Capability::Details};
}

Uri S3Backend::uriFor(std::string_view path) const
{
    Uri uri = m_config.baseUri();
    uri.setPath(std::string(path.empty() ? "/" : path));
    return uri;
}

Status S3Backend::refusePinned() const
{
    return Error(ErrorKind::InvalidInput,
                 "?versionId= names one stored version of an object: it can be read or "
                 "deleted, not written (copy it to the object's plain URI to restore it)");
}

Result<http::Response> S3Backend::head(const std::string &key)
{
    Call call;
    call.method = "HEAD";
    call.key = key;
    return send(call);
}

Result<bool> S3Backend::prefixExists(const std::string &prefix)
{
    Call call;
    call.bucketRoot = true;
    call.query = {{"list-type", "2"}, {"prefix", prefix}, {"max-keys", "1"}, {"encoding-type", "url"}};
    auto response = sendOk(call);
    if (!response)
        return std::move(response).error();
    auto listed = parseList(response->body);
    if (!listed)
        return std::move(listed).error();
    return !listed->objects.empty() || !listed->prefixes.empty() || !listed->undecodable.empty();
}

Result<Entry> S3Backend::statDirectory(std::string_view path, const std::string &key)
{
    auto exists = prefixExists(key + "/");
    if (!exists)
        return std::move(exists).error();
    if (!*exists)
        return Error(ErrorKind::NotFound);
    return dirEntry(path);
}

Result<Entry> S3Backend::stat(std::string_view path)
{
    if (path == "/") {
        Call call;
        call.method = "HEAD";
        call.bucketRoot = true;
        auto response = sendOk(call);
        if (!response) {
            if (response.error().kind() == ErrorKind::NotFound)
                return Error(ErrorKind::NotFound, "the bucket '" + m_config.bucket + "' does not exist");
            return std::move(response).error();
        }
        return dirEntry("/");
    }
    const std::string key(keyOf(path));
    auto response = head(key);
    if (!response)
        return std::move(response).error();
    if (response->status == 404)
        return statDirectory(path, key);
    if (response->status < 200 || response->status >= 300)
        return s3Error(*response, m_config.bucket);
    std::uint64_t size = 0;
    const std::string_view length = response->header("content-length");
    std::from_chars(length.data(), length.data() + length.size(), size);
    Entry entry = fileEntry(path, size, parseTime(std::string(response->header("last-modified"))),
                            std::string(response->header("etag")));
    // HEAD names the class only when it is not STANDARD.
    const std::string_view storageClass = response->header("x-amz-storage-class");
    entry.storageClass = storageClass.empty() ? std::string("STANDARD") : std::string(storageClass);
    return entry;
}

Result<ListPage> S3Backend::list(std::string_view dir, const ListOptions &options)
{
    const std::string key(keyOf(dir));
    const std::string prefix = key.empty() ? std::string() : key + "/";
    Call call;
    call.bucketRoot = true;
    // encoding-type=url: a key holding a control character is sent escaped, not as XML no
    // parser takes (which would make one co-user's key block the whole prefix).
    call.query = {{"list-type", "2"},
                  {"max-keys", std::to_string(std::clamp<std::size_t>(options.pageSize, 1, 1000))},
                  {"encoding-type", "url"}};
    if (!prefix.empty())
        call.query.emplace_back("prefix", prefix);
    if (!options.recursive)
        call.query.emplace_back("delimiter", "/");
    // Our page token is "<length>:<last common prefix><S3 continuation token>": some servers
    // (s3rver) repeat a common prefix at the top of the next page, and it must not be
    // listed twice. The length, not a separator, ends the prefix: a key may hold any byte.
    std::string lastPrefix;
    if (!options.pageToken.empty()) {
        const auto colon = options.pageToken.find(':');
        std::size_t length = 0;
        const char *digits = options.pageToken.data();
        const auto parsed = std::from_chars(digits, digits + (colon == std::string::npos ? 0 : colon), length);
        if (colon == std::string::npos || parsed.ec != std::errc() || parsed.ptr != digits + colon
            || length > options.pageToken.size() - colon - 1)
            return Error(ErrorKind::InvalidInput, "the listing page token is not valid");
        lastPrefix = options.pageToken.substr(colon + 1, length);
        call.query.emplace_back("continuation-token", options.pageToken.substr(colon + 1 + length));
    }
    auto response = sendOk(call);
    if (!response)
        return std::move(response).error();
    auto listed = parseList(response->body);
    if (!listed)
        return std::move(listed).error();
    ListPage page;
    page.entries.reserve(listed->objects.size() + listed->prefixes.size());
    page.skipped = std::move(listed->undecodable);
    // `rest` is what a key names below `dir`: one name, or a relative path when recursive.
    // A key that is no path ("a//b", "a/../b", "..") is reported, never made into another.
    auto valid = [&](std::string_view rest) {
        return options.recursive ? isValidRelativePath(rest) : isValidName(rest);
    };
    bool sawMarker = false;
    for (const auto &object : listed->objects) {
        if (object.key == prefix) {
            sawMarker = true; // the directory's own marker
            continue;
        }
        if (!object.key.starts_with(prefix))
            continue;
        std::string_view rest = std::string_view(object.key).substr(prefix.size());
        const bool marker = rest.ends_with('/');
        if (marker)
            rest.remove_suffix(1);
        if (!valid(rest)) {
            page.skipped.push_back(object.key);
            continue;
        }
        if (marker) {
            page.entries.push_back(dirEntry(joinPath(dir, rest)));
            continue;
        }
        page.entries.push_back(fileEntry(joinPath(dir, rest), object.size, object.mtimeNs, object.etag));
        page.entries.back().storageClass = object.storageClass;
    }
    for (const auto &p : listed->prefixes) {
        if (!p.starts_with(prefix) || p == lastPrefix)
            continue;
        std::string_view rest = std::string_view(p).substr(prefix.size());
        if (rest.ends_with('/'))
            rest.remove_suffix(1);
        if (!valid(rest)) {
            page.skipped.push_back(p);
            continue;
        }
        page.entries.push_back(dirEntry(joinPath(dir, rest)));
    }
    if (listed->truncated) {
        const std::string &last = listed->prefixes.empty() ? lastPrefix : listed->prefixes.back();
        page.nextPageToken = std::to_string(last.size()) + ":" + last + listed->nextToken;
    }
    // Nothing under the prefix: an empty directory (its marker), a file, or nothing.
    if (options.pageToken.empty() && page.entries.empty() && page.skipped.empty() && !sawMarker && !prefix.empty()) {
        auto there = head(key);
        if (there && there->status >= 200 && there->status < 300)
            return Error(ErrorKind::NotDirectory);
        return Error(ErrorKind::NotFound);
    }
    return page;
}

namespace {

// A page token of two markers (key, then version or upload id): "<length of the key>:<key>
// <id>". The length, not a separator, ends the key: a key may hold any byte.
std::string twoMarkers(const std::string &key, const std::string &id)
{
    return std::to_string(key.size()) + ":" + key + id;
}

Result<std::pair<std::string, std::string>> markersOf(const std::string &token)
{
    const auto colon = token.find(':');
    std::size_t length = 0;
    const auto parsed = std::from_chars(token.data(), token.data() + (colon == std::string::npos ? 0 : colon), length);
    if (colon == std::string::npos || parsed.ec != std::errc() || parsed.ptr != token.data() + colon
        || length > token.size() - colon - 1)
        return Error(ErrorKind::InvalidInput, "the listing page token is not valid");
    return std::pair{token.substr(colon + 1, length), token.substr(colon + 1 + length)};
}

} // namespace

// The keys below dir become paths; a key that is no path ("a//b", "..") is reported as
// skipped and never made into another, and directory markers ("a/") are not objects.
Result<http::Response> S3Backend::listMarked(const MarkedListing &what, const std::string &prefix,
                                             const ListOptions &options)
{
    Call call;
    call.bucketRoot = true;
    call.query = {{what.subresource, ""},
                  {what.limit, std::to_string(std::clamp<std::size_t>(options.pageSize, 1, 1000))},
                  {"encoding-type", "url"}};
    if (!prefix.empty())
        call.query.emplace_back("prefix", prefix);
    if (!options.pageToken.empty()) {
        auto markers = markersOf(options.pageToken);
        if (!markers)
            return std::move(markers).error();
        call.query.emplace_back("key-marker", markers->first);
        if (!markers->second.empty())
            call.query.emplace_back(what.idMarker, markers->second);
    }
    auto response = send(call);
    if (!response)
        return response;
    // Servers without the listing answer 501 NotImplemented or 405 (s3rver, for versions).
    if (response->status == 405 || response->status == 501)
        return Error(ErrorKind::Unsupported, std::string("the server does not list ") + what.noun);
    if (response->status < 200 || response->status >= 300)
        return s3Error(*response, m_config.bucket);
    return response;
}

Result<VersionPage> S3Backend::listVersions(std::string_view dir, const ListOptions &options)
{
    const std::string key(keyOf(dir));
    const std::string prefix = key.empty() ? std::string() : key + "/";
    auto response = listMarked({"versions", "max-keys", "version-id-marker", "object versions"}, prefix, options);
    if (!response)
        return std::move(response).error();
    auto listed = parseVersions(response->body);
    if (!listed)
        return std::move(listed).error();
    VersionPage page;
    page.skipped = std::move(listed->undecodable);
    for (auto &v : listed->versions) {
        if (!v.key.starts_with(prefix) || v.key.ends_with('/'))
            continue;
        const std::string_view rest = std::string_view(v.key).substr(prefix.size());
        if (!isValidRelativePath(rest)) {
            page.skipped.push_back(v.key);
            continue;
        }
        page.versions.push_back(
            {joinPath(dir, rest), std::move(v.versionId), v.size, v.mtimeNs.value_or(0), v.latest, v.deleteMarker});
    }
    if (listed->truncated)
        page.nextPageToken = twoMarkers(listed->nextKeyMarker, listed->nextVersionIdMarker);
    return page;
}

Result<UploadPage> S3Backend::listUploads(std::string_view dir, const ListOptions &options)
{
    const std::string key(keyOf(dir));
    const std::string prefix = key.empty() ? std::string() : key + "/";
    auto response = listMarked({"uploads", "max-uploads", "upload-id-marker", "unfinished uploads"}, prefix, options);
    if (!response)
        return std::move(response).error();
    auto listed = parseUploads(response->body);
    if (!listed)
        return std::move(listed).error();
    UploadPage page;
    page.skipped = std::move(listed->undecodable);
    for (auto &u : listed->uploads) {
        if (!u.key.starts_with(prefix))
            continue;
        const std::string_view rest = std::string_view(u.key).substr(prefix.size());
        if (!isValidRelativePath(rest)) {
            page.skipped.push_back(u.key);
            continue;
        }
        PendingUpload pending{joinPath(dir, rest), std::move(u.uploadId), u.initiatedNs.value_or(0), 0, 0};
        // Its parts so far: what it costs (ListParts, a page of up to 1 000 parts at a time).
        std::string marker;
        bool gone = false;
        do {
            Call parts;
            parts.key = u.key;
            parts.query = {{"uploadId", pending.uploadId}};
            if (!marker.empty())
                parts.query.emplace_back("part-number-marker", marker);
            auto answer = sendOk(parts);
            if (!answer && answer.error().kind() == ErrorKind::NotFound) {
                gone = true; // completed or aborted since it was listed: it costs nothing now
                break;
            }
            if (!answer)
                return std::move(answer).error();
            auto counted = parseParts(answer->body);
            if (!counted)
                return std::move(counted).error();
            pending.bytes += counted->bytes;
            pending.parts += counted->parts;
            marker = counted->truncated ? counted->nextPartNumberMarker : std::string();
        } while (!marker.empty());
        if (!gone)
            page.uploads.push_back(std::move(pending));
    }
    if (listed->truncated)
        page.nextPageToken = twoMarkers(listed->nextKeyMarker, listed->nextUploadIdMarker);
    return page;
}

Result<std::size_t> S3Backend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    return readVersion(path, offset, buffer, ObjectVersion{});
}

Result<std::size_t> S3Backend::readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                           const ObjectVersion &version)
{
    if (buffer.empty())
        return std::size_t(0);
    const std::string_view etag = version.etag;
    Call call;
    call.key = keyOf(path);
    // A read of a whole object of known version asks for the object, not a range of it
    // (servers answer a plain GET with less work). The version is checked on the answer's
    // ETag rather than with If-Match: every answer names the version it holds, which catches
    // a changed object as surely, without asking the server to evaluate a precondition.
    const bool whole = offset == 0 && !etag.empty() && version.size > 0 && version.size <= buffer.size();
    if (!whole)
        call.range = {{offset, offset + buffer.size() - 1}};
    call.into = buffer;
    auto response = send(call);
    if (!response)
        return std::move(response).error();
    if (response->status == 416)
        return std::size_t(0); // at or past the end
    if (response->status == 404) {
        auto dir = prefixExists(std::string(call.key) + "/");
        if (!dir)
            return std::move(dir).error(); // e.g. the bucket does not exist
        if (*dir)
            return Error(ErrorKind::IsDirectory);
        return Error(ErrorKind::NotFound);
    }
    if (response->status == 200 && offset > 0) {
        // The server ignored Range and sent the whole object: ask again, dropping the head.
        call.range.reset();
        call.skip = offset;
        response = send(call);
        if (!response)
            return std::move(response).error();
    }
    if (response->status < 200 || response->status >= 300) {
        http::Response copy = *response;
        return s3Error(copy, m_config.bucket);
    }
    if (const std::string_view got = response->header("etag"); !etag.empty() && !got.empty() && got != etag)
        return Error(ErrorKind::Corrupt, "the object changed while it was being read");
    return response->received;
}

void S3Backend::discardPending(std::string_view path, const std::string &token)
{
    Call call;
    call.method = "DELETE";
    call.key = keyOf(path);
    call.query = {{"uploadId", token}};
    (void)send(call); // best effort: a finished or expired upload is already gone
}

Result<std::unique_ptr<Writer>> S3Backend::write(std::string_view path, const WriteOptions &options)
{
    if (!m_config.versionId.empty())
        return refusePinned().error();
    const std::string key(keyOf(path));
    if (key.size() > kMaxKeyBytes)
        return keyTooLong();
    // Not to replace anything: a name already taken fails here, before any byte is read,
    // unless the copy found the folder absent (fresh). The writer looks again at commit.
    if (!options.overwrite && !options.fresh) {
        auto there = head(key);
        if (!there)
            return std::move(there).error();
        if (there->status >= 200 && there->status < 300)
            return Error(ErrorKind::AlreadyExists);
    }
    return std::unique_ptr<Writer>(std::make_unique<S3Writer>(shared_from_this(), key, options));
}

Status S3Backend::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    if (!m_config.versionId.empty())
        return refusePinned();
    // Large objects go up in parts, and "only if absent" needs the writer's check first.
    if (data.size() > S3Writer::SinglePutLimit || !options.overwrite)
        return Backend::put(path, data, options);
    Call call;
    call.method = "PUT";
    call.key = keyOf(path);
    call.body = data; // straight from the caller's memory: no copy
    auto response = sendOk(call);
    if (!response)
        return std::move(response).error();
    return {};
}

Status S3Backend::remove(std::string_view path, std::string_view)
{
    if (!m_config.versionId.empty()) { // that version only, for good (versionId added by send)
        Call call;
        call.method = "DELETE";
        const std::string key(keyOf(path));
        call.key = key;
        auto response = sendOk(call);
        return response ? Status() : Status(std::move(response).error());
    }
    const std::string key(keyOf(path));
    const std::string markerKey = key + "/";
    // A "directory": its marker goes, and only when nothing else is under it.
    if (auto under = prefixExists(key + "/"); under && *under) {
        Call list;
        list.bucketRoot = true;
        list.query = {{"list-type", "2"}, {"prefix", key + "/"}, {"max-keys", "2"}, {"encoding-type", "url"}};
        auto response = sendOk(list);
        if (!response)
            return std::move(response).error();
        auto listed = parseList(response->body);
        if (!listed)
            return std::move(listed).error();
        for (const auto &o : listed->objects)
            if (o.key != key + "/")
                return Error(ErrorKind::DirectoryNotEmpty);
        if (!listed->prefixes.empty() || !listed->undecodable.empty())
            return Error(ErrorKind::DirectoryNotEmpty);
        Call marker;
        marker.method = "DELETE";
        marker.key = markerKey;
        if (auto st = sendOk(marker); !st)
            return std::move(st).error();
    }
    Call call;
    call.method = "DELETE";
    call.key = key;
    auto response = send(call);
    if (!response)
        return std::move(response).error();
    if (response->status == 404 || (response->status >= 200 && response->status < 300))
        return {}; // removal is idempotent
    return s3Error(*response, m_config.bucket);
}

Status S3Backend::removeMany(std::span<const std::string> paths, std::string_view)
{
    if (!m_config.versionId.empty()) { // one version of each: one request each
        for (const auto &p : paths)
            if (auto st = remove(p, {}); !st)
                return st;
        return {};
    }
    // A key XML 1.0 cannot carry (a control character) is removed by a DELETE of its own:
    // in DeleteObjects' body it would make the server refuse the whole batch.
    std::vector<std::string> batchable;
    for (const auto &p : paths) {
        if (fitsXml(keyOf(p)))
            batchable.push_back(p);
        else if (auto st = remove(p, {}); !st)
            return st;
    }
    paths = batchable;
    // DeleteObjects takes at most 1000 keys a request.
    for (std::size_t at = 0; at < paths.size(); at += 1000) {
        std::vector<std::string> keys;
        for (std::size_t i = at; i < std::min(paths.size(), at + 1000); ++i)
            keys.emplace_back(keyOf(paths[i]));
        const std::string xml = deleteObjectsXml(keys);
        const auto body = std::as_bytes(std::span(xml.data(), xml.size()));
        Call call;
        call.method = "POST";
        call.bucketRoot = true;
        call.query = {{"delete", ""}};
        // Content-MD5 is required by AWS for DeleteObjects.
        const std::string md5 = contentMd5(xml);
        call.headers = {{"content-md5", md5}, {"content-type", "application/xml"}};
        call.body = body;
        auto response = send(call);
        if (!response)
            return std::move(response).error();
        if (response->status == 501 || response->status == 405) {
            // A server without DeleteObjects: one by one.
            for (std::size_t i = at; i < std::min(paths.size(), at + 1000); ++i)
                if (auto st = remove(paths[i], {}); !st)
                    return st;
            continue;
        }
        if (response->status < 200 || response->status >= 300)
            return s3Error(*response, m_config.bucket);
        auto failed = parseDeleteErrors(response->body);
        if (!failed.empty())
            return Error(ErrorKind::PermissionDenied,
                         std::to_string(failed.size()) + " objects were not deleted, e.g. '" + failed.front().first
                             + "' (" + failed.front().second + ")");
    }
    return {};
}

Status S3Backend::createDir(std::string_view path)
{
    if (!m_config.versionId.empty())
        return refusePinned();
    const std::string key(keyOf(path));
    const std::string markerKey = key + "/";
    if (auto exists = prefixExists(key + "/"); !exists)
        return std::move(exists).error();
    else if (*exists)
        return Error(ErrorKind::AlreadyExists);
    Call call;
    call.method = "PUT";
    call.key = markerKey;
    auto response = sendOk(call);
    if (!response)
        return std::move(response).error();
    return {};
}

Status S3Backend::markDir(std::string_view path)
{
    if (!m_config.versionId.empty())
        return refusePinned();
    const std::string markerKey = std::string(keyOf(path)) + "/";
    // A HEAD first: an object of that name that holds data is not replaced by a marker.
    auto there = head(markerKey);
    if (!there)
        return std::move(there).error();
    if (there->status >= 200 && there->status < 300)
        return {};
    if (there->status != 404)
        return s3Error(*there, m_config.bucket);
    Call call;
    call.method = "PUT";
    call.key = markerKey;
    auto response = sendOk(call);
    return response ? Status() : Status(std::move(response).error());
}

Status S3Backend::copy(std::string_view from, std::string_view to)
{
    if (!m_config.versionId.empty())
        return refusePinned();
    Call call;
    call.method = "PUT";
    call.key = keyOf(to);
    call.headers = {{"x-amz-copy-source", uriEncode("/" + m_config.bucket + "/" + std::string(keyOf(from)), false)}};
    auto response = send(call);
    if (!response)
        return std::move(response).error();
    if (response->status == 404) {
        if (auto dir = prefixExists(std::string(keyOf(from)) + "/"); dir && *dir)
            return Error(ErrorKind::IsDirectory, "server-side copy takes objects only");
        return Error(ErrorKind::NotFound);
    }
    if (response->status < 200 || response->status >= 300)
        return s3Error(*response, m_config.bucket);
    // CopyObject can fail after answering 200: the error is in the body.
    if (auto code = errorCodeIn(response->body)) {
        http::Response failed = *response;
        failed.status = 500;
        return s3Error(failed, m_config.bucket);
    }
    return {};
}

Status S3Backend::rename(std::string_view from, std::string_view to, bool replace)
{
    if (!m_config.versionId.empty())
        return refusePinned();
    // S3 has no rename: copy, then delete (objects only).
    if (to.starts_with(from) && to.size() > from.size() && to[from.size()] == '/')
        return Error(ErrorKind::InvalidInput, "a directory cannot be moved into itself");
    if (auto dir = prefixExists(std::string(keyOf(from)) + "/"); dir && *dir)
        return Error(ErrorKind::Unsupported, "renaming a directory on S3 means copying every object; use mv");
    if (!replace) {
        auto there = stat(to);
        if (there)
            return Error(there->isDir() ? ErrorKind::IsDirectory : ErrorKind::AlreadyExists);
        if (there.error().kind() != ErrorKind::NotFound)
            return std::move(there).error();
    }
    if (auto st = copy(from, to); !st)
        return st;
    return remove(from, {});
}

Result<ObjectDetails> S3Backend::details(std::string_view path)
{
    const std::string key(keyOf(path));
    Call call;
    call.method = "HEAD";
    call.key = key;
    call.allHeaders = true;
    auto response = sendOk(call);
    if (!response)
        return std::move(response).error();
    ObjectDetails out;
    for (const auto &[name, value] : response->allHeaders) {
        if (name == "content-type")
            out.contentType = value;
        else if (name == "cache-control")
            out.cacheControl = value;
        else if (name == "content-disposition")
            out.contentDisposition = value;
        else if (name == "content-encoding")
            out.contentEncoding = value;
        else if (name == "etag")
            out.etag = value;
        else if (name == "x-amz-storage-class")
            out.storageClass = value;
        else if (name == "x-amz-version-id" && value != "null")
            out.versionId = value;
        else if (name == "x-amz-object-lock-mode")
            out.retentionMode = value;
        else if (name == "x-amz-object-lock-retain-until-date") {
            out.retainUntilNs = parseTime(value);
        } else if (name == "x-amz-object-lock-legal-hold")
            out.legalHold = value == "ON";
        else if (name.starts_with("x-amz-meta-"))
            out.metadata[name.substr(11)] = value;
    }
    if (out.storageClass.empty())
        out.storageClass = "STANDARD"; // HEAD names the class only when it is not
    Call tagging;
    tagging.key = key;
    tagging.query = {{"tagging", ""}};
    auto tags = send(tagging);
    if (!tags)
        return std::move(tags).error();
    if (tags->status >= 200 && tags->status < 300) {
        auto parsed = parseTagging(tags->body);
        if (!parsed)
            return std::move(parsed).error();
        out.tags = std::move(*parsed);
    } else if (tags->status != 501 && tags->status != 405 && tags->status != 400) {
        return s3Error(*tags, m_config.bucket); // 501/405: a server that keeps no tags (s3rver)
    }
    return out;
}

Status S3Backend::changeDetails(std::string_view path, const DetailsChange &change)
{
    if (!m_config.versionId.empty())
        return refusePinned();
    const std::string key(keyOf(path));
    if (change.contentType || change.cacheControl || change.metadata) {
        // The object copied onto itself with its metadata replaced: what is not changed is
        // carried over from what it has now.
        auto now = details(path);
        if (!now)
            return std::move(now).error();
        Call call;
        call.method = "PUT";
        call.key = key;
        call.headers = {{"x-amz-copy-source", uriEncode("/" + m_config.bucket + "/" + key, false)},
                        {"x-amz-metadata-directive", "REPLACE"}};
        const std::string type = change.contentType.value_or(now->contentType);
        const std::string cache = change.cacheControl.value_or(now->cacheControl);
        if (!type.empty())
            call.headers.push_back({"content-type", type});
        if (!cache.empty())
            call.headers.push_back({"cache-control", cache});
        if (!now->contentDisposition.empty())
            call.headers.push_back({"content-disposition", now->contentDisposition});
        if (!now->contentEncoding.empty())
            call.headers.push_back({"content-encoding", now->contentEncoding});
        for (const auto &[name, value] : change.metadata.value_or(now->metadata)) {
            if (name.empty() || name.find_first_of(" :\r\n") != std::string::npos
                || value.find_first_of("\r\n") != std::string::npos)
                return Error(ErrorKind::InvalidInput,
                             "a metadata name or value that no header can carry: '" + name + "'");
            call.headers.push_back({"x-amz-meta-" + name, value});
        }
        auto response = sendOk(call);
        if (!response)
            return std::move(response).error();
        if (errorCodeIn(response->body)) {
            http::Response failed = *response;
            failed.status = 500;
            return s3Error(failed, m_config.bucket);
        }
    }
    if (change.tags) {
        Call call;
        call.key = key;
        const std::string xml = taggingXml(*change.tags);
        const std::string md5 = contentMd5(xml);
        call.method = "PUT"; // an empty tag set clears them (DeleteObjectTagging is not everywhere)
        call.query = {{"tagging", ""}};
        call.headers = {{"content-md5", md5}, {"content-type", "application/xml"}};
        call.body = std::as_bytes(std::span(xml.data(), xml.size()));
        auto response = sendOk(call);
        if (!response)
            return std::move(response).error();
    }
    return {};
}

Result<std::string> S3Backend::shareLink(std::string_view path, std::chrono::seconds lifetime) const
{
    if (m_credentials.anonymous())
        return Error(ErrorKind::Unsupported, "an anonymous connection cannot sign a link");
    if (lifetime.count() < 1 || lifetime > std::chrono::hours(24 * 7))
        return Error(ErrorKind::InvalidInput, "a share link lives from one second to seven days (S3's limit)");
    SignedRequest request;
    request.method = "GET";
    request.host = m_host;
    request.path = "/";
    if (m_config.pathStyle)
        request.path += m_config.bucket + "/";
    request.path += std::string(keyOf(path));
    if (!m_config.versionId.empty())
        request.query.push_back({"versionId", m_config.versionId});
    const std::string query =
        presignedQuery(request, m_credentials, m_config.region, "s3", std::chrono::system_clock::now(), lifetime);
    return m_config.scheme + "://" + m_host + canonicalUri(request.path) + "?" + query;
}

} // namespace strata::s3

#include "backends/webdav/webdav_backend.h"

#include "core/storage/confinement.h"

#include "backends/http/http_status.h"
#include "backends/webdav/webdav_error.h"
#include "backends/webdav/webdav_href.h"
#include "backends/webdav/webdav_writer.h"
#include "core/storage/path.h"
#include "core/storage/printable.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace strata::webdav {

namespace {

// Only the properties an Entry needs: servers answer allprop with much more (locks...).
constexpr std::string_view kPropfindBody = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                                           "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:resourcetype/><D:getcontentlength/>"
                                           "<D:getlastmodified/><D:getetag/></D:prop></D:propfind>";

// Writes this large go up through a writer (a streamed PUT) rather than one PUT from memory.
constexpr std::size_t kSinglePutLimit = 64u << 20;
// A write that must not replace anything is checked before its bytes are sent from this size.
constexpr std::uint64_t kEarlyCheckFrom = 1u << 20;

bool success(const http::Response &response)
{
    return response.status >= 200 && response.status < 300;
}

bool redirect(const http::Response &response)
{
    return response.status >= 300 && response.status < 400;
}

Entry entryOf(std::string path, const DavResource &resource)
{
    Entry e;
    e.name = std::string(baseName(path));
    e.path = std::move(path);
    e.kind = resource.collection ? EntryKind::Directory : EntryKind::File;
    e.size = resource.collection ? 0 : resource.length.value_or(0);
    e.mtimeNs = resource.mtimeNs;
    e.etag = resource.etag;
    return e;
}

bool isInside(std::string_view path, std::string_view dir)
{
    return path.size() > dir.size() && path.starts_with(dir) && (dir == "/" || path[dir.size()] == '/');
}

} // namespace

WebDavBackend::WebDavBackend(Config config, std::shared_ptr<http::Client> client)
    : m_config(std::move(config)), m_client(std::move(client))
{
}

Capabilities WebDavBackend::capabilities() const
{
    return {Capability::Stat,         Capability::List,
            Capability::Read,         Capability::Write,
            Capability::Remove,       Capability::CreateDir,
            Capability::Rename,       Capability::Copy,
            Capability::RangedRead,   Capability::RealDirectories,
            Capability::VersionedRead};
}

Uri WebDavBackend::uriFor(std::string_view path) const
{
    return m_config.base.withPath(std::string(path.empty() ? "/" : path));
}

Result<http::Response> WebDavBackend::send(std::string_view method, std::string_view path, http::Request request,
                                           bool collection)
{
    // The request holds views: the URL lives here until perform() returns.
    const std::string url = m_config.origin() + encodePath(path, collection);
    request.method = method;
    request.url = url;
    return m_client->perform(request);
}

Error WebDavBackend::fail(const http::Response &response, std::string_view method, std::string_view xmlProblem) const
{
    return webdavError(response, ErrorContext{method, m_config.hostPort, m_config.hasCredentials()}, xmlProblem);
}

Status WebDavBackend::multistatus(const http::Response &response, std::string_view method, std::string_view path) const
{
    // A 207 to a request on many resources (a collection's MOVE, COPY or DELETE) says what
    // became of each member (RFC 4918 9.6.1, 9.8.8, 9.9.4): the request failed if one did,
    // whatever the others say. A 424 Failed Dependency follows from another failure, which is
    // the one reported.
    std::optional<DavResource> failed;
    std::size_t failures = 0;
    MultistatusParser parser([&](DavResource &&member) {
        if (member.status / 100 == 2)
            return;
        ++failures;
        if (!failed || (failed->status == 424 && member.status != 424))
            failed = std::move(member);
    });
    parser.feed(response.body);
    if (const std::string problem = parser.finish(); !problem.empty())
        return fail(response, method, problem);
    if (!failed)
        return {};
    const auto at = hrefPath(failed->href, m_config.origin(), path);
    return memberError(failed->status, printable(at ? *at : failed->href), failures - 1,
                       ErrorContext{method, m_config.hostPort, m_config.hasCredentials()});
}

Status WebDavBackend::propfind(std::string_view path, int depth, const OnResource &onResource,
                               std::vector<std::string> *skipped, const std::function<bool()> &fed)
{
    std::string head; // the answer's first bytes: what came instead of a multistatus, if it did
    MultistatusParser parser([&](DavResource &&resource) {
        if (auto at = hrefPath(resource.href, m_config.origin(), path))
            onResource(std::move(*at), std::move(resource));
        else if (skipped && skipped->size() < 1000)
            skipped->push_back(std::move(resource.href));
    });
    http::Request request;
    const http::HeaderRef headers[] = {{"Depth", depth == 0 ? "0" : "1"},
                                       {"Content-Type", "application/xml; charset=utf-8"}};
    request.headers = headers;
    request.body = std::as_bytes(std::span(kPropfindBody.data(), kPropfindBody.size()));
    request.sink = [&](std::string_view data) {
        head.append(data.substr(0, std::min(data.size(), 512 - std::min<std::size_t>(512, head.size()))));
        return parser.feed(data) && (!fed || fed());
    };
    // No trailing '/' at first (a file's URL has none); a server that wants one for a
    // collection redirects there.
    auto response = send("PROPFIND", path, request);
    if (response && redirect(*response) && path != "/")
        response = send("PROPFIND", path, request, true);
    if (!response)
        return std::move(response).error();
    if (response->status != 207) {
        http::Response answer = std::move(*response);
        if (success(answer))
            answer.body = std::move(head);
        return fail(answer, "PROPFIND");
    }
    if (const std::string problem = parser.finish(); !problem.empty())
        return fail(*response, "PROPFIND", problem);
    return {};
}

Result<Entry> WebDavBackend::stat(std::string_view path)
{
    std::optional<Entry> found;
    bool missing = false;
    auto st = propfind(path, 0, [&](std::string at, DavResource &&resource) {
        if (at != path)
            return; // about something else: never taken for the object asked for
        if (resource.found)
            found = entryOf(std::move(at), resource);
        else
            missing = true;
    });
    if (!st)
        return std::move(st).error();
    if (found)
        return std::move(*found);
    if (missing)
        return Error(ErrorKind::NotFound);
    return Error(ErrorKind::Corrupt, "the server's PROPFIND answer does not describe the object asked for");
}

Status WebDavBackend::confirmFolder(std::string_view dir, std::string_view within)
{
    if (within.empty() || !isStrictlyBelow(dir, within))
        return {};
    bool found = false, collection = false;
    auto st = propfind(dir, 0, [&](const std::string &at, DavResource &&resource) {
        if (at == dir) {
            found = resource.found;
            collection = resource.collection;
        }
    });
    if (!st)
        return st;
    if (!found)
        return Error(ErrorKind::NotFound, "a folder on the way is gone");
    if (!collection)
        return plantedLinkError(dir);
    return {};
}

Status WebDavBackend::listing(const std::string &dir, const std::string &within, const ListingCache::Sink &sink,
                              std::vector<std::string> &skipped)
{
    // A removal's listing (`within`) is handed over whole, after the answer is known to be
    // a collection's; a browser's as it arrives, once the collection's own resource says so.
    const bool whole = !within.empty();
    std::vector<Entry> batch;
    bool self = false, selfIsCollection = false;
    const auto hand = [&] {
        if (whole || batch.empty() || !selfIsCollection)
            return true;
        const bool wanted = sink(batch);
        batch.clear();
        return wanted;
    };
    auto st = propfind(
        dir, 1,
        [&](std::string at, DavResource &&resource) {
            if (at == dir) {
                self = true;
                selfIsCollection = resource.collection;
            } else if (resource.found && parentPath(at) == dir) {
                batch.push_back(entryOf(std::move(at), resource));
            } // anything else is outside the collection asked for: ignored
        },
        &skipped, hand);
    if (!st)
        return std::move(st).error();
    // Asked without a trailing '/', lighttpd answers for a link itself: not a collection.
    if (self && !selfIsCollection)
        return !within.empty() && isStrictlyBelow(dir, within) ? plantedLinkError(dir) : Error(ErrorKind::NotDirectory);
    if (!batch.empty())
        sink(batch);
    return {};
}

Result<ListPage> WebDavBackend::list(std::string_view dir, const ListOptions &options)
{
    return m_listings.pageOf(this, &WebDavBackend::listing, dir, options);
}

Result<std::size_t> WebDavBackend::read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer)
{
    return readVersion(path, offset, buffer, ObjectVersion{});
}

Result<std::size_t> WebDavBackend::readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                               const ObjectVersion &version)
{
    if (buffer.empty())
        return std::size_t(0);
    http::Request request;
    // A whole object of known version is asked for without a range (less work for the
    // server); the version is checked on the ETag every answer carries.
    const bool whole = offset == 0 && !version.etag.empty() && version.size > 0 && version.size <= buffer.size();
    const std::string range = "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + buffer.size() - 1);
    const http::HeaderRef rangeHeader{"Range", range};
    if (!whole)
        request.headers = {&rangeHeader, 1};
    request.into = buffer;
    auto response = send("GET", path, request);
    if (!response)
        return std::move(response).error();
    if (response->status == 416)
        return std::size_t(0); // at or past the end
    if (response->status == 200 && offset > 0) {
        // The server ignored Range and sent the whole object: ask again, dropping the head.
        request.headers = {};
        request.skip = offset;
        response = send("GET", path, request);
        if (!response)
            return std::move(response).error();
    }
    if (!success(*response)) {
        // A collection answers GET with a redirect to its '/' URL or a refusal.
        if (redirect(*response) || response->status == 403)
            if (auto entry = stat(path); entry && entry->isDir())
                return Error(ErrorKind::IsDirectory);
        return fail(*response, "GET");
    }
    if (!version.etag.empty() && !response->header("etag").empty() && response->header("etag") != version.etag)
        return Error(ErrorKind::Corrupt, "the object changed while it was being read");
    return response->received;
}

Result<std::unique_ptr<Writer>> WebDavBackend::write(std::string_view path, const WriteOptions &options)
{
    // The MOVE that publishes the upload refuses to replace anything (Overwrite: F); a large
    // upload is also checked first, so its bytes are not sent only to be refused.
    if (!options.overwrite && !options.fresh && (!options.sizeHint || *options.sizeHint >= kEarlyCheckFrom)) {
        auto there = stat(path);
        if (there)
            return Error(there->isDir() ? ErrorKind::IsDirectory : ErrorKind::AlreadyExists);
        if (there.error().kind() != ErrorKind::NotFound)
            return std::move(there).error();
    }
    return std::unique_ptr<Writer>(std::make_unique<WebDavWriter>(shared_from_this(), std::string(path), options));
}

Status WebDavBackend::put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options)
{
    if (data.size() > kSinglePutLimit)
        return Backend::put(path, data, options);
    const std::string temp = temporaryPath(path);
    if (options.onPending)
        options.onPending(std::string(baseName(temp)));
    http::Request request;
    request.body = data; // straight from the caller's memory
    if (auto st = upload(temp, std::move(request)); !st) {
        discard(temp); // a server may keep what it received of a broken upload
        return st;
    }
    return publish(temp, path, options.overwrite);
}

Status WebDavBackend::upload(std::string_view path, http::Request request)
{
    auto response = send("PUT", path, std::move(request));
    if (!response)
        return std::move(response).error();
    if (response->status == 207)
        return multistatus(*response, "PUT", path);
    if (!success(*response))
        return fail(*response, "PUT");
    return {};
}

Status WebDavBackend::publish(std::string_view temp, std::string_view path, bool overwrite)
{
    auto st = relocate("MOVE", temp, path, overwrite);
    if (!st)
        discard(temp);
    return st;
}

void WebDavBackend::discardPending(std::string_view path, const std::string &token)
{
    // The token is the temporary name an upload announced (onPending) before its first byte
    // left: a process killed between PUT and MOVE left it behind. Only such names are
    // removed, whatever the journal says.
    if (!isTemporaryName(token))
        return;
    discard(joinPath(parentPath(path), token));
}

void WebDavBackend::discard(std::string_view path)
{
    // Best effort, but an upload left behind is litter on the user's server: a failed
    // attempt (a 5xx, a cut connection) is tried again under the storage stack's retry
    // policy; 404 means it is gone.
    (void)m_retrier.run([&]() -> Status {
        auto response = send("DELETE", path);
        if (!response)
            return std::move(response).error();
        if (response->status == 207)
            return multistatus(*response, "DELETE", path);
        if (response->status < 400 || response->status == 404)
            return {};
        return http::statusError(*response, {"DELETE", "WebDAV", ""}); // temporary ones are tried again
    });
}

Result<long> WebDavBackend::authSchemeFor(std::string_view dir)
{
    {
        std::lock_guard lock(m_schemesMutex);
        if (auto it = m_schemes.find(dir); it != m_schemes.end())
            return it->second;
    }
    http::Request request;
    static constexpr http::HeaderRef depth0[] = {{"Depth", "0"}};
    request.headers = depth0;
    auto response = send("PROPFIND", dir, std::move(request));
    if (!response)
        return std::move(response).error();
    if (response->status == 401)
        return fail(*response, "PROPFIND");
    // Digest where offered: the streamed PUT then goes first without a body (curl's probe).
    const long offered = response->authOffered;
    const long scheme = offered & http::kAuthDigest ? http::kAuthDigest : offered;
    std::lock_guard lock(m_schemesMutex);
    if (m_schemes.size() >= 256)
        m_schemes.clear(); // a bound, not a policy: a directory asked again costs one request
    m_schemes.emplace(std::string(dir), scheme);
    return scheme;
}

Status WebDavBackend::relocate(std::string_view method, std::string_view from, std::string_view to, bool overwrite)
{
    bool collection = false; // known once the server redirected to the source's '/' URL
    const auto attempt = [&](std::string_view source, std::string_view destination, bool replace) {
        http::Request request;
        const std::string target = m_config.origin() + encodePath(destination, collection);
        const http::HeaderRef headers[] = {{"Destination", target}, {"Overwrite", replace ? "T" : "F"}};
        request.headers = headers;
        return send(method, source, std::move(request), collection);
    };
    auto answer = attempt(from, to, false);
    if (answer && redirect(*answer)) {
        collection = true;
        answer = attempt(from, to, false);
    }
    if (!answer)
        return std::move(answer).error();
    if (answer->status == 204) {
        // With Overwrite: F the answer is 201 or 412. lighttpd answers 204 after putting the
        // source INTO an existing collection of the destination's name: undo that.
        auto there = stat(to);
        if (!there || !there->isDir())
            return {};
        const std::string inside = joinPath(to, baseName(from));
        if (method == "MOVE")
            (void)attempt(inside, from, false);
        else
            discard(inside);
        return Error(ErrorKind::IsDirectory, "a directory has that name");
    }
    if (answer->status == 412) {
        auto there = stat(to);
        if (there && there->isDir())
            return Error(ErrorKind::IsDirectory, "a directory has that name");
        if (!overwrite)
            return fail(*answer, method);
        answer = attempt(from, to, true);
        if (!answer)
            return std::move(answer).error();
    }
    if (answer->status == 207)
        return multistatus(*answer, method, from);
    if (!success(*answer))
        return fail(*answer, method);
    return {};
}

Status WebDavBackend::remove(std::string_view path, std::string_view within)
{
    if (path == "/")
        return Error(ErrorKind::InvalidInput, "the server's root cannot be removed");
    if (auto st = confirmFolder(parentPath(path), within); !st)
        return st.error().kind() == ErrorKind::NotFound ? Status{} : st;
    // DELETE of a collection removes everything in it: only an empty one goes here.
    bool exists = false, collection = false, children = false;
    auto st = propfind(path, 1, [&](const std::string &at, DavResource &&resource) {
        if (at == path) {
            exists = resource.found;
            collection = resource.collection;
        } else if (parentPath(at) == path) {
            children = true;
        }
    });
    if (!st)
        return st.error().kind() == ErrorKind::NotFound ? Status{} : st;
    if (!exists)
        return {};
    if (collection && children)
        return Error(ErrorKind::DirectoryNotEmpty);
    auto response = send("DELETE", path, {}, collection);
    if (!response)
        return std::move(response).error();
    if (response->status == 207)
        return multistatus(*response, "DELETE", path);
    if (success(*response) || response->status == 404)
        return {}; // removal is idempotent
    return fail(*response, "DELETE");
}

Status WebDavBackend::removeMany(std::span<const std::string> paths, std::string_view within)
{
    // The caller names files (from a listing): each goes in one DELETE, without a PROPFIND
    // of its own, once the folder it is in is checked (the server resolves it again).
    for (const auto &path : paths) {
        if (auto st = confirmFolder(parentPath(path), within); !st)
            return st.error().kind() == ErrorKind::NotFound ? Status{} : st;
        auto response = send("DELETE", path);
        if (!response)
            return std::move(response).error();
        if (response->status == 207) {
            if (auto st = multistatus(*response, "DELETE", path); !st)
                return st;
        } else if (!success(*response) && response->status != 404) {
            return fail(*response, "DELETE");
        }
    }
    return {};
}

Status WebDavBackend::createDir(std::string_view path)
{
    auto response = send("MKCOL", path, {}, true);
    if (!response)
        return std::move(response).error();
    if (response->status == 207)
        return multistatus(*response, "MKCOL", path);
    if (!success(*response))
        return fail(*response, "MKCOL"); // 405: something has that name; 409: no parent
    return {};
}

Status WebDavBackend::rename(std::string_view from, std::string_view to, bool replace)
{
    if (isInside(to, from))
        return Error(ErrorKind::InvalidInput, "a directory cannot be moved into itself");
    return relocate("MOVE", from, to, replace);
}

Status WebDavBackend::copy(std::string_view from, std::string_view to)
{
    if (isInside(to, from))
        return Error(ErrorKind::InvalidInput, "a directory cannot be copied into itself");
    return relocate("COPY", from, to, true);
}

} // namespace strata::webdav

#pragma once

#include "core/io/extent.h"
#include "core/storage/capabilities.h"
#include "core/storage/entry.h"
#include "core/storage/io_queue.h"
#include "core/storage/result.h"
#include "core/storage/uri.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

struct WriteOptions {
    std::optional<std::uint64_t> sizeHint; // total size when known (preallocation, part sizing)
    bool overwrite = true;                 // false: commit fails with AlreadyExists if taken
    bool sync = false;                     // data is durable before commit returns
    std::optional<std::int64_t> mtimeNs;   // modification time to give the object, where settable
    // POSIX permission bits for a new object, where the storage keeps them: as cp gives them,
    // masked by the umask and without set-user/group-ID bits, or exactly with exactMode
    // (cp -p). A replaced file keeps its own bits unless exactMode. Unset: 0666 & ~umask.
    std::optional<std::uint32_t> mode;
    bool exactMode = false;
    // Non-empty: a normal path above the destination (what the user named). Below it, a
    // symlink where a folder should be stops the write instead of being written through
    // (local storage; a planted link cannot send a file elsewhere).
    std::string confineBelow;
    // Non-empty: a stable name for this write's partial state. Opening a writer again with
    // the same key (even in a new process) finds what an earlier, suspended or killed
    // writer left, where the backend can keep it (see Writer::keepsPartialState).
    std::string resumeKey;
    // Nothing is expected under the name (its directory did not exist when the copy was
    // planned): a backend may skip a check made only to fail early. commit() still never
    // replaces anything when `overwrite` is false.
    bool fresh = false;
    // The directory did not exist when the copy was planned, and no earlier try of this
    // copy wrote in it: no partial state to resume can be there (a backend may skip its
    // look for one).
    bool newFolder = false;
    // Called when the writer leaves state on the server that outlives this process unless
    // discarded (an S3 multipart upload's id): a journal keeps the token, so that a later
    // run, or a cancel, can discard it with Backend::discardPending if it was not finished.
    std::function<void(const std::string &token)> onPending;
};

// Receives an object's bytes; nothing is visible under the destination name before commit().
// Destroying a writer that was not committed aborts it.
class Writer {
public:
    virtual ~Writer() = default;
    // Appends at the current end. Not for concurrent use.
    virtual Status write(std::span<const std::byte> data) = 0;
    // Writes at an offset, in any order, from any thread (Capability::PositionalWrite).
    virtual Status writeAt(std::uint64_t offset, std::span<const std::byte> data);
    // Fixes the final length; bytes never written read as zeros (Capability::PositionalWrite).
    virtual Status setLength(std::uint64_t length);
    // Makes [offset, offset + length) read as zeros in place, freeing its space where the
    // storage can (Capability::PositionalWrite; where writes land in place, as on an NBD
    // export: a benchmark hands back the region it wrote).
    virtual Status zero(std::uint64_t offset, std::uint64_t length);
    // Positional writes kept in flight as the queue asks (io_queue.h); the bytes written.
    // By default one writeAt after another.
    virtual Result<std::size_t> writeQueue(IoQueue &queue);
    // Publishes the object under its name, atomically replacing what was there.
    virtual Status commit() = 0;
    // Discards what was written; idempotent; nothing appears at the destination.
    virtual void abort() = 0;
    // Stops writing but keeps the partial state for a later writer with the same resume
    // key; backends that cannot keep it abort.
    virtual void suspend() { abort(); }
    // Whether bytes written before a suspend (or a crash) are found again on resume.
    virtual bool keepsPartialState() const { return false; }
    // The bytes a resumed writer found of its partial state, where it can tell without an
    // OS handle (a remote temporary file's size); nullopt elsewhere.
    virtual std::optional<std::uint64_t> partialLength() const { return std::nullopt; }
    // Why a partial file found under the resume key's name was left alone (not this user's,
    // a link, not the permissions it was given…), so that the write started afresh under
    // another name; empty when there was none or it was taken.
    virtual std::string refusedPartial() const { return {}; }
    // An OS handle to the data being written, for in-kernel copies; -1 when there is none.
    virtual int nativeHandle() const { return -1; }
    // After commit: the size the storage itself confirmed it stored, where it tells.
    virtual std::optional<std::uint64_t> committedSize() const { return std::nullopt; }
};

// One object opened once for many reads, from any thread: every read comes from the object
// that was opened, whatever is renamed over its name meanwhile (Backend::openReader).
class Reader {
public:
    virtual ~Reader() = default;
    // As Backend::read: up to buffer.size() bytes at offset; fewer only at the end.
    virtual Result<std::size_t> read(std::uint64_t offset, std::span<std::byte> buffer) = 0;
    // Copies a range into a writer of the same storage without moving the bytes through
    // user space (copy_file_range); Unsupported where impossible.
    virtual Status copyRangeTo(std::uint64_t offset, std::uint64_t length, Writer &to) = 0;
    // What the opened object is now (its size and time), asked through what was opened, on
    // the reader's own connection: a copy's check that its source did not change costs no
    // second connection. Unsupported where a reader has no handle to ask (ask by path).
    virtual Result<Entry> stat() { return Error(ErrorKind::Unsupported, "stating an opened object"); }
};

// The version of an object a read must come from (Backend::readVersion): as listed or stated.
struct ObjectVersion {
    std::string_view etag;
    std::uint64_t size = 0; // that version's size in bytes
};

struct ListOptions {
    std::string pageToken; // from the previous page; empty for the first
    std::size_t pageSize = 1000;
    bool recursive = false; // whole subtree in one flat listing (Capability::ListRecursive)
    // A normal path at or above the folder listed (a removal's named folder), or empty: the
    // folder must be reached from it through no symbolic link. Storage that resolves names
    // itself checks this where its protocol lets it (SFTP realpath, FTP PWD) and refuses
    // with plantedLinkError(); local storage follows no link below it when removing.
    std::string within;
};

struct ListPage {
    std::vector<Entry> entries;
    std::string nextPageToken; // empty when this is the last page
    // Names the storage sent that are no path ("a//b", "..", "a/./b"), as sent: left out of
    // entries, never turned into another path; callers warn about them (skippedWarning).
    std::vector<std::string> skipped;
};

// What an object store keeps besides what its listings show (Backend::listVersions): every
// version of every object, the latest and the older ones, and deletes kept as markers.
struct StoredVersion {
    std::string path; // the object's normalised path
    std::string versionId;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool latest = false;       // the version a plain read returns
    bool deleteMarker = false; // a delete kept as a version: no bytes
};

struct VersionPage {
    std::vector<StoredVersion> versions;
    std::string nextPageToken;        // empty when this is the last page
    std::vector<std::string> skipped; // keys that are no path, as sent (see ListPage)
};

// What an object store keeps about one object besides its bytes (Backend::details): S3's
// HEAD headers and its tags. Empty strings where the server says nothing.
struct ObjectDetails {
    std::string contentType, cacheControl, contentDisposition, contentEncoding;
    std::map<std::string, std::string> metadata; // user metadata (x-amz-meta-NAME), names in lower case
    std::string storageClass, etag, versionId;
    std::optional<std::map<std::string, std::string>> tags; // nullopt: the server keeps no tags
    std::string retentionMode;                              // GOVERNANCE or COMPLIANCE, where set
    std::optional<std::int64_t> retainUntilNs;
    std::optional<bool> legalHold; // where the server says
};

// A change to an object's details (Backend::changeDetails); what is not set stays.
struct DetailsChange {
    std::optional<std::string> contentType, cacheControl;
    std::optional<std::map<std::string, std::string>> metadata; // all the user metadata, replaced
    std::optional<std::map<std::string, std::string>> tags;     // all the tags, replaced
};

// A multipart upload begun and never completed or aborted (Backend::listUploads): its parts
// are stored, and paid for, without showing in any listing.
struct PendingUpload {
    std::string path;
    std::string uploadId;
    std::int64_t initiatedNs = 0;
    std::uint64_t bytes = 0; // of the parts stored so far
    std::uint32_t parts = 0;
};

struct UploadPage {
    std::vector<PendingUpload> uploads;
    std::string nextPageToken;
    std::vector<std::string> skipped;
};

// One storage service: small, thread-safe, no retry loops, no logging (layers add those).
// Every path is a normalised absolute backend path (see core/storage/path.h).
class Backend {
public:
    virtual ~Backend() = default;

    virtual Capabilities capabilities() const = 0;
    // The URI naming `path` on this backend; print it only through Uri::redacted().
    virtual Uri uriFor(std::string_view path) const = 0;

    virtual Result<Entry> stat(std::string_view path) = 0;
    // One page of a directory's children, in a stable order; no entry lost or repeated.
    virtual Result<ListPage> list(std::string_view dir, const ListOptions &options) = 0;
    // Reads up to buffer.size() bytes at offset into the caller's buffer; fewer only at the
    // end of the object; 0 at or past the end.
    virtual Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) = 0;
    // Reads like read(), but only from the given version: a changed object is Corrupt
    // instead of bytes of another version (Capability::VersionedRead). The default ignores
    // the version.
    // Reads kept in flight as the queue asks (io_queue.h); the bytes read. By default one
    // read after another.
    virtual Result<std::size_t> readQueue(std::string_view path, IoQueue &queue);
    virtual Result<std::size_t> readVersion(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer,
                                            const ObjectVersion &version)
    {
        (void)version;
        return read(path, offset, buffer);
    }
    virtual Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) = 0;
    // Stores a whole object from memory in one call, atomically like a committed writer.
    // The default opens a writer, writes and commits; backends override it where one
    // request does it (a single PUT) or where the bytes can go straight to their place.
    virtual Status put(std::string_view path, std::span<const std::byte> data, const WriteOptions &options);
    // Removes a file or an empty directory. Removing a missing path succeeds (idempotent).
    // Below `within` (a normal path above `path`, or empty), local storage follows no symlink:
    // a folder swapped for a link between a listing and a removal cannot redirect it.
    virtual Status remove(std::string_view path, std::string_view within) = 0;
    // Removes many files at once where the storage can batch it (S3 DeleteObjects);
    // the default removes them one by one. Stops at the first error.
    virtual Status removeMany(std::span<const std::string> paths, std::string_view within);
    // Creates one directory; its parent must exist.
    virtual Status createDir(std::string_view path);
    // Makes sure a folder shows where folders are only key prefixes (object stores),
    // whatever is under it already: its marker (an empty object named path + "/") is made
    // unless one is there. A copy marks the folders no file of theirs will show, beside
    // the files. Elsewhere, createDir.
    virtual Status markDir(std::string_view path) { return createDir(path); }
    // Moves an object within the backend. Something already at `to` is replaced only when
    // `replace` is set (a file by a file); else the rename fails with AlreadyExists.
    virtual Status rename(std::string_view from, std::string_view to, bool replace);
    // Opens `path` once for many reads, as `expected` (its listing) describes it: where the
    // storage can tell (a local file's device and inode), another object at the name now is
    // Corrupt, and a symlink there is not followed. Unsupported where the storage has no
    // such handle: callers then read by name (Operator::openReader does).
    virtual Result<std::unique_ptr<Reader>> openReader(std::string_view path, const Entry &expected);
    // Sets the POSIX permission bits of a file or directory (never through a symlink; below
    // `confineBelow`, when given, through none at all), where the storage keeps them;
    // Unsupported elsewhere.
    virtual Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow);
    // Copies an object within the backend without moving bytes through us where possible.
    virtual Status copy(std::string_view from, std::string_view to);
    // Data / zero / hole map of the whole object, sorted and coalesced.
    virtual Result<std::vector<Extent>> extents(std::string_view path);
    // One page of every version of every object below dir, the whole subtree, ordered by
    // path and then newest first (Capability::Versions); Unsupported by default.
    virtual Result<VersionPage> listVersions(std::string_view dir, const ListOptions &options);
    // One page of the uploads below dir begun and never finished, with the bytes of their
    // parts (Capability::Uploads); Unsupported by default.
    virtual Result<UploadPage> listUploads(std::string_view dir, const ListOptions &options);
    // What the store keeps about an object besides its bytes, and a change to it (content
    // type, cache control, user metadata, tags; Capability::Details); Unsupported by default.
    // A change of metadata is a copy of the object onto itself (a new version where kept).
    virtual Result<ObjectDetails> details(std::string_view path);
    virtual Status changeDetails(std::string_view path, const DetailsChange &change);
    // Copies a range of `from` into a writer opened on this same backend without moving
    // the bytes through user space (copy_file_range); Unsupported where impossible.
    virtual Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to);

    // A hint that these ranges of `path` will be read soon (local files start reading
    // them ahead, all at once, so the disk works on many at a time). Default: nothing.
    virtual void willRead(std::string_view path, std::span<const Extent> ranges)
    {
        (void)path;
        (void)ranges;
    }
    // A link anyone can GET the object with for `lifetime` (an S3 presigned URL), no
    // credentials needed; Unsupported where the storage has none. A query: no I/O.
    virtual Result<std::string> shareLink(std::string_view path, std::chrono::seconds lifetime) const;
    // The read size that suits this storage (a request per read on a network: larger is
    // cheaper); 0 when any size suits.
    virtual std::size_t preferredIoSize() const { return 0; }
    // Whether ranges of one object are best moved one after another rather than side by
    // side when it is read (`Reading`) or written: where one stream keeps its own requests
    // in flight (SFTP reads), parallel ranges add read-ahead thrown away at their ends, not
    // speed; where a stream ends with the object (FTP), there is nothing to do side by side.
    // Files still go side by side.
    enum class Flow { Reading, Writing };
    virtual bool oneStreamPerObject(Flow flow) const
    {
        (void)flow;
        return false;
    }
    // The bytes of reads in flight this storage needs to stay busy (a disk image server:
    // its connections x requests in flight x request size); 0 when it has no such need.
    virtual std::uint64_t preferredBytesInFlight() const { return 0; }
    // How many connections this storage wants busy at once when it is read or written, to
    // keep a distant link busy: an SFTP server 80 ms away answers one write per connection
    // per round trip, so a file written over 4 connections moves 4 requests per round trip.
    // A copy cuts a large file into that many ranges (unless oneStreamPerObject) and keeps
    // at least that many files in flight. 0: no wish (TransferOptions::partsInFlight and
    // jobs, set, win). It may change as the storage learns its link (a round trip measured
    // at login).
    virtual std::size_t preferredStreams(Flow flow) const
    {
        (void)flow;
        return 0;
    }
    // Discards server-side state a writer of `path` announced with WriteOptions::onPending
    // and did not finish (a killed process's multipart upload). Best effort. Default: none.
    virtual void discardPending(std::string_view path, const std::string &token)
    {
        (void)path;
        (void)token;
    }
    // Whether names below `path` that differ only in letter case name one object (a FAT,
    // exFAT, NTFS or SMB volume, a casefold folder); they then compare as foldCase()
    // (core/io/text_case.h) does. A fact of the storage, asked of it rather than guessed.
    virtual bool namesIgnoreCase(std::string_view path) const
    {
        (void)path;
        return false;
    }
    // Ends every request in flight at once and refuses later ones (Cancelled): the process
    // is ending and waits for no server, whatever a library waits for. Connections are cut,
    // not closed politely. Default: nothing (local storage answers promptly).
    virtual void hangUp() {}
    // The local file system path of `path` when this storage is the local file system
    // (fast paths such as the tree walker use it); nullopt elsewhere.
    virtual std::optional<std::string> localPath(std::string_view path) const
    {
        (void)path;
        return std::nullopt;
    }
};

Error unsupported(std::string_view what);

} // namespace strata

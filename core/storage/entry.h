#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

enum class EntryKind : std::uint8_t { File, Directory, Symlink, Other };

std::string_view toString(EntryKind kind);

// What a backend knows about one object. Fields a backend cannot know stay empty.
struct Entry {
    std::string name; // last path segment, UTF-8 ("" for the root)
    std::string path; // normalised backend path
    EntryKind kind = EntryKind::File;
    std::uint64_t size = 0;                 // bytes (apparent size)
    std::optional<std::uint64_t> allocated; // bytes on disk, where known (sparse files)
    std::optional<std::int64_t> mtimeNs;    // modification time, ns since the Unix epoch
    std::string etag;                       // opaque version tag, where known
    std::string contentHash;                // "sha256:…" / "md5:…", where known
    std::string storageClass;               // an object store's class (STANDARD, GLACIER…), where known
    std::optional<std::uint32_t> mode;      // POSIX permission bits, where known
    std::string symlinkTarget;              // for symlinks, where known
    std::optional<std::uint64_t> device;    // (device, inode) identify local files
    std::optional<std::uint64_t> inode;
    std::uint32_t links = 1;

    bool isDir() const { return kind == EntryKind::Directory; }
    bool isFile() const { return kind == EntryKind::File; }
};

} // namespace strata

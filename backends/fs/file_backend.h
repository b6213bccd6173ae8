#pragma once

#include "backends/fs/unique_fd.h"
#include "core/storage/backend.h"

#include <string>

#include <sys/stat.h>

namespace strata {

struct FileBackendOptions {
    bool followSymlinks = false; // stat and list report a symlink's target instead of the link
};

// A local directory tree, confined to its root: every path is resolved by the kernel
// beneath the root's descriptor (openat2 RESOLVE_IN_ROOT), so no "..", absolute symlink
// or symlink chain reaches outside it. Writers fill an unnamed temporary file (O_TMPFILE,
// or a hidden named one where unsupported) in the destination directory and rename it
// into place on commit; copies use copy_file_range and keep holes.
class FileBackend final : public Backend {
public:
    static Result<std::shared_ptr<FileBackend>> open(std::string rootPath, FileBackendOptions options = {});
    FileBackend(UniqueFd root, std::string rootPath, FileBackendOptions options);

    Capabilities capabilities() const override;
    Uri uriFor(std::string_view path) const override;
    Result<Entry> stat(std::string_view path) override;
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override;
    Result<std::size_t> read(std::string_view path, std::uint64_t offset, std::span<std::byte> buffer) override;
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &options) override;
    Status remove(std::string_view path, std::string_view within) override;
    Status createDir(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to, bool replace) override;
    Status copy(std::string_view from, std::string_view to) override;
    Status setPermissions(std::string_view path, std::uint32_t mode, std::string_view confineBelow) override;
    Result<std::unique_ptr<Reader>> openReader(std::string_view path, const Entry &expected) override;
    Result<std::vector<Extent>> extents(std::string_view path) override;
    Status copyRange(std::string_view from, std::uint64_t offset, std::uint64_t length, Writer &to) override;
    void willRead(std::string_view path, std::span<const Extent> ranges) override;
    std::optional<std::string> localPath(std::string_view path) const override;
    bool namesIgnoreCase(std::string_view path) const override;

    const std::string &rootPath() const { return m_rootPath; }

    // Opens a path beneath the root (flags as for open(2)).
    Result<UniqueFd> openBeneath(std::string_view path, int flags, unsigned mode = 0) const;
    // openBeneath of a file (a directory is IsDirectory), its status in `st`.
    Result<UniqueFd> openFile(std::string_view path, int flags, struct stat &st) const;
    // The parent directory of a path, opened beneath the root, and the last segment.
    Result<std::pair<UniqueFd, std::string>> openParent(std::string_view path) const;
    // openParent, but below `confineBelow` (a normal path above `path`; empty: no confinement)
    // no symlink is followed: a planted link is an error, not a way elsewhere.
    Result<std::pair<UniqueFd, std::string>> openParentConfined(std::string_view path,
                                                                std::string_view confineBelow) const;

private:
    Result<std::unique_ptr<class FileWriter>> makeWriter(std::string_view path, const WriteOptions &options);

    UniqueFd m_root;
    std::string m_rootPath;
    FileBackendOptions m_options;
};

} // namespace strata

#pragma once

#include "backends/fs/unique_fd.h"
#include "core/storage/backend.h"

#include <atomic>
#include <optional>
#include <string>

#include <sys/types.h>

namespace strata {

// Writes into a temporary file in the destination directory; commit renames it over the
// destination, abort (or destruction) removes it. Blocks of zeros are skipped, leaving
// holes, so a sparse source stays sparse.
class FileWriter final : public Writer {
public:
    // `tmpName` is empty for an O_TMPFILE (unnamed) file. A resumable writer keeps its
    // named temporary file on suspend(), and starts from `length` bytes already there.
    // `mode`: the permission bits the file gets when committed (it is private until then).
    FileWriter(UniqueFd dir, std::string leaf, UniqueFd file, std::string tmpName, WriteOptions options, mode_t mode,
               bool resumable = false, std::uint64_t length = 0);
    ~FileWriter() override;

    Status write(std::span<const std::byte> data) override;
    Status writeAt(std::uint64_t offset, std::span<const std::byte> data) override;
    Status setLength(std::uint64_t length) override;
    Status commit() override;
    void abort() override;
    void suspend() override;
    bool keepsPartialState() const override { return m_resumable; }
    // The size the file had when it was renamed into place (its descriptor's, so no stat of
    // the name is needed afterwards).
    std::optional<std::uint64_t> committedSize() const override { return m_committed; }
    int nativeHandle() const override { return m_file.get(); }

    int fd() const { return m_file.get(); }
    // Records that bytes up to `end` were written directly to fd() (copy_file_range).
    void noteWritten(std::uint64_t end);

private:
    Status writeBlocks(std::uint64_t offset, std::span<const std::byte> data);
    Status link();

    UniqueFd m_dir;
    std::string m_leaf;
    UniqueFd m_file;
    std::string m_tmpName;
    WriteOptions m_options;
    mode_t m_mode;
    std::uint64_t m_appendAt = 0;
    std::atomic<std::uint64_t> m_length{0};
    bool m_lengthFixed = false;
    bool m_resumable = false;
    bool m_finished = false;
    std::optional<std::uint64_t> m_committed;
};

} // namespace strata

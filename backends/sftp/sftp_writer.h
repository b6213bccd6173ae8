#pragma once

#include "backends/sftp/sftp_files.h"
#include "core/storage/backend.h"

#include <memory>
#include <string>

namespace strata::sftp {

class SftpBackend;

// The writer of one file: to the temporary name `temp` (server path), created on `lease`'s
// connection and still open there as `handle`, renamed to `path` (backend path) at commit.
// `length`: what a resumable temporary file already holds.
std::unique_ptr<Writer> makeWriter(std::shared_ptr<SftpBackend> backend, std::string path, std::string temp,
                                   WriteOptions options, std::uint32_t mode, bool resumable, std::uint64_t length,
                                   SessionPool::Lease lease, Handle handle, std::string refusedPartial);

} // namespace strata::sftp

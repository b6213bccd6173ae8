#pragma once

#include "backends/ftp/ftp_backend.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace strata::ftp {

// Permissions as SITE CHMOD takes them ("644").
std::string octal(std::uint32_t mode);

// Uploads `path` (a backend path) through the server path `temp` beside it, renamed into
// place at commit (ftp_writer.cpp). `mode`: given to the file before the rename; resumable:
// `temp` keeps what was written, `partial` bytes of it already; refusedPartial: why a kept
// partial file of that name was left alone.
std::unique_ptr<Writer> makeWriter(std::shared_ptr<FtpBackend> backend, std::string path, std::string temp,
                                   WriteOptions options, std::optional<std::uint32_t> mode, bool resumable,
                                   std::uint64_t partial, std::string refusedPartial);

} // namespace strata::ftp

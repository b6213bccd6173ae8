#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace strata::http {

// "2026-11-30T06:41:12.000Z" (ISO 8601, S3 listings) or "Mon, 30 Nov 2026 06:41:12 GMT"
// (RFC 7231, Last-Modified and WebDAV getlastmodified) -> ns since the epoch.
std::optional<std::int64_t> parseTime(const std::string &text);

} // namespace strata::http

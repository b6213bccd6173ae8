#pragma once

#include "backends/http/http_client.h"
#include "backends/http/http_time.h"
#include "core/storage/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::s3 {

struct ListedObject {
    std::string key;
    std::uint64_t size = 0;
    std::optional<std::int64_t> mtimeNs;
    std::string etag;
    std::string storageClass;
};

struct ListResult {
    std::vector<ListedObject> objects;
    std::vector<std::string> prefixes; // common prefixes ("dir/"), with a delimiter
    bool truncated = false;
    std::string nextToken;
};

// ListObjectsV2. Truncated or malformed XML is Corrupt, never a partial success.
Result<ListResult> parseList(const std::string &xml);
// InitiateMultipartUploadResult -> UploadId
Result<std::string> parseUploadId(const std::string &xml);
// CompleteMultipartUpload and CopyObject answer 200 with an <Error> body when they fail.
std::optional<std::string> errorCodeIn(const std::string &xml);

std::string completeMultipartXml(const std::vector<std::string> &etags);
std::string deleteObjectsXml(const std::vector<std::string> &keys);
// Keys the DeleteObjects answer reports as not deleted, with their error code.
std::vector<std::pair<std::string, std::string>> parseDeleteErrors(const std::string &xml);

using http::parseTime;

// The one place S3 answers become errors: XML error codes and HTTP statuses mapped to
// kinds (temporary for throttling, timeouts and 5xx), HTML pages recognised as such.
Error s3Error(const http::Response &response, std::string_view bucket);

} // namespace strata::s3

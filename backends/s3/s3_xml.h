#pragma once

#include "backends/http/http_client.h"
#include "backends/http/http_time.h"
#include "core/storage/result.h"

#include <cstdint>
#include <map>
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
// ListObjectVersions: versions and delete markers, in the server's order.
struct ListedVersion {
    std::string key;
    std::string versionId;
    std::uint64_t size = 0;
    std::optional<std::int64_t> mtimeNs;
    bool latest = false;
    bool deleteMarker = false;
};
struct VersionList {
    std::vector<ListedVersion> versions;
    bool truncated = false;
    std::string nextKeyMarker, nextVersionIdMarker;
};
Result<VersionList> parseVersions(const std::string &xml);

// ListMultipartUploads.
struct ListedUpload {
    std::string key;
    std::string uploadId;
    std::optional<std::int64_t> initiatedNs;
};
struct UploadList {
    std::vector<ListedUpload> uploads;
    bool truncated = false;
    std::string nextKeyMarker, nextUploadIdMarker;
};
Result<UploadList> parseUploads(const std::string &xml);

// ListParts: how many parts and bytes so far.
struct PartList {
    std::uint64_t bytes = 0;
    std::uint32_t parts = 0;
    bool truncated = false;
    std::string nextPartNumberMarker;
};
Result<PartList> parseParts(const std::string &xml);

// InitiateMultipartUploadResult -> UploadId
Result<std::string> parseUploadId(const std::string &xml);
// CompleteMultipartUpload and CopyObject answer 200 with an <Error> body when they fail.
std::optional<std::string> errorCodeIn(const std::string &xml);

// GetObjectTagging's answer: the tags, in the order sent.
Result<std::map<std::string, std::string>> parseTagging(const std::string &xml);
std::string taggingXml(const std::map<std::string, std::string> &tags);
std::string completeMultipartXml(const std::vector<std::string> &etags);
std::string deleteObjectsXml(const std::vector<std::string> &keys);
// Keys the DeleteObjects answer reports as not deleted, with their error code.
std::vector<std::pair<std::string, std::string>> parseDeleteErrors(const std::string &xml);

using http::parseTime;

// The one place S3 answers become errors: XML error codes and HTTP statuses mapped to
// kinds (temporary for throttling, timeouts and 5xx), HTML pages recognised as such.
Error s3Error(const http::Response &response, std::string_view bucket);

} // namespace strata::s3

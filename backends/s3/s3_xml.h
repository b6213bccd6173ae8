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
    std::vector<std::string> undecodable; // names whose URL escapes do not decode, as sent
};

// Listings are asked for with encoding-type=url: the answer escapes names as URLs do (a
// control character in one key cannot break its XML) and says so in <EncodingType>url</>;
// the parsers decode the names of such an answer only ('+' is a space, as AWS writes it).
// A name that does not decode (a bad escape, an encoded NUL) is no listing failure: it
// goes to `undecodable`, as sent.
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
    std::vector<std::string> undecodable;
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
    std::vector<std::string> undecodable;
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
// Whether a key can be written in an XML 1.0 body such as DeleteObjects': not when it holds
// a control character other than tab, line feed or carriage return.
bool fitsXml(std::string_view key);
// Keys the DeleteObjects answer reports as not deleted, with their error code.
std::vector<std::pair<std::string, std::string>> parseDeleteErrors(const std::string &xml);

using http::parseTime;

// The one place S3 answers become errors: XML error codes and HTTP statuses mapped to
// kinds (temporary for throttling, timeouts and 5xx), HTML pages recognised as such.
Error s3Error(const http::Response &response, std::string_view bucket);

} // namespace strata::s3

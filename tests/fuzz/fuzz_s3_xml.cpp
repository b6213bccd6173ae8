// The parsers of S3's XML answers, on any bytes: ListObjectsV2, ListObjectVersions,
// ListMultipartUploads, ListParts, the multipart upload id,
// DeleteObjects errors, the <Error> code of a 200 answer, and the error mapping of a
// failed request (status, content type and body from the input).
#include "backends/s3/s3_xml.h"
#include "tests/fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string xml(reinterpret_cast<const char *>(data), size);

    if (auto list = s3::parseList(xml)) {
        // A listing that continues always says where (the next page is asked with it).
        FUZZ_CHECK(!list->truncated || !list->nextToken.empty());
    } else {
        FUZZ_CHECK(list.error().kind() == ErrorKind::Corrupt);
    }
    if (auto versions = s3::parseVersions(xml))
        FUZZ_CHECK(!versions->truncated || !versions->nextKeyMarker.empty());
    else
        FUZZ_CHECK(versions.error().kind() == ErrorKind::Corrupt);
    if (auto uploads = s3::parseUploads(xml))
        FUZZ_CHECK(!uploads->truncated || !uploads->nextKeyMarker.empty());
    else
        FUZZ_CHECK(uploads.error().kind() == ErrorKind::Corrupt);
    if (auto parts = s3::parseParts(xml))
        FUZZ_CHECK(!parts->truncated || !parts->nextPartNumberMarker.empty());
    else
        FUZZ_CHECK(parts.error().kind() == ErrorKind::Corrupt);
    if (auto tags = s3::parseTagging(xml)) {
        // What is parsed is written back and read again as the same tags.
        auto again = s3::parseTagging(s3::taggingXml(*tags));
        FUZZ_CHECK(again && *again == *tags);
    } else {
        FUZZ_CHECK(tags.error().kind() == ErrorKind::Corrupt);
    }
    if (auto id = s3::parseUploadId(xml); !id)
        FUZZ_CHECK(id.error().kind() == ErrorKind::Corrupt);
    if (auto code = s3::errorCodeIn(xml))
        FUZZ_CHECK(xml.find("<Error") != std::string::npos);
    (void)s3::parseDeleteErrors(xml);

    // A failed request: the first line is the status and Content-Type, the rest the body.
    http::Response response;
    const std::size_t eol = xml.find('\n');
    const std::string_view head = std::string_view(xml).substr(0, eol);
    response.status = head.empty() ? 500 : 100 + long(static_cast<unsigned char>(head.front())) * 2;
    if (head.size() > 1)
        response.headers.keep("Content-Type", head.substr(1));
    response.body = eol == std::string::npos ? std::string() : xml.substr(eol + 1);
    const Error error = s3::s3Error(response, "bucket");
    FUZZ_CHECK(!error.cause().empty());
    return 0;
}

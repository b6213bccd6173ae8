#include "backends/s3/s3_xml.h"

#include "backends/http/http_status.h"
#include "backends/http/xml_stream.h"
#include "core/storage/uri.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

namespace strata::s3 {

using http::XmlReader;

namespace {

Error corrupt(const XmlReader &reader)
{
    return Error(ErrorKind::Corrupt,
                 "the server's XML answer is malformed or cut short (" + reader.errorString() + ")");
}

std::string escape(std::string_view text)
{
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\r': out += "&#13;"; break; // else read back as a line feed
        default: out += c;
        }
    }
    return out;
}

// A name of an answer with <EncodingType>url</EncodingType>, decoded in place: '+' is a
// space (AWS writes a space so, and a '+' as %2B), then the %XX escapes. False, and the
// name left as sent, when an escape is bad or encodes a NUL.
bool urlDecode(std::string &name)
{
    std::string spaced = name;
    std::replace(spaced.begin(), spaced.end(), '+', ' ');
    auto decoded = percentDecode(spaced, Escapes::Strict);
    if (!decoded)
        return false;
    name = std::move(*decoded);
    return true;
}

// Servers that ignore encoding-type=url (s3rver) write a key's control characters into the
// XML as they are, raw or as character references, which XML 1.0 forbids and XML parsers
// refuse: one such key would fail the whole listing. They are carried through the parse
// as U+E000 + their code (private use) and put back in the names after it. Only where the
// answer holds none of those private characters itself, so what comes back is exact.
constexpr char32_t kCarrier = 0xE000;

bool isForbiddenControl(unsigned code)
{
    return code < 0x20 && code != '\t' && code != '\n' && code != '\r';
}

void appendCarrier(std::string &out, unsigned code)
{
    const char32_t c = kCarrier + code; // three UTF-8 bytes: EE 80 80..9F
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
}

// A character reference ("&#1;", "&#x1F;") at `at`: its code and length, or nullopt.
std::optional<std::pair<unsigned, std::size_t>> characterReference(std::string_view xml, std::size_t at)
{
    if (!xml.substr(at).starts_with("&#"))
        return std::nullopt;
    std::size_t i = at + 2;
    const bool hex = i < xml.size() && (xml[i] == 'x' || xml[i] == 'X');
    i += hex ? 1 : 0;
    const auto end = xml.find(';', i);
    if (end == std::string_view::npos || end == i || end - i > 8)
        return std::nullopt;
    unsigned code = 0;
    auto [ptr, ec] = std::from_chars(xml.data() + i, xml.data() + end, code, hex ? 16 : 10);
    if (ec != std::errc() || ptr != xml.data() + end)
        return std::nullopt;
    return std::pair{code, end + 1 - at};
}

// The answer with its forbidden control characters carried (see kCarrier); nullopt when
// it holds none, or holds a carrier character of its own.
std::optional<std::string> carryControls(const std::string &xml)
{
    const bool raw = std::any_of(xml.begin(), xml.end(), [](char c) { return isForbiddenControl((unsigned char)c); });
    if ((!raw && xml.find("&#") == std::string::npos) || xml.find("\xEE\x80") != std::string::npos)
        return std::nullopt;
    std::string out;
    out.reserve(xml.size() + 16);
    for (std::size_t i = 0; i < xml.size(); ++i) {
        const auto byte = (unsigned char)xml[i];
        if (isForbiddenControl(byte)) {
            appendCarrier(out, byte);
        } else if (auto ref = xml[i] == '&' ? characterReference(xml, i) : std::nullopt;
                   ref && isForbiddenControl(ref->first)) {
            appendCarrier(out, ref->first);
            i += ref->second - 1;
        } else {
            out += xml[i];
        }
    }
    if (out == xml)
        return std::nullopt;
    return out;
}

// A name read from a carried answer, its control characters put back.
void restoreControls(std::string &name)
{
    for (std::size_t at = 0; (at = name.find("\xEE\x80", at)) != std::string::npos;) {
        const auto last = at + 2 < name.size() ? (unsigned char)name[at + 2] : 0u;
        if (last >= 0x80 && last < 0xA0)
            name.replace(at, 3, 1, char(last - 0x80));
        ++at;
    }
}

// What a listing's parse needs to know of its answer.
struct Answer {
    std::optional<std::string> carried; // the answer with control characters carried
    bool urlEncoded = false;            // <EncodingType>url</EncodingType>
    const std::string &bytes(const std::string &xml) const { return carried ? *carried : xml; }
    // A name as the server meant it: control characters put back, URL escapes decoded.
    bool name(std::string &text) const
    {
        if (carried)
            restoreControls(text);
        return !urlEncoded || urlDecode(text);
    }
};

bool isUrlEncoding(XmlReader &reader)
{
    return reader.name() == "EncodingType" && reader.text() == "url";
}

// The names of a listing (each item's key, through `keyOf`) as the server meant them; items
// whose key does not decode leave the list for `undecodable`.
template <typename Item, typename KeyOf>
void decodeNames(const Answer &answer, std::vector<Item> &items, KeyOf keyOf, std::vector<std::string> &undecodable)
{
    std::erase_if(items, [&](Item &item) {
        std::string &key = keyOf(item);
        if (answer.name(key))
            return false;
        undecodable.push_back(std::move(key));
        return true;
    });
}

} // namespace

Result<ListResult> parseList(const std::string &xml)
{
    Answer answer{carryControls(xml)};
    XmlReader reader(answer.bytes(xml));
    ListResult result;
    if (!reader.readNextStartElement())
        return reader.hasError() ? corrupt(reader)
                                 : Error(ErrorKind::Corrupt, "the server sent an empty listing answer");
    if (reader.name() != "ListBucketResult")
        return Error(ErrorKind::Corrupt, "the server did not answer with a listing");
    // Children of the root only; reading on past its end would report a premature end.
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == "Contents") {
            ListedObject object;
            while (reader.readNextStartElement()) {
                const auto field = reader.name();
                if (field == "Key") {
                    object.key = reader.text();
                } else if (field == "Size") {
                    const std::string value = reader.text();
                    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), object.size);
                    if (ec != std::errc() || ptr != value.data() + value.size())
                        return Error(ErrorKind::Corrupt, "the listing gives an object size that is not a number");
                } else if (field == "LastModified") {
                    object.mtimeNs = parseTime(reader.text());
                } else if (field == "ETag") {
                    object.etag = reader.text();
                } else if (field == "StorageClass") {
                    object.storageClass = reader.text();
                } else {
                    reader.skipCurrentElement();
                }
            }
            result.objects.push_back(std::move(object));
        } else if (name == "CommonPrefixes") {
            while (reader.readNextStartElement()) {
                if (reader.name() == "Prefix")
                    result.prefixes.push_back(reader.text());
                else
                    reader.skipCurrentElement();
            }
        } else if (name == "IsTruncated") {
            result.truncated = reader.text() == "true";
        } else if (name == "NextContinuationToken") {
            result.nextToken = reader.text(); // never encoded
        } else if (name == "EncodingType") {
            answer.urlEncoded = isUrlEncoding(reader);
        } else {
            reader.skipCurrentElement();
        }
    }
    if (reader.hasError())
        return corrupt(reader);
    decodeNames(
        answer, result.objects, [](ListedObject &o) -> std::string & { return o.key; }, result.undecodable);
    decodeNames(
        answer, result.prefixes, [](std::string &p) -> std::string & { return p; }, result.undecodable);
    if (result.truncated && result.nextToken.empty())
        return Error(ErrorKind::Corrupt, "the listing says it continues but gives no continuation token");
    return result;
}

namespace {

Result<std::uint64_t> number(XmlReader &reader, const char *what)
{
    const std::string value = reader.text();
    std::uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || ptr != value.data() + value.size())
        return Error(ErrorKind::Corrupt, std::string("the listing gives ") + what + " that is not a number");
    return n;
}

// Opens the answer's root element, which must be `root`.
Status openRoot(XmlReader &reader, const char *root)
{
    if (!reader.readNextStartElement())
        return reader.hasError() ? corrupt(reader) : Error(ErrorKind::Corrupt, "the server sent an empty answer");
    if (reader.name() != root)
        return Error(ErrorKind::Corrupt, std::string("the server did not answer with a ") + root);
    return {};
}

} // namespace

Result<VersionList> parseVersions(const std::string &xml)
{
    Answer answer{carryControls(xml)};
    XmlReader reader(answer.bytes(xml));
    if (auto st = openRoot(reader, "ListVersionsResult"); !st)
        return std::move(st).error();
    VersionList result;
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == "Version" || name == "DeleteMarker") {
            ListedVersion v;
            v.deleteMarker = name == "DeleteMarker";
            while (reader.readNextStartElement()) {
                const auto field = reader.name();
                if (field == "Key") {
                    v.key = reader.text();
                } else if (field == "VersionId") {
                    v.versionId = reader.text();
                } else if (field == "IsLatest") {
                    v.latest = reader.text() == "true";
                } else if (field == "Size") {
                    auto n = number(reader, "a version size");
                    if (!n)
                        return std::move(n).error();
                    v.size = *n;
                } else if (field == "LastModified") {
                    v.mtimeNs = parseTime(reader.text());
                } else {
                    reader.skipCurrentElement();
                }
            }
            result.versions.push_back(std::move(v));
        } else if (name == "IsTruncated") {
            result.truncated = reader.text() == "true";
        } else if (name == "NextKeyMarker") {
            result.nextKeyMarker = reader.text();
        } else if (name == "NextVersionIdMarker") {
            result.nextVersionIdMarker = reader.text();
        } else if (name == "EncodingType") {
            answer.urlEncoded = isUrlEncoding(reader);
        } else {
            reader.skipCurrentElement();
        }
    }
    if (reader.hasError())
        return corrupt(reader);
    decodeNames(
        answer, result.versions, [](ListedVersion &v) -> std::string & { return v.key; }, result.undecodable);
    if (!answer.name(result.nextKeyMarker))
        return Error(ErrorKind::Corrupt, "the version listing's next key has a bad escape");
    if (result.truncated && result.nextKeyMarker.empty())
        return Error(ErrorKind::Corrupt, "the version listing says it continues but gives no next key");
    return result;
}

Result<UploadList> parseUploads(const std::string &xml)
{
    Answer answer{carryControls(xml)};
    XmlReader reader(answer.bytes(xml));
    if (auto st = openRoot(reader, "ListMultipartUploadsResult"); !st)
        return std::move(st).error();
    UploadList result;
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == "Upload") {
            ListedUpload u;
            while (reader.readNextStartElement()) {
                const auto field = reader.name();
                if (field == "Key")
                    u.key = reader.text();
                else if (field == "UploadId")
                    u.uploadId = reader.text();
                else if (field == "Initiated")
                    u.initiatedNs = parseTime(reader.text());
                else
                    reader.skipCurrentElement();
            }
            result.uploads.push_back(std::move(u));
        } else if (name == "IsTruncated") {
            result.truncated = reader.text() == "true";
        } else if (name == "NextKeyMarker") {
            result.nextKeyMarker = reader.text();
        } else if (name == "NextUploadIdMarker") {
            result.nextUploadIdMarker = reader.text();
        } else if (name == "EncodingType") {
            answer.urlEncoded = isUrlEncoding(reader);
        } else {
            reader.skipCurrentElement();
        }
    }
    if (reader.hasError())
        return corrupt(reader);
    decodeNames(
        answer, result.uploads, [](ListedUpload &u) -> std::string & { return u.key; }, result.undecodable);
    if (!answer.name(result.nextKeyMarker))
        return Error(ErrorKind::Corrupt, "the upload listing's next key has a bad escape");
    if (result.truncated && result.nextKeyMarker.empty())
        return Error(ErrorKind::Corrupt, "the upload listing says it continues but gives no next key");
    return result;
}

Result<PartList> parseParts(const std::string &xml)
{
    XmlReader reader(xml);
    if (auto st = openRoot(reader, "ListPartsResult"); !st)
        return std::move(st).error();
    PartList result;
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == "Part") {
            while (reader.readNextStartElement()) {
                if (reader.name() == "Size") {
                    auto n = number(reader, "a part size");
                    if (!n)
                        return std::move(n).error();
                    result.bytes += *n;
                } else {
                    reader.skipCurrentElement();
                }
            }
            ++result.parts;
        } else if (name == "IsTruncated") {
            result.truncated = reader.text() == "true";
        } else if (name == "NextPartNumberMarker") {
            result.nextPartNumberMarker = reader.text();
        } else {
            reader.skipCurrentElement();
        }
    }
    if (reader.hasError())
        return corrupt(reader);
    if (result.truncated && result.nextPartNumberMarker.empty())
        return Error(ErrorKind::Corrupt, "the part listing says it continues but gives no next part number");
    return result;
}

Result<std::map<std::string, std::string>> parseTagging(const std::string &xml)
{
    XmlReader reader(xml);
    if (auto st = openRoot(reader, "Tagging"); !st)
        return std::move(st).error();
    std::map<std::string, std::string> tags;
    while (reader.readNextStartElement()) {
        if (reader.name() != "TagSet") {
            reader.skipCurrentElement();
            continue;
        }
        while (reader.readNextStartElement()) {
            if (reader.name() != "Tag") {
                reader.skipCurrentElement();
                continue;
            }
            std::string key, value;
            while (reader.readNextStartElement()) {
                if (reader.name() == "Key")
                    key = reader.text();
                else if (reader.name() == "Value")
                    value = reader.text();
                else
                    reader.skipCurrentElement();
            }
            if (key.empty())
                return Error(ErrorKind::Corrupt, "a tag without a key in the server's answer");
            tags[std::move(key)] = std::move(value);
        }
    }
    if (reader.hasError())
        return corrupt(reader);
    return tags;
}

std::string taggingXml(const std::map<std::string, std::string> &tags)
{
    std::string xml = "<Tagging><TagSet>";
    for (const auto &[key, value] : tags)
        xml += "<Tag><Key>" + escape(key) + "</Key><Value>" + escape(value) + "</Value></Tag>";
    return xml + "</TagSet></Tagging>";
}

Result<std::string> parseUploadId(const std::string &xml)
{
    XmlReader reader(xml);
    while (reader.readNext()) {
        if (reader.isStartElement() && reader.name() == "UploadId")
            return reader.text();
    }
    if (reader.hasError())
        return corrupt(reader);
    return Error(ErrorKind::Corrupt, "the server did not return an upload id for the multipart upload");
}

std::optional<std::string> errorCodeIn(const std::string &xml)
{
    if (xml.find("<Error") == std::string::npos)
        return std::nullopt;
    XmlReader reader(xml);
    while (reader.readNext()) {
        if (reader.isStartElement() && reader.name() == "Code")
            return reader.text();
    }
    return std::string("UnknownError");
}

std::string completeMultipartXml(const std::vector<std::string> &etags)
{
    std::string xml = "<CompleteMultipartUpload>";
    for (std::size_t i = 0; i < etags.size(); ++i)
        xml +=
            "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + escape(etags[i]) + "</ETag></Part>";
    xml += "</CompleteMultipartUpload>";
    return xml;
}

bool fitsXml(std::string_view key)
{
    return std::none_of(key.begin(), key.end(), [](char c) { return isForbiddenControl((unsigned char)c); });
}

std::string deleteObjectsXml(const std::vector<std::string> &keys)
{
    std::string xml = "<Delete><Quiet>true</Quiet>";
    for (const auto &key : keys)
        xml += "<Object><Key>" + escape(key) + "</Key></Object>";
    xml += "</Delete>";
    return xml;
}

std::vector<std::pair<std::string, std::string>> parseDeleteErrors(const std::string &xml)
{
    std::vector<std::pair<std::string, std::string>> out;
    XmlReader reader(xml);
    while (reader.readNext()) {
        if (!reader.isStartElement() || reader.name() != "Error")
            continue;
        std::string key, code;
        while (reader.readNextStartElement()) {
            if (reader.name() == "Key")
                key = reader.text();
            else if (reader.name() == "Code")
                code = reader.text();
            else
                reader.skipCurrentElement();
        }
        out.emplace_back(key, code);
    }
    return out;
}

Error s3Error(const http::Response &response, std::string_view bucket)
{
    const long status = response.status;
    std::string code, message;
    const std::string &body = response.body;
    // The content type alone also tells: HEAD answers have no body.
    const bool html = response.htmlBody()
        || (response.header("content-type").starts_with("text/html") && body.find("<Error") == std::string::npos);
    if (!html && body.find("<Error") != std::string::npos) {
        XmlReader reader(body);
        while (reader.readNext()) {
            if (!reader.isStartElement())
                continue;
            if (reader.name() == "Code")
                code = reader.text();
            else if (reader.name() == "Message")
                message = reader.text();
        }
    }
    const std::string detail =
        code.empty() ? "HTTP " + std::to_string(status) : code + (message.empty() ? "" : ": " + message);
    auto make = [&](ErrorKind kind, std::string why, bool temporary) {
        return Error(kind, std::move(why)).setTemporary(temporary);
    };
    if (code == "NoSuchBucket")
        return make(ErrorKind::NotFound, "the bucket '" + std::string(bucket) + "' does not exist", false);
    if (code == "NoSuchKey" || code == "NoSuchUpload" || (code.empty() && status == 404))
        return make(ErrorKind::NotFound, detail, false);
    if (code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "ExpiredToken"
        || code == "InvalidToken" || code == "TokenRefreshRequired")
        return make(ErrorKind::PermissionDenied,
                    "the server refused the credentials (" + detail + "); check the access key and secret", false);
    if (code == "AccessDenied" || code == "AllAccessDisabled")
        return make(ErrorKind::PermissionDenied, detail, false);
    if (code.empty() && status == 403) // HEAD answers carry no code: wrong keys or no right
        return make(ErrorKind::PermissionDenied,
                    "the server refused the request (HTTP 403); check the credentials "
                    "(access key and secret) and the bucket's permissions",
                    false);
    if (code == "SlowDown" || code == "TooManyRequests")
        return make(ErrorKind::RateLimited, "the server asks to slow down (" + detail + ")", true);
    if (code == "RequestTimeout")
        return make(ErrorKind::Timeout, detail, true);
    if (code == "RequestTimeTooSkewed")
        return make(ErrorKind::Timeout, detail + "; check this computer's clock", false);
    if (code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed" || status == 301 || status == 307)
        return make(ErrorKind::InvalidInput,
                    "the bucket is in another region or behind another endpoint (" + detail
                        + "); set ?region= or ?endpoint=",
                    false);
    if (code == "EntityTooLarge" || code == "EntityTooSmall" || code == "InvalidPart" || code == "InvalidPartOrder"
        || code == "KeyTooLongError" || code == "InvalidArgument" || code == "InvalidRequest" || code == "MalformedXML")
        return make(ErrorKind::InvalidInput, detail, false);
    if (code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" || code == "PreconditionFailed")
        return make(ErrorKind::AlreadyExists, detail, false);
    if (code == "NotImplemented")
        return make(ErrorKind::Unsupported, "the server does not implement this (" + detail + ")", false);
    // Any other code, or none: what the HTTP status says.
    return http::statusError(response,
                             {"the request", "S3 XML", code.empty() ? std::string_view() : std::string_view(detail)});
}

} // namespace strata::s3

#include "backends/s3/s3_xml.h"

#include "backends/http/http_status.h"
#include "core/storage/uri.h"

#include <QXmlStreamReader>

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

namespace strata::s3 {

namespace {

Error corrupt(const QXmlStreamReader &reader)
{
    return Error(ErrorKind::Corrupt,
                 "the server's XML answer is malformed or cut short (" + reader.errorString().toStdString() + ")");
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

std::string text(QXmlStreamReader &reader)
{
    return reader.readElementText(QXmlStreamReader::IncludeChildElements).toStdString();
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
// XML as they are, raw or as character references, which XML 1.0 forbids and Qt's reader
// refuses: one such key would fail the whole listing. They are carried through the parse
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
    QByteArray bytes(const std::string &xml) const { return QByteArray::fromStdString(carried ? *carried : xml); }
    // A name as the server meant it: control characters put back, URL escapes decoded.
    bool name(std::string &text) const
    {
        if (carried)
            restoreControls(text);
        return !urlEncoded || urlDecode(text);
    }
};

bool isUrlEncoding(QXmlStreamReader &reader)
{
    return reader.name() == QLatin1String("EncodingType") && text(reader) == "url";
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
    QXmlStreamReader reader(answer.bytes(xml));
    ListResult result;
    if (!reader.readNextStartElement())
        return reader.hasError() ? corrupt(reader)
                                 : Error(ErrorKind::Corrupt, "the server sent an empty listing answer");
    if (reader.name() != QLatin1String("ListBucketResult"))
        return Error(ErrorKind::Corrupt, "the server did not answer with a listing");
    // Children of the root only; reading on past its end would report a premature end.
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == QLatin1String("Contents")) {
            ListedObject object;
            while (reader.readNextStartElement()) {
                const auto field = reader.name();
                if (field == QLatin1String("Key")) {
                    object.key = text(reader);
                } else if (field == QLatin1String("Size")) {
                    const std::string value = text(reader);
                    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), object.size);
                    if (ec != std::errc() || ptr != value.data() + value.size())
                        return Error(ErrorKind::Corrupt, "the listing gives an object size that is not a number");
                } else if (field == QLatin1String("LastModified")) {
                    object.mtimeNs = parseTime(text(reader));
                } else if (field == QLatin1String("ETag")) {
                    object.etag = text(reader);
                } else if (field == QLatin1String("StorageClass")) {
                    object.storageClass = text(reader);
                } else {
                    reader.skipCurrentElement();
                }
            }
            result.objects.push_back(std::move(object));
        } else if (name == QLatin1String("CommonPrefixes")) {
            while (reader.readNextStartElement()) {
                if (reader.name() == QLatin1String("Prefix"))
                    result.prefixes.push_back(text(reader));
                else
                    reader.skipCurrentElement();
            }
        } else if (name == QLatin1String("IsTruncated")) {
            result.truncated = text(reader) == "true";
        } else if (name == QLatin1String("NextContinuationToken")) {
            result.nextToken = text(reader); // never encoded
        } else if (name == QLatin1String("EncodingType")) {
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

Result<std::uint64_t> number(QXmlStreamReader &reader, const char *what)
{
    const std::string value = text(reader);
    std::uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || ptr != value.data() + value.size())
        return Error(ErrorKind::Corrupt, std::string("the listing gives ") + what + " that is not a number");
    return n;
}

// Opens the answer's root element, which must be `root`.
Status openRoot(QXmlStreamReader &reader, const char *root)
{
    if (!reader.readNextStartElement())
        return reader.hasError() ? corrupt(reader) : Error(ErrorKind::Corrupt, "the server sent an empty answer");
    if (reader.name() != QLatin1String(root))
        return Error(ErrorKind::Corrupt, std::string("the server did not answer with a ") + root);
    return {};
}

} // namespace

Result<VersionList> parseVersions(const std::string &xml)
{
    Answer answer{carryControls(xml)};
    QXmlStreamReader reader(answer.bytes(xml));
    if (auto st = openRoot(reader, "ListVersionsResult"); !st)
        return std::move(st).error();
    VersionList result;
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == QLatin1String("Version") || name == QLatin1String("DeleteMarker")) {
            ListedVersion v;
            v.deleteMarker = name == QLatin1String("DeleteMarker");
            while (reader.readNextStartElement()) {
                const auto field = reader.name();
                if (field == QLatin1String("Key")) {
                    v.key = text(reader);
                } else if (field == QLatin1String("VersionId")) {
                    v.versionId = text(reader);
                } else if (field == QLatin1String("IsLatest")) {
                    v.latest = text(reader) == "true";
                } else if (field == QLatin1String("Size")) {
                    auto n = number(reader, "a version size");
                    if (!n)
                        return std::move(n).error();
                    v.size = *n;
                } else if (field == QLatin1String("LastModified")) {
                    v.mtimeNs = parseTime(text(reader));
                } else {
                    reader.skipCurrentElement();
                }
            }
            result.versions.push_back(std::move(v));
        } else if (name == QLatin1String("IsTruncated")) {
            result.truncated = text(reader) == "true";
        } else if (name == QLatin1String("NextKeyMarker")) {
            result.nextKeyMarker = text(reader);
        } else if (name == QLatin1String("NextVersionIdMarker")) {
            result.nextVersionIdMarker = text(reader);
        } else if (name == QLatin1String("EncodingType")) {
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
    QXmlStreamReader reader(answer.bytes(xml));
    if (auto st = openRoot(reader, "ListMultipartUploadsResult"); !st)
        return std::move(st).error();
    UploadList result;
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == QLatin1String("Upload")) {
            ListedUpload u;
            while (reader.readNextStartElement()) {
                const auto field = reader.name();
                if (field == QLatin1String("Key"))
                    u.key = text(reader);
                else if (field == QLatin1String("UploadId"))
                    u.uploadId = text(reader);
                else if (field == QLatin1String("Initiated"))
                    u.initiatedNs = parseTime(text(reader));
                else
                    reader.skipCurrentElement();
            }
            result.uploads.push_back(std::move(u));
        } else if (name == QLatin1String("IsTruncated")) {
            result.truncated = text(reader) == "true";
        } else if (name == QLatin1String("NextKeyMarker")) {
            result.nextKeyMarker = text(reader);
        } else if (name == QLatin1String("NextUploadIdMarker")) {
            result.nextUploadIdMarker = text(reader);
        } else if (name == QLatin1String("EncodingType")) {
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
    QXmlStreamReader reader(QByteArray::fromStdString(xml));
    if (auto st = openRoot(reader, "ListPartsResult"); !st)
        return std::move(st).error();
    PartList result;
    while (reader.readNextStartElement()) {
        const auto name = reader.name();
        if (name == QLatin1String("Part")) {
            while (reader.readNextStartElement()) {
                if (reader.name() == QLatin1String("Size")) {
                    auto n = number(reader, "a part size");
                    if (!n)
                        return std::move(n).error();
                    result.bytes += *n;
                } else {
                    reader.skipCurrentElement();
                }
            }
            ++result.parts;
        } else if (name == QLatin1String("IsTruncated")) {
            result.truncated = text(reader) == "true";
        } else if (name == QLatin1String("NextPartNumberMarker")) {
            result.nextPartNumberMarker = text(reader);
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
    QXmlStreamReader reader(QByteArray::fromStdString(xml));
    if (auto st = openRoot(reader, "Tagging"); !st)
        return std::move(st).error();
    std::map<std::string, std::string> tags;
    while (reader.readNextStartElement()) {
        if (reader.name() != QLatin1String("TagSet")) {
            reader.skipCurrentElement();
            continue;
        }
        while (reader.readNextStartElement()) {
            if (reader.name() != QLatin1String("Tag")) {
                reader.skipCurrentElement();
                continue;
            }
            std::string key, value;
            while (reader.readNextStartElement()) {
                if (reader.name() == QLatin1String("Key"))
                    key = text(reader);
                else if (reader.name() == QLatin1String("Value"))
                    value = text(reader);
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
    QXmlStreamReader reader(QByteArray::fromStdString(xml));
    while (!reader.atEnd()) {
        if (reader.readNext() == QXmlStreamReader::StartElement && reader.name() == QLatin1String("UploadId"))
            return text(reader);
    }
    if (reader.hasError())
        return corrupt(reader);
    return Error(ErrorKind::Corrupt, "the server did not return an upload id for the multipart upload");
}

std::optional<std::string> errorCodeIn(const std::string &xml)
{
    if (xml.find("<Error") == std::string::npos)
        return std::nullopt;
    QXmlStreamReader reader(QByteArray::fromStdString(xml));
    while (!reader.atEnd()) {
        if (reader.readNext() == QXmlStreamReader::StartElement && reader.name() == QLatin1String("Code"))
            return text(reader);
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
    QXmlStreamReader reader(QByteArray::fromStdString(xml));
    while (!reader.atEnd()) {
        if (reader.readNext() != QXmlStreamReader::StartElement || reader.name() != QLatin1String("Error"))
            continue;
        std::string key, code;
        while (reader.readNextStartElement()) {
            if (reader.name() == QLatin1String("Key"))
                key = text(reader);
            else if (reader.name() == QLatin1String("Code"))
                code = text(reader);
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
        QXmlStreamReader reader(QByteArray::fromStdString(body));
        while (!reader.atEnd()) {
            if (reader.readNext() != QXmlStreamReader::StartElement)
                continue;
            if (reader.name() == QLatin1String("Code"))
                code = text(reader);
            else if (reader.name() == QLatin1String("Message"))
                message = text(reader);
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

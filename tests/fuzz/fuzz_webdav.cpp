// A PROPFIND multistatus fed to the streaming parser in pieces whose sizes come from the
// input, then each href turned into a backend path the way a listing does.
// Input: 4 bytes of piece sizes, then the document.
#include "backends/webdav/webdav_href.h"
#include "backends/webdav/webdav_multistatus.h"
#include "core/storage/path.h"
#include "tests/fuzz/fuzz_check.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace strata;
using webdav::DavResource;

namespace {

constexpr std::string_view kOrigin = "http://127.0.0.1:8080";
constexpr std::string_view kRequested[] = {"/", "/dav", "/dav/a b/c"};

bool operator==(const DavResource &a, const DavResource &b)
{
    return a.href == b.href && a.found == b.found && a.collection == b.collection && a.length == b.length
        && a.mtimeNs == b.mtimeNs && a.etag == b.etag;
}

struct Parsed {
    std::vector<DavResource> resources;
    bool whole = false; // finish() found nothing wrong
};

Parsed parseInPieces(std::string_view doc, const std::uint8_t *sizes, std::size_t sizeCount)
{
    Parsed out;
    webdav::MultistatusParser parser([&](DavResource &&r) { out.resources.push_back(std::move(r)); });
    std::size_t i = 0;
    while (!doc.empty()) {
        // 0 means "the rest at once"; pieces of 1 byte split every escape and UTF-8 sequence.
        const std::size_t n = sizeCount == 0 || sizes[i % sizeCount] == 0 ? doc.size() : sizes[i % sizeCount];
        ++i;
        const bool more = parser.feed(doc.substr(0, std::min(n, doc.size())));
        doc.remove_prefix(std::min(n, doc.size()));
        if (!more) {
            FUZZ_CHECK(!parser.problem().empty());
            break;
        }
    }
    out.whole = parser.finish().empty();
    return out;
}

bool startsWithNoCase(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
}

// An href names a path at or below the server's root, in normal form, and only ever one
// of our own origin.
void checkHref(std::string_view href, std::string_view requested)
{
    const auto path = webdav::hrefPath(href, kOrigin, requested);
    if (!path)
        return;
    FUZZ_CHECK(isNormalPath(*path));
    const std::string_view bare = href.substr(0, href.find_first_of("?#"));
    if (bare.find("://") != std::string_view::npos) {
        FUZZ_CHECK(startsWithNoCase(bare, kOrigin));
        FUZZ_CHECK(bare.size() == kOrigin.size() || bare[kOrigin.size()] == '/');
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    constexpr std::size_t kSizeBytes = 4;
    if (size < kSizeBytes)
        return 0;
    const std::string_view doc(reinterpret_cast<const char *>(data) + kSizeBytes, size - kSizeBytes);
    const std::string_view requested = kRequested[data[0] % std::size(kRequested)];

    const Parsed pieces = parseInPieces(doc, data, kSizeBytes);
    // Streaming changes nothing: the same verdict as all at once, and on a whole document
    // the same resources. (A broken one may hand over a different number before the
    // break: the parser finds a fault when the piece that holds it comes; the caller then
    // fails the listing anyway.)
    const Parsed whole = parseInPieces(doc, nullptr, 0);
    FUZZ_CHECK(pieces.whole == whole.whole);
    if (whole.whole) {
        FUZZ_CHECK(pieces.resources.size() == whole.resources.size());
        for (std::size_t i = 0; i < whole.resources.size(); ++i)
            FUZZ_CHECK(pieces.resources[i] == whole.resources[i]);
    }

    for (const DavResource &r : whole.resources)
        checkHref(r.href, requested);
    // Hrefs outside any XML too: the first line of the document.
    checkHref(doc.substr(0, doc.find('\n')), requested);
    return 0;
}

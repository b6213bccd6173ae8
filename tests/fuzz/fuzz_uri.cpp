// Uri::parse on any text; what parses must print to text that parses back to the same
// URI, and its redacted form must keep the user-info and secret query values out.
#include "core/storage/uri.h"
#include "tests/fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using strata::Uri;

namespace {

constexpr std::string_view kMask = "REDACTED";

// What the redacted text may show: the URI minus its user-info (the display may repeat
// there whatever people wrote outside the user-info).
std::string publicText(const Uri &uri)
{
    std::string text = uri.toString();
    if (uri.hasUserInfo()) {
        const std::size_t at = uri.scheme().size() + 3; // "scheme://"
        text.erase(at, uri.userInfo().size() + 1);
    }
    return text;
}

void checkRedacted(const Uri &uri)
{
    const std::string shown = uri.redacted();
    auto again = Uri::parse(shown);
    FUZZ_CHECK(again.ok());
    // Same URI, with the secrets (and only them) replaced by the mask.
    FUZZ_CHECK(again->scheme() == uri.scheme());
    FUZZ_CHECK(again->host() == uri.host());
    FUZZ_CHECK(again->port() == uri.port());
    FUZZ_CHECK(again->path() == uri.path());
    FUZZ_CHECK(again->userInfo() == (uri.hasUserInfo() ? kMask : std::string_view{}));
    FUZZ_CHECK(again->query().size() == uri.query().size());
    for (std::size_t i = 0; i < uri.query().size(); ++i) {
        const auto &[key, value] = uri.query()[i];
        const std::string_view shownValue = again->query()[i].second;
        FUZZ_CHECK(again->query()[i].first == key);
        if (strata::isSecretQueryKey(key)) {
            // An empty value ("?token") has nothing to hide and stays empty.
            FUZZ_CHECK(shownValue == (value.empty() ? std::string_view{} : kMask));
            continue;
        }
        // A value that is a URL with user-info (?endpoint=http://u:p@host) shows
        // "scheme://" + the mask + what follows its last '@'; any other value is shown as is.
        const auto scheme = value.find("://");
        const auto at = value.rfind('@');
        if (scheme == std::string::npos || at == std::string::npos || at < scheme + 3) {
            FUZZ_CHECK(shownValue == value);
        } else {
            FUZZ_CHECK(shownValue.starts_with(std::string_view(value).substr(0, scheme + 3)));
            FUZZ_CHECK(shownValue.substr(scheme + 3).starts_with(kMask));
            FUZZ_CHECK(shownValue.ends_with(std::string_view(value).substr(at)));
            FUZZ_CHECK(shownValue.size() == scheme + 3 + kMask.size() + (value.size() - at));
        }
    }
    // The password itself, as text: absent unless the URI repeats it outside the user-info.
    // (One that shares a character with "REDACTED@" could straddle the mask: not checked.)
    if (const auto colon = uri.userInfo().find(':'); colon != std::string::npos) {
        const std::string password = uri.userInfo().substr(colon + 1);
        if (!password.empty() && password.find_first_of("REDACTED@") == std::string::npos
            && publicText(uri).find(password) == std::string::npos)
            FUZZ_CHECK(shown.find(password) == std::string::npos);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto uri = Uri::parse(text);
    if (!uri)
        return 0;
    // Every parsed URI names an absolute path (or has an authority before it).
    FUZZ_CHECK(uri->hasAuthority() || uri->path().starts_with('/'));

    const std::string printed = uri->toString();
    auto again = Uri::parse(printed);
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(*again == *uri);
    FUZZ_CHECK(again->toString() == printed);

    checkRedacted(*uri);
    return 0;
}

#include "backends/http/uri_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace strata::http {

std::string environment(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool truthy(const std::optional<std::string> &value)
{
    return value && (value->empty() || *value == "1" || *value == "true" || *value == "yes");
}

std::string authority(const Uri &uri)
{
    std::string out = uri.host();
    if (out.find(':') != std::string::npos && !out.starts_with('['))
        out = "[" + out + "]";
    if (auto port = uri.port())
        out += ":" + std::to_string(*port);
    return out;
}

bool environmentNamesHost(const char *variable, const Uri &uri)
{
    return namesHost(environment(variable), uri);
}

Result<Login> loginOf(const Uri &uri, const char *hostVariable, const char *userVariable, const char *passwordVariable)
{
    Login login;
    const bool environmentsHost = environmentNamesHost(hostVariable, uri);
    if (uri.hasUserInfo()) {
        auto user = percentDecode(uri.userInfo());
        if (!user)
            return Error(ErrorKind::InvalidInput, "the user name in the URI has a bad percent escape");
        login.user = std::move(*user);
    } else if (environmentsHost) {
        login.user = environment(userVariable);
    }
    if (environmentsHost)
        login.password = environment(passwordVariable);
    return login;
}

bool netrcNamesHost(std::string_view host)
{
    const std::string home = environment("HOME");
    if (home.empty() || host.empty())
        return false;
    std::FILE *f = std::fopen((home + "/.netrc").c_str(), "re");
    if (!f)
        return false;
    // The file's tokens, split on blanks, a "quoted token" kept whole (as libcurl reads
    // them); the bodies of "macdef" (up to an empty line) are not tokens.
    std::string token, previous;
    bool quoted = false, inMacro = false, found = false;
    int c = 0, last = '\n';
    auto endToken = [&] {
        if (token.empty())
            return;
        if (previous == "machine" && token.size() == host.size()
            && std::equal(token.begin(), token.end(), host.begin(), [](char a, char b) {
                   return std::tolower((unsigned char)a) == std::tolower((unsigned char)b);
               }))
            found = true;
        if (token == "macdef")
            inMacro = true;
        previous = std::move(token);
        token.clear();
    };
    while (!found && (c = std::fgetc(f)) != EOF) {
        if (inMacro) {
            if (c == '\n' && last == '\n')
                inMacro = false;
        } else if (quoted) {
            if (c == '"')
                quoted = false;
            else
                token.push_back(char(c));
        } else if (c == '"' && token.empty()) {
            quoted = true;
        } else if (std::isspace(c)) {
            endToken();
        } else {
            token.push_back(char(c));
        }
        last = c;
    }
    endToken();
    std::fclose(f);
    return found;
}

Result<int> timeoutOption(const Uri &uri, int fallback)
{
    auto timeout = uri.queryValue("timeout");
    if (!timeout)
        return fallback;
    int seconds = 0;
    const std::string &text = *timeout;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || end != text.data() + text.size() || seconds < 1 || seconds > 3600)
        return Error(ErrorKind::InvalidInput, "timeout must be a number of seconds from 1 to 3600");
    return seconds;
}

} // namespace strata::http

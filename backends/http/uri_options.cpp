#include "backends/http/uri_options.h"

#include <QString>

#include <algorithm>
#include <cctype>
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
    bool ok = false;
    const int seconds = QString::fromStdString(*timeout).toInt(&ok);
    if (!ok || seconds < 1 || seconds > 3600)
        return Error(ErrorKind::InvalidInput, "timeout must be a number of seconds from 1 to 3600");
    return seconds;
}

} // namespace strata::http

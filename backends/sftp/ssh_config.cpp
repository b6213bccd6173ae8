#include "backends/sftp/ssh_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>

#include <fnmatch.h>
#include <glob.h>

namespace strata::sftp {

namespace {

constexpr int kMaxIncludeDepth = 16; // ssh's own limit: an Include loop ends

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// Splits a line's arguments: whitespace separated, "double quoted" ones may hold spaces.
std::vector<std::string> words(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
        if (i >= text.size())
            break;
        std::string word;
        if (text[i] == '"') {
            const auto end = text.find('"', i + 1);
            word = text.substr(i + 1, end == std::string_view::npos ? std::string_view::npos : end - i - 1);
            i = end == std::string_view::npos ? text.size() : end + 1;
        } else {
            const auto start = i;
            while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])))
                ++i;
            word = text.substr(start, i - start);
        }
        out.push_back(std::move(word));
    }
    return out;
}

struct Reader {
    std::string_view alias;
    const SshConfigContext &context;
    SshHostConfig config;

    std::string expand(std::string_view value) const
    {
        std::string out;
        if (value.starts_with("~/") || value == "~") {
            out = context.home;
            value.remove_prefix(1);
        }
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (value[i] != '%' || i + 1 == value.size()) {
                out += value[i];
                continue;
            }
            switch (value[++i]) {
            case 'd': out += context.home; break;
            case 'u': out += context.localUser; break;
            case 'h': out += config.hostName.empty() ? std::string(alias) : config.hostName; break;
            case 'n': out += alias; break;
            case 'r': out += config.user; break;
            case '%': out += '%'; break;
            default: out += '%', out += value[i];
            }
        }
        return out;
    }

    void apply(const std::string &key, const std::vector<std::string> &args)
    {
        if (args.empty())
            return;
        if (key == "hostname" && config.hostName.empty()) {
            config.hostName = args[0];
        } else if (key == "user" && config.user.empty()) {
            config.user = args[0];
        } else if (key == "port" && !config.port) {
            unsigned port = 0;
            const auto *end = args[0].data() + args[0].size();
            if (auto [p, ec] = std::from_chars(args[0].data(), end, port);
                ec == std::errc() && p == end && port > 0 && port < 65536)
                config.port = std::uint16_t(port);
        } else if (key == "identityfile") {
            if (lower(args[0]) != "none")
                config.identityFiles.push_back(expand(args[0]));
        } else if (key == "userknownhostsfile" && config.knownHostsFiles.empty()) {
            for (const auto &file : args)
                if (lower(file) != "none")
                    config.knownHostsFiles.push_back(expand(file));
        } else if (key == "identitiesonly" && !config.identitiesOnly) {
            config.identitiesOnly = lower(args[0]) == "yes";
        } else if (key == "connecttimeout" && !config.connectTimeout) {
            int seconds = 0;
            if (auto [p, ec] = std::from_chars(args[0].data(), args[0].data() + args[0].size(), seconds);
                ec == std::errc() && seconds > 0)
                config.connectTimeout = seconds;
        }
    }

    void read(const std::string &path, int depth)
    {
        std::ifstream in(path);
        if (!in || depth > kMaxIncludeDepth)
            return;
        bool active = true; // lines before the first Host apply to every host
        std::string line;
        while (std::getline(in, line)) {
            auto start = line.find_first_not_of(" \t\r");
            if (start == std::string::npos || line[start] == '#')
                continue;
            std::string_view rest(line);
            rest.remove_prefix(start);
            while (!rest.empty() && (rest.back() == '\r' || std::isspace(static_cast<unsigned char>(rest.back()))))
                rest.remove_suffix(1);
            // "Keyword value", "Keyword=value" or "Keyword = value".
            auto keyEnd = rest.find_first_of(" \t=");
            const std::string key = lower(rest.substr(0, keyEnd));
            std::string_view value = keyEnd == std::string_view::npos ? std::string_view() : rest.substr(keyEnd);
            while (!value.empty() && (std::isspace(static_cast<unsigned char>(value.front()))))
                value.remove_prefix(1);
            if (!value.empty() && value.front() == '=')
                value.remove_prefix(1);
            const auto args = words(value);
            if (key == "host") {
                std::string patterns;
                for (const auto &a : args)
                    patterns += a + " ";
                active = hostMatches(patterns, alias);
            } else if (key == "match") {
                active = false;
            } else if (key == "include" && active) {
                for (const auto &pattern : args)
                    include(pattern, depth);
            } else if (active) {
                apply(key, args);
            }
        }
    }

    void include(const std::string &pattern, int depth)
    {
        std::string full = expand(pattern);
        if (!full.starts_with('/'))
            full = context.home + "/.ssh/" + full; // relative to ~/.ssh, as ssh does for the user's file
        glob_t found{};
        if (::glob(full.c_str(), 0, nullptr, &found) == 0)
            for (std::size_t i = 0; i < found.gl_pathc; ++i)
                read(found.gl_pathv[i], depth + 1);
        ::globfree(&found);
    }
};

} // namespace

bool hostMatches(std::string_view patterns, std::string_view host)
{
    const std::string name = lower(host);
    bool matched = false;
    for (const auto &word : words(patterns)) {
        const bool negated = word.starts_with('!');
        const std::string pattern = lower(negated ? std::string_view(word).substr(1) : std::string_view(word));
        if (::fnmatch(pattern.c_str(), name.c_str(), 0) != 0)
            continue;
        if (negated)
            return false;
        matched = true;
    }
    return matched;
}

SshHostConfig readSshConfig(const std::string &path, std::string_view alias, const SshConfigContext &context)
{
    Reader reader{alias, context, {}};
    reader.read(path, 0);
    return std::move(reader.config);
}

} // namespace strata::sftp

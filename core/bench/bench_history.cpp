// Where finished benchmark runs are kept, and how a saved run names what ran (bench_runner.h).
#include "core/bench/bench_runner.h"

#include <cctype>
#include <cstdlib>

namespace strata {

std::string benchHistoryDir()
{
    // $XDG_DATA_HOME, else ~/.local/share (the XDG base directory rules).
    if (const char *data = std::getenv("XDG_DATA_HOME"); data && *data == '/')
        return std::string(data) + "/strata/bench";
    const char *home = std::getenv("HOME");
    return std::string(home && *home ? home : "") + "/.local/share/strata/bench";
}

namespace {
constexpr std::string_view kHistoryPrefix = "# strata bench of ";
} // namespace

std::string historyHeader(std::string_view target, std::string_view label)
{
    std::string h(kHistoryPrefix);
    h += target;
    if (!label.empty())
        h += " (" + std::string(label) + ")";
    return h + "\n";
}

std::string historyFileName(std::string_view stamp, std::string_view label, std::string_view target)
{
    // Letters, digits, '.' and '_' kept; every other run of characters one '-', none at the
    // ends; the scheme's "://" and a trailing '/' make no "-" of their own.
    std::string slug;
    for (const char c : label.empty() ? target : label) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_')
            slug.push_back(c);
        else if (!slug.empty() && slug.back() != '-')
            slug.push_back('-');
    }
    while (!slug.empty() && (slug.back() == '-' || slug.back() == '.'))
        slug.pop_back();
    if (slug.size() > 60)
        slug.resize(60);
    return std::string(stamp) + (slug.empty() ? "" : "-" + slug) + ".txt";
}

std::optional<HistoryHeader> parseHistoryHeader(std::string_view line)
{
    if (!line.starts_with(kHistoryPrefix))
        return std::nullopt;
    line.remove_prefix(kHistoryPrefix.size());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    HistoryHeader h;
    const auto open = line.rfind(" (");
    if (line.ends_with(')') && open != std::string_view::npos) {
        h.label = std::string(line.substr(open + 2, line.size() - open - 3));
        line = line.substr(0, open);
    }
    h.target = std::string(line);
    return h;
}

std::string relabelHistory(std::string_view text, std::string_view label)
{
    const auto end = text.find('\n');
    const std::string_view first = text.substr(0, end);
    if (auto h = parseHistoryHeader(first))
        return historyHeader(h->target, label) + std::string(end == std::string_view::npos ? "" : text.substr(end + 1));
    return historyHeader("", label) + std::string(text);
}

} // namespace strata

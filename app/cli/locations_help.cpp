#include "app/cli/locations_help.h"

#include "core/storage/registry.h"

namespace strata::cli {

namespace {

std::string replaced(std::string text, std::string_view from, std::string_view to)
{
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
    return text;
}

std::string joined(const std::vector<std::string> &parts, std::string_view between)
{
    std::string out;
    for (const std::string &p : parts)
        out += (out.empty() ? "" : std::string(between)) + p;
    return out;
}

std::string optionText(const BackendOption &o)
{
    return "?" + o.name + (o.value.empty() ? "" : "=" + o.value);
}

} // namespace

std::string roff(std::string_view text)
{
    std::string out = replaced(std::string(text), "\\", "\\e");
    out = replaced(out, "…", "...");
    out = replaced(out, "—", "\\(em");
    if (out.starts_with('.') || out.starts_with('\''))
        out.insert(0, "\\&");
    return out;
}

std::string locationsHelp(const Registry &registry)
{
    constexpr std::size_t kWidth = 96;
    std::string text = "Locations (a plain path is a local file; options follow '?', joined by '&'):\n";
    for (const BackendDescription &d : registry.descriptions()) {
        text += "  " + d.title + ": " + joined(d.forms, ", ") + "\n";
        std::string line = "      ";
        for (const BackendOption &o : d.options) {
            const std::string word = optionText(o);
            if (line.size() + 1 + word.size() > kWidth && line.size() > 6) {
                text += line + "\n";
                line = "      ";
            }
            line += (line.size() > 6 ? " " : "") + word;
        }
        if (line.size() > 6)
            text += line + "\n";
    }
    return text;
}

std::string locationsManSection(const Registry &registry)
{
    std::string t = ".SH LOCATIONS\nA plain path is a local file. A URI's options follow \\fB?\\fR, joined by "
                    "\\fB&\\fR.\n";
    for (const BackendDescription &d : registry.descriptions()) {
        std::vector<std::string> forms;
        for (const std::string &f : d.forms)
            forms.push_back("\\fB" + roff(f) + "\\fR");
        t += ".TP\n" + joined(forms, ", ") + "\n" + roff(d.title + (d.summary.empty() ? "." : ": " + d.summary)) + "\n";
        if (d.options.empty())
            continue;
        t += ".RS\n";
        for (const BackendOption &o : d.options)
            t += ".TP\n\\fB?" + roff(o.name) + "\\fR"
                + (o.value.empty() ? "" : "\\fB=\\fR\\fI" + roff(o.value) + "\\fR") + "\n" + roff(o.help) + "\n";
        t += ".RE\n";
    }
    return t;
}

} // namespace strata::cli

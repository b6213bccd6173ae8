#include "app/cli/args.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace strata::cli {

namespace {

// Characters, not bytes: "…" is one column.
std::size_t columns(std::string_view text)
{
    return std::size_t(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string optionSyntax(const Option &option)
{
    std::string text;
    for (const auto &name : option.names) {
        if (!text.empty())
            text += ", ";
        text += (name.size() == 1 ? "-" : "--") + name;
    }
    if (!option.valueName.empty())
        text += " <" + option.valueName + ">";
    return text;
}

// "  NAME   description…" with the description wrapped at 79 columns under itself.
void appendRow(std::string &out, const std::string &name, const std::string &description, std::size_t nameWidth)
{
    const std::size_t indent = 2 + nameWidth + 2;
    std::string line = "  " + name;
    line.append(indent - 2 - columns(name), ' ');
    std::size_t width = indent;
    std::size_t pos = 0;
    bool firstWord = true;
    while (pos < description.size()) {
        std::size_t end = description.find(' ', pos);
        if (end == std::string::npos)
            end = description.size();
        const std::string_view word(description.data() + pos, end - pos);
        if (!firstWord && width + 1 + columns(word) > 79) {
            out += line + "\n";
            line.assign(indent, ' ');
            width = indent;
            firstWord = true;
        }
        if (!firstWord) {
            line += ' ';
            ++width;
        }
        line += word;
        width += columns(word);
        firstWord = false;
        pos = end + 1;
    }
    out += line + "\n";
}

} // namespace

std::string format(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, args);
    va_end(args);
    std::string out(n > 0 ? std::size_t(n) : 0, '\0');
    if (n > 0)
        std::vsnprintf(out.data(), out.size() + 1, fmt, again);
    va_end(again);
    return out;
}

const Option *ArgParser::find(std::string_view name) const
{
    for (const auto &option : m_options)
        if (std::find(option.names.begin(), option.names.end(), name) != option.names.end())
            return &option;
    return nullptr;
}

bool ArgParser::parse(const std::vector<std::string> &args)
{
    m_given.clear();
    m_positional.clear();
    m_error.clear();
    m_command = args.empty() ? std::string() : args[0];
    bool optionsEnded = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (optionsEnded || a.size() < 2 || a[0] != '-') {
            m_positional.push_back(a);
            continue;
        }
        if (a == "--") {
            optionsEnded = true;
            continue;
        }
        if (a[1] == '-') { // --name, --name=value, --name value
            const std::size_t eq = a.find('=');
            const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const Option *option = find(name);
            if (!option || name.size() < 2) {
                m_error = "Unknown option '" + name + "'.";
                return false;
            }
            if (option->valueName.empty()) {
                if (eq != std::string::npos) {
                    m_error = "Unexpected value after '--" + name + "'.";
                    return false;
                }
                m_given.emplace_back(option, std::string());
            } else if (eq != std::string::npos) {
                m_given.emplace_back(option, a.substr(eq + 1));
            } else if (i + 1 < args.size()) {
                m_given.emplace_back(option, args[++i]);
            } else {
                m_error = "Missing value after '--" + name + "'.";
                return false;
            }
            continue;
        }
        // -abc: short flags together; a short option with a value takes the rest or the
        // next argument.
        for (std::size_t k = 1; k < a.size(); ++k) {
            const std::string name(1, a[k]);
            const Option *option = find(name);
            if (!option) {
                m_error = "Unknown option '" + name + "'.";
                return false;
            }
            if (option->valueName.empty()) {
                m_given.emplace_back(option, std::string());
                continue;
            }
            if (k + 1 < a.size()) {
                m_given.emplace_back(option, a.substr(k + 1 + (a[k + 1] == '=' ? 1 : 0)));
            } else if (i + 1 < args.size()) {
                m_given.emplace_back(option, args[++i]);
            } else {
                m_error = "Missing value after '-" + name + "'.";
                return false;
            }
            break;
        }
    }
    return true;
}

bool ArgParser::isSet(std::string_view name) const
{
    const Option *option = find(name);
    return option && std::any_of(m_given.begin(), m_given.end(), [&](const auto &g) { return g.first == option; });
}

std::string ArgParser::value(std::string_view name) const
{
    auto all = values(name);
    return all.empty() ? std::string() : all.back();
}

std::vector<std::string> ArgParser::values(std::string_view name) const
{
    std::vector<std::string> out;
    const Option *option = find(name);
    for (const auto &[given, value] : m_given)
        if (given == option && option)
            out.push_back(value);
    return out;
}

std::string ArgParser::helpText() const
{
    std::string text = "Usage: " + m_command + (m_options.empty() ? "" : " [options]")
        + (m_syntax.empty() ? "" : " " + m_syntax) + "\n";
    if (!m_description.empty())
        text += m_description + "\n";
    std::size_t width = m_syntax.empty() ? 0 : columns(m_syntax);
    for (const auto &option : m_options)
        width = std::max(width, columns(optionSyntax(option)));
    if (!m_options.empty()) {
        text += "\nOptions:\n";
        for (const auto &option : m_options)
            appendRow(text, optionSyntax(option), option.description, width);
    }
    if (!m_syntax.empty()) {
        text += "\nArguments:\n";
        appendRow(text, m_syntax, m_description, width);
    }
    return text;
}

} // namespace strata::cli

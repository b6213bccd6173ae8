#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace strata::cli {

// One command-line option: its names ("r" is -r, "recursive" is --recursive), help text,
// and the name of its value for options that take one ("N": --jobs N, --jobs=N).
struct Option {
    Option(std::string name, std::string help, std::string value = {})
        : names{std::move(name)}, description(std::move(help)), valueName(std::move(value))
    {
    }
    Option(std::initializer_list<std::string> all, std::string help, std::string value = {})
        : names(all), description(std::move(help)), valueName(std::move(value))
    {
    }

    std::vector<std::string> names;
    std::string description;
    std::string valueName; // empty: a flag
};

// Parses one command's arguments, GNU style: short flags compact (-lR), long options take
// their value as --opt=V or --opt V, options may follow positional arguments, and "--"
// ends the options. Qt-free, so the command line starts without QtCore.
class ArgParser {
public:
    void setDescription(std::string text) { m_description = std::move(text); }
    // The positional arguments' syntax for the usage line and help ("SRC… DST").
    void setPositionalSyntax(std::string syntax) { m_syntax = std::move(syntax); }
    void addOption(Option option) { m_options.push_back(std::move(option)); }
    void addOptions(const std::vector<Option> &options)
    {
        m_options.insert(m_options.end(), options.begin(), options.end());
    }

    // args[0] is the command as shown in messages ("strata cp"). False on a mistake,
    // described by errorText().
    bool parse(const std::vector<std::string> &args);
    const std::string &errorText() const { return m_error; }

    // By any of the option's names.
    bool isSet(std::string_view name) const;
    // The last value given ("" when none); values(): all of them, in order.
    std::string value(std::string_view name) const;
    std::vector<std::string> values(std::string_view name) const;
    const std::vector<std::string> &positionalArguments() const { return m_positional; }

    std::string helpText() const;
    const std::vector<Option> &options() const { return m_options; }

private:
    const Option *find(std::string_view name) const;

    std::string m_command;
    std::string m_description;
    std::string m_syntax;
    std::vector<Option> m_options;
    std::vector<std::pair<const Option *, std::string>> m_given; // option, value
    std::vector<std::string> m_positional;
    std::string m_error;
};

// printf into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace strata::cli

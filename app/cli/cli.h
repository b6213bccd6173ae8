#pragma once

#include "app/cli/args.h"
#include "core/storage/registry.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace strata::cli {

// Exit codes: 0 success, 1 an operation failed, 2 the command line was wrong.
enum ExitCode { Success = 0, Failure = 1, Usage = 2 };

// What a command runs with: where to write, the registry, and how to turn an argument
// (URI, absolute or relative path) into a location.
class Context {
public:
    Context(Registry &reg, std::FILE *output, std::FILE *errors) : registry(reg), out(output), err(errors) {}

    Registry &registry;
    std::FILE *out;
    std::FILE *err;
    std::string commandName;

    Result<Location> open(const std::string &argument);
    // Prints "strata: <one sentence>" and returns Failure.
    int fail(const Error &error);
    // Prints "strata: warning: <message>" (control characters escaped).
    void warn(std::string_view message);
    // Prints "strata CMD: <message>" with a usage hint and returns Usage.
    int usage(const std::string &message);
};

using Handler = int (*)(Context &, const ArgParser &);

// One subcommand: its name, arguments, options and handler; also the source of --help,
// the man page and shell completions, so these cannot drift apart.
struct CommandSpec {
    std::string name;
    std::string arguments; // "URI", "SRC DST"
    std::string summary;
    std::vector<Option> options;
    int minArgs = 1;
    int maxArgs = 1; // -1: any number
    Handler handler = nullptr;
};

const std::vector<CommandSpec> &commands();
// `strata open`: the desktop app on what it names (run by the GUI; here for its --help and
// the man page).
const CommandSpec &openCommand();
// The options every command takes besides its own (help, verbose, accept-new-host-key):
// parsed by run(), described once by the man page and the completions.
const std::vector<Option> &commonOptions();
// Whether argv[1] selects the command line rather than the GUI.
bool wantsCommandLine(const std::vector<std::string> &arguments);
// Runs `strata ARGS…` (arguments[0] is the program name) with the backends that
// `registerBackends` adds to the command's registry.
int run(const std::vector<std::string> &arguments, void (*registerBackends)(Registry &), std::FILE *out = stdout,
        std::FILE *err = stderr);

} // namespace strata::cli

#pragma once

#include "core/storage/registry.h"

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdio>

class QCommandLineParser;

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
    QString commandName;

    Result<Location> open(const QString &argument);
    // Prints "strata: <one sentence>" and returns Failure.
    int fail(const Error &error);
    // Prints "strata CMD: <message>" with a usage hint and returns Usage.
    int usage(const QString &message);
};

using Handler = int (*)(Context &, const QCommandLineParser &);

// One subcommand: its name, arguments, options and handler; also the source of --help,
// the man page and shell completions, so these cannot drift apart.
struct CommandSpec {
    QString name;
    QString arguments; // "URI", "SRC DST"
    QString summary;
    QList<QCommandLineOption> options;
    int minArgs = 1;
    int maxArgs = 1; // -1: any number
    Handler handler = nullptr;
};

const QList<CommandSpec> &commands();
// Whether argv[1] selects the command line rather than the GUI.
bool wantsCommandLine(const QStringList &arguments);
// Runs `strata ARGS…` (arguments[0] is the program name).
int run(const QStringList &arguments, std::FILE *out = stdout, std::FILE *err = stderr);

} // namespace strata::cli

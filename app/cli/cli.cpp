#include "app/cli/cli.h"

#include "app/cli/commands.h"
#include "app/version.h"
#include "backends/builtin_backends.h"

#include <QCommandLineParser>
#include <QDir>
#include <QRegularExpression>

namespace strata::cli {

namespace {

QCommandLineOption verboseOption()
{
    return {{QStringLiteral("v"), QStringLiteral("verbose")},
            QStringLiteral("Log each storage request to stderr (secrets are never shown).")};
}

QCommandLineOption jsonOption()
{
    return {QStringLiteral("json"), QStringLiteral("Print stable, machine-readable JSON.")};
}

void print(std::FILE *f, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    std::fwrite(utf8.constData(), 1, std::size_t(utf8.size()), f);
}

QString globalHelp()
{
    QString text = QStringLiteral("Strata %1 — browse, move and measure storage.\n\n"
                                  "Usage: strata [COMMAND] [OPTIONS] ARGS…\n"
                                  "       strata            (no command) opens the desktop app\n"
                                  "       strata open [--benchmarks|--usage] [FOLDER|IMAGE|RESULTS.bench…]\n"
                                  "                         opens it on folders, disk images or benchmark files\n\n"
                                  "Commands:\n")
                       .arg(QStringLiteral(STRATA_VERSION));
    for (const auto &c : commands())
        text += QStringLiteral("  %1 %2\n").arg(c.name, -8).arg(c.summary);
    text += QStringLiteral("\nLocations: file:///path (or a plain path), memory://STORE/path.\n"
                           "Global options: -v/--verbose, --version, -h/--help.\n"
                           "Run 'strata COMMAND --help' for a command's options.\n");
    return text;
}

} // namespace

Result<Location> Context::open(const QString &argument)
{
    // "scheme://…" or a registered "scheme:…" is a URI; anything else is a local path,
    // relative to the current directory (so "notes:v2.txt" is a file, not a scheme).
    static const QRegularExpression schemeRe(QStringLiteral("^([A-Za-z][A-Za-z0-9+.-]*):"));
    const auto match = schemeRe.match(argument);
    const std::string text = argument.toStdString();
    bool isUri = argument.contains(QStringLiteral("://"));
    if (!isUri && match.hasMatch()) {
        const auto schemes = registry.schemes();
        isUri = std::find(schemes.begin(), schemes.end(), match.captured(1).toLower().toStdString()) != schemes.end();
    }
    if (isUri || argument.startsWith(QLatin1Char('/')))
        return registry.open(text);
    if (argument.isEmpty())
        return Error(ErrorKind::InvalidInput, "the location is empty").setOperation("open");
    return registry.open(Uri::fromLocalPath(QDir::current().absoluteFilePath(argument).toStdString()));
}

int Context::fail(const Error &error)
{
    print(err, QStringLiteral("strata: %1\n").arg(QString::fromStdString(error.message())));
    return Failure;
}

int Context::usage(const QString &message)
{
    print(err, QStringLiteral("strata %1: %2\nTry 'strata %1 --help'.\n").arg(commandName, message));
    return Usage;
}

const QList<CommandSpec> &commands()
{
    static const QList<CommandSpec> list = [] {
        const QCommandLineOption json = jsonOption();
        QList<CommandSpec> l;
        l.append({QStringLiteral("ls"), QStringLiteral("URI"), QStringLiteral("List a directory (or show one object)."),
                  {{QStringLiteral("l"), QStringLiteral("Long format: kind, permissions, size, modification time.")},
                   {QStringLiteral("a"), QStringLiteral("Show hidden entries (names starting with '.').")},
                   {{QStringLiteral("R"), QStringLiteral("recursive")},
                    QStringLiteral("List the whole tree below (one flat listing where the storage offers it).")},
                   json},
                  1, 1, &commandLs});
        l.append({QStringLiteral("stat"), QStringLiteral("URI"), QStringLiteral("Show what is known about one object."),
                  {json}, 1, 1, &commandStat});
        const QList<QCommandLineOption> walkOptions{
            {QStringLiteral("follow"), QStringLiteral("Descend into symlinked directories (each directory once, loops cost nothing).")},
            {QStringLiteral("exclude"), QStringLiteral("Skip names matching GLOB and all below them (repeatable; a GLOB with '/' matches the relative path)."), QStringLiteral("GLOB")},
            {QStringLiteral("one-file-system"), QStringLiteral("Do not descend into directories on other file systems.")},
            {QStringLiteral("threads"), QStringLiteral("Directories read at once (default: the CPU count locally, 16 remotely)."), QStringLiteral("N")}};
        {
            QList<QCommandLineOption> o = walkOptions;
            o.append({QStringLiteral("max-depth"), QStringLiteral("Go at most N levels below URI."), QStringLiteral("N")});
            o.append({QStringLiteral("json"), QStringLiteral("One JSON object per line: path, kind, size, allocated, depth.")});
            l.append({QStringLiteral("walk"), QStringLiteral("URI"),
                      QStringLiteral("Print every path below URI (like find URI -mindepth 1), fast, in parallel."), o, 1, 1,
                      &commandWalk});
        }
        {
            QList<QCommandLineOption> o = walkOptions;
            o.append({QStringLiteral("depth"), QStringLiteral("Show directories down to N levels (default 1; 0: the total only)."), QStringLiteral("N")});
            o.append({QStringLiteral("top"), QStringLiteral("Show only the N largest."), QStringLiteral("N")});
            o.append({QStringLiteral("apparent"), QStringLiteral("Sizes as files claim them, not the space they use.")});
            o.append(json);
            l.append({QStringLiteral("du"), QStringLiteral("URI"),
                      QStringLiteral("Disk usage: totals per directory, largest first (hard links once)."), o, 1, 1, &commandDu});
        }
        l.append({QStringLiteral("bench"), QStringLiteral("URI"),
                  QStringLiteral("Benchmark a location: ns/op, MB/s, B/op, allocs/op per operation and size, Go's format."),
                  {{QStringLiteral("ops"), QStringLiteral("Operations, from write,read,stat,list,delete (default write,read)."), QStringLiteral("LIST")},
                   {QStringLiteral("sizes"), QStringLiteral("Object sizes (default 4KiB,256KiB,4MiB,16MiB)."), QStringLiteral("LIST")},
                   {QStringLiteral("count"), QStringLiteral("Runs of each benchmark (default 6)."), QStringLiteral("N")},
                   {QStringLiteral("benchtime"), QStringLiteral("Target duration of each run (default 1s)."), QStringLiteral("D")},
                   {QStringLiteral("concurrency"), QStringLiteral("Workers sharing the operations (default 1), like 1,4,16."), QStringLiteral("LIST")},
                   {QStringLiteral("label"), QStringLiteral("A name for this run (in the output and the history)."), QStringLiteral("NAME")},
                   {QStringLiteral("vs"), QStringLiteral("Also run on URI2, run by run in turn, and compare."), QStringLiteral("URI2")},
                   {QStringLiteral("csv"), QStringLiteral("CSV instead of Go's benchmark format.")},
                   json},
                  1, 1, &commandBench});
        l.append({QStringLiteral("benchstat"), QStringLiteral("OLD.txt NEW.txt…"),
                  QStringLiteral("Compare Go benchmark results like benchstat: medians, 95 % intervals, Mann-Whitney p, geomean."),
                  {{QStringLiteral("format"), QStringLiteral("text (default), csv or json."), QStringLiteral("F")},
                   {QStringLiteral("alpha"), QStringLiteral("Significance level (default 0.05)."), QStringLiteral("A")}},
                  1, -1, &commandBenchstat});
        l.append({QStringLiteral("extents"), QStringLiteral("URI"),
                  QStringLiteral("Show where a file's or a disk image's data is: data, zero and hole ranges."),
                  {json}, 1, 1, &commandExtents});
        l.append({QStringLiteral("cat"), QStringLiteral("URI"), QStringLiteral("Write an object's bytes to stdout."),
                  {{QStringLiteral("offset"), QStringLiteral("Start at byte N."), QStringLiteral("N")},
                   {QStringLiteral("length"), QStringLiteral("Write at most N bytes."), QStringLiteral("N")}},
                  1, 1, &commandCat});
        const QList<QCommandLineOption> transferOptions{
            {QStringLiteral("verify"), QStringLiteral("Re-read each copy and compare checksums; a mismatch is an error.")},
            {QStringLiteral("progress"), QStringLiteral("Show progress on stderr even when it is not a terminal.")},
            {QStringLiteral("progress-fd"), QStringLiteral("Also write progress as 'N/100' lines, one per percent, to file descriptor FD."), QStringLiteral("FD")},
            {QStringLiteral("jobs"), QStringLiteral("Files copied at once (default 8)."), QStringLiteral("N")},
            {QStringLiteral("bwlimit"), QStringLiteral("Limit the transfer rate, like 50M (bytes per second)."), QStringLiteral("RATE")},
            {QStringLiteral("zstd-level"), QStringLiteral("Compression level (1-22) for destinations ending in .zst."), QStringLiteral("N")},
            {QStringLiteral("part-size"), QStringLiteral("Split large files into parts of this size, copied in parallel (default 32M)."), QStringLiteral("SIZE")},
            {QStringLiteral("sync"), QStringLiteral("Make each copy durable (fsync) before it is published.")},
            {QStringLiteral("ignore-case"), QStringLiteral("The destination takes names that differ only in case as one name (found out by itself on local FAT, exFAT, NTFS, SMB and casefold folders); of sources that would collide, the first is copied and the others are refused.")},
            json};
        auto with = [](QList<QCommandLineOption> options, const QList<QCommandLineOption> &more) {
            options.append(more);
            return options;
        };
        l.append({QStringLiteral("cp"), QStringLiteral("SRC… DST"),
                  QStringLiteral("Copy objects or trees (-r) between any two locations."),
                  with({{{QStringLiteral("r"), QStringLiteral("recursive")}, QStringLiteral("Copy directories and their contents.")},
                        {QStringLiteral("overwrite"), QStringLiteral("Replace objects that exist at the destination.")},
                        {{QStringLiteral("n"), QStringLiteral("skip-existing")}, QStringLiteral("Keep objects that exist at the destination.")}},
                       transferOptions),
                  2, -1, &commandCp});
        l.append({QStringLiteral("mv"), QStringLiteral("SRC… DST"),
                  QStringLiteral("Move objects or trees: a rename on one backend, else copy then remove."),
                  with({{QStringLiteral("overwrite"), QStringLiteral("Replace objects that exist at the destination.")},
                        {{QStringLiteral("n"), QStringLiteral("no-clobber")}, QStringLiteral("Never replace an existing object.")}},
                       transferOptions),
                  2, -1, &commandMv});
        l.append({QStringLiteral("sync"), QStringLiteral("SRC DST"),
                  QStringLiteral("Make DST like SRC: copy what is missing or differs (size, time)."),
                  with({{QStringLiteral("dry-run"), QStringLiteral("Print what would be done; change nothing.")},
                        {QStringLiteral("delete"), QStringLiteral("Also delete what DST has and SRC does not.")},
                        {{QStringLiteral("c"), QStringLiteral("checksum")},
                         QStringLiteral("Compare files of the same size by checksum instead of modification time.")}},
                       transferOptions),
                  2, 2, &commandSync});
        l.append({QStringLiteral("rm"), QStringLiteral("URI…"), QStringLiteral("Remove objects."),
                  {{{QStringLiteral("r"), QStringLiteral("recursive")}, QStringLiteral("Remove directories and their contents.")},
                   {{QStringLiteral("f"), QStringLiteral("force")}, QStringLiteral("Ignore missing objects.")}},
                  1, -1, &commandRm});
        l.append({QStringLiteral("mkdir"), QStringLiteral("URI…"), QStringLiteral("Create directories."),
                  {{{QStringLiteral("p"), QStringLiteral("parents")},
                    QStringLiteral("Create missing parents; no error if it exists.")}},
                  1, -1, &commandMkdir});
        return l;
    }();
    return list;
}

bool wantsCommandLine(const QStringList &arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        if (a == QLatin1String("-v") || a == QLatin1String("--verbose"))
            continue;
        // `strata open FILE…`, the desktop entry's command: the window, never a command.
        if (a == QLatin1String("open"))
            return false;
        return true; // a command, --help, --version or a mistake the CLI should report
    }
    return false;
}

int run(const QStringList &arguments, std::FILE *out, std::FILE *err)
{
    QStringList args = arguments;
    bool verbose = false;
    // Global options before the command.
    while (args.size() > 1 && args[1].startsWith(QLatin1Char('-'))) {
        const QString a = args[1];
        if (a == QLatin1String("-v") || a == QLatin1String("--verbose")) {
            verbose = true;
            args.removeAt(1);
        } else if (a == QLatin1String("--version")) {
            print(out, QStringLiteral("strata %1\n").arg(QStringLiteral(STRATA_VERSION)));
            return Success;
        } else if (a == QLatin1String("-h") || a == QLatin1String("--help") || a == QLatin1String("help")) {
            print(out, globalHelp());
            return Success;
        } else {
            print(err, QStringLiteral("strata: unknown option '%1'\n\n").arg(a) + globalHelp());
            return Usage;
        }
    }
    if (args.size() < 2) {
        print(err, globalHelp());
        return Usage;
    }
    const QString name = args[1];
    if (name == QLatin1String("help")) {
        print(out, globalHelp());
        return Success;
    }
    const auto &all = commands();
    auto spec = std::find_if(all.begin(), all.end(), [&](const CommandSpec &c) { return c.name == name; });
    if (spec == all.end()) {
        print(err, QStringLiteral("strata: unknown command '%1'\n\n").arg(name) + globalHelp());
        return Usage;
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(spec->summary);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsCompactedShortOptions);
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    parser.addOption(help);
    parser.addOption(verboseOption());
    parser.addOptions(spec->options);
    parser.addPositionalArgument(spec->arguments, spec->summary);

    QStringList commandArgs = args.mid(1);
    commandArgs[0] = QStringLiteral("strata ") + name;
    if (!parser.parse(commandArgs)) {
        print(err, QStringLiteral("strata %1: %2\nTry 'strata %1 --help'.\n").arg(name, parser.errorText()));
        return Usage;
    }
    if (parser.isSet(help)) {
        print(out, parser.helpText());
        return Success;
    }

    OperatorOptions options;
    if (verbose || parser.isSet(QStringLiteral("verbose")))
        options.log = [err](std::string_view line) {
            std::fprintf(err, "strata: %.*s\n", int(line.size()), line.data());
        };
    Registry registry(std::move(options));
    registerBuiltinBackends(registry);
    Context context(registry, out, err);
    context.commandName = name;
    const auto positional = parser.positionalArguments();
    if (positional.size() < spec->minArgs)
        return context.usage(QStringLiteral("expects %1").arg(spec->arguments));
    if (spec->maxArgs >= 0 && positional.size() > spec->maxArgs)
        return context.usage(QStringLiteral("takes only %1").arg(spec->arguments));
    return spec->handler(context, parser);
}

} // namespace strata::cli

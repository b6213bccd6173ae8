#include "app/cli/cli.h"

#include "core/storage/printable.h"

#include "app/cli/commands.h"
#include "app/version.h"

#include "app/cli/cli_output.h"
#include "app/cli/locations_help.h"

#include <algorithm>
#include <cctype>

#include <unistd.h>

namespace strata::cli {

namespace {

Option jsonOption()
{
    return {"json", "Print stable, machine-readable JSON."};
}

std::string globalHelp(void (*registerBackends)(Registry &))
{
    std::string text = "Strata " STRATA_VERSION " — browse, move and measure storage.\n\n"
                       "Usage: strata [COMMAND] [OPTIONS] ARGS…\n"
                       "       strata            (no command) opens the desktop app\n"
                       "       strata open [--benchmarks|--usage] [FOLDER|IMAGE|URI|RESULTS.bench…]\n"
                       "                         opens it on folders, disk images, storage URIs or benchmark files\n\n"
                       "Commands:\n";
    for (const auto &c : commands())
        text += "  " + pad(c.name, -8) + " " + c.summary + "\n";
    Registry registry;
    registerBackends(registry);
    text += "\n" + locationsHelp(registry) + "\n";
    text += "Global options: -v/--verbose, --accept-new-host-key, --version, -h/--help.\n"
            "Run 'strata COMMAND --help' for a command's options.\n";
    return text;
}

} // namespace

// "scheme" when `text` starts with "scheme:" (RFC 3986's scheme syntax), else empty.
std::string schemeOf(const std::string &text)
{
    if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0])))
        return {};
    for (std::size_t i = 1; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == ':')
            return text.substr(0, i);
        if (!std::isalnum(c) && c != '+' && c != '.' && c != '-')
            return {};
    }
    return {};
}

std::string currentDir()
{
    std::string buf(4096, '\0');
    while (!::getcwd(buf.data(), buf.size())) {
        if (errno != ERANGE)
            return "/";
        buf.resize(buf.size() * 2);
    }
    buf.resize(std::char_traits<char>::length(buf.c_str()));
    return buf;
}

Result<Location> Context::open(const std::string &argument)
{
    // "scheme://…" or a registered "scheme:…" is a URI; anything else is a local path,
    // relative to the current directory (so "notes:v2.txt" is a file, not a scheme).
    bool isUri = argument.find("://") != std::string::npos;
    if (const std::string scheme = schemeOf(argument); !isUri && !scheme.empty()) {
        std::string lower = scheme;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        const auto schemes = registry.schemes();
        isUri = std::find(schemes.begin(), schemes.end(), lower) != schemes.end();
    }
    if (isUri || argument.starts_with('/'))
        return registry.open(argument);
    if (argument.empty())
        return Error(ErrorKind::InvalidInput, "the location is empty").setOperation("open");
    if (auto remote = scpStyleUri(argument))
        return registry.open(*remote);
    const std::string cwd = currentDir();
    return registry.open(Uri::fromLocalPath(cwd + (cwd.ends_with('/') ? "" : "/") + argument));
}

int Context::fail(const Error &error)
{
    write(err, "strata: " + printable(error.message()) + "\n");
    return Failure;
}

void Context::warn(std::string_view message)
{
    write(err, "strata: warning: " + printable(message) + "\n");
}

int Context::usage(const std::string &message)
{
    write(err, "strata " + commandName + ": " + printable(message) + "\nTry 'strata " + commandName + " --help'.\n");
    return Usage;
}

const std::vector<CommandSpec> &commands()
{
    static const std::vector<CommandSpec> list = [] {
        const Option json = jsonOption();
        std::vector<CommandSpec> l;
        l.push_back({"ls",
                     "URI",
                     "List a directory (or show one object).",
                     {{"l", "Long format: kind, permissions, size, modification time."},
                      {"a", "Show hidden entries (names starting with '.')."},
                      {{"R", "recursive"}, "List the whole tree below (one flat listing where the storage offers it)."},
                      json},
                     1,
                     1,
                     &commandLs});
        l.push_back({"stat",
                     "URI",
                     "Show what is known about one object (on S3 also its type, metadata, tags, retention).",
                     {{"versions", "Also list every stored version of the object (and delete markers)."}, json},
                     1,
                     1,
                     &commandStat});
        l.push_back({"tag",
                     "URI [KEY=VALUE…]",
                     "Show an object's tags, or set exactly these (S3).",
                     {{"clear", "Remove all the object's tags."}, json},
                     1,
                     -1,
                     &commandTag});
        l.push_back({"presign",
                     "URI",
                     "Print a link that downloads the object without credentials, for a while (S3).",
                     {{"expires", "How long the link works: 90s, 30m, 12h, 7d (default 1h, at most 7d).", "D"}},
                     1,
                     1,
                     &commandPresign});
        const std::vector<Option> walkOptions{
            {"follow", "Descend into symlinked directories (each directory once, loops cost nothing)."},
            {"exclude",
             "Skip names matching GLOB and all below them (repeatable; a GLOB with '/' matches the relative path).",
             "GLOB"},
            {"one-file-system", "Do not descend into directories on other file systems."},
            {"threads", "Directories read at once (default: the CPU count locally, 16 remotely).", "N"}};
        {
            std::vector<Option> o = walkOptions;
            o.push_back({"max-depth", "Go at most N levels below URI.", "N"});
            o.push_back({"json", "One JSON object per line: path, path_raw, uri, kind, size, allocated, depth."});
            l.push_back({"walk", "URI", "Print every path below URI (like find URI -mindepth 1), fast, in parallel.", o,
                         1, 1, &commandWalk});
        }
        {
            std::vector<Option> o = walkOptions;
            o.push_back({"name", "Only names matching the shell GLOB (the whole base name, like find -name).", "GLOB"});
            o.push_back({"iname", "Match --name without regard to case (like find -iname)."});
            o.push_back({"size",
                         "Size in units rounded up, like find -size: +10M more than 10 MiB, -4k less than 4 KiB, "
                         "100c exactly 100 bytes (units c w b k M G; none: 512-byte blocks).",
                         "[+-]N"});
            o.push_back({"newer", "Modified after DATE (2026-12-03, '2026-12-03 14:05', ISO 8601) or within AGE (7d).",
                         "DATE"});
            o.push_back({"older", "Not modified after DATE, or not within AGE.", "DATE"});
            o.push_back({"type", "Only files (f), directories (d) or symbolic links (l).", "f|d|l"});
            o.push_back({"min-depth", "Test nothing above N levels below URI (1: not URI itself).", "N"});
            o.push_back({"max-depth", "Go at most N levels below URI.", "N"});
            o.push_back({"json", "One JSON object per line: path, path_raw, uri, kind, size, modified, depth."});
            l.push_back({"find", "URI",
                         "Search below URI by name, size, time and kind, in parallel on any storage (answers as GNU "
                         "find's).",
                         o, 1, 1, &commandFind});
        }
        {
            std::vector<Option> o = walkOptions;
            o.push_back({"depth", "Show directories down to N levels (default 1; 0: the total only).", "N"});
            o.push_back({"top", "Show only the N largest.", "N"});
            o.push_back({"apparent", "Sizes as files claim them, not the space they use."});
            o.push_back({"save", "Save the scan to FILE (every entry and its size, compressed), to reopen or compare.",
                         "FILE"});
            o.push_back({"compare",
                         "Print what grew, shrank, appeared and vanished since the scan saved in OLD, largest change "
                         "first (URI may be another saved scan; --depth limits the levels listed, default all).",
                         "OLD"});
            o.push_back({"kept",
                         "Also count what an object store keeps and bills without listing it: older versions of "
                         "objects and unfinished multipart uploads (where the server keeps and lists them)."});
            o.push_back(json);
            l.push_back({"du", "URI", "Disk usage: totals per directory, largest first (hard links once).", o, 1, 1,
                         &commandDu});
        }
        l.push_back(
            {"bench",
             "URI",
             "Benchmark a location: ns/op, MB/s, B/op, allocs/op and latency percentiles per operation and size, "
             "Go's format.",
             {{"ops", "Operations, from write,read,stat,list,delete (default write,read).", "LIST"},
              {"sizes", "Object sizes (default 4KiB,256KiB,4MiB,16MiB).", "LIST"},
              {"count", "Runs of each benchmark (default 6).", "N"},
              {"benchtime", "Target duration of each run (default 1s).", "D"},
              {"duration", "Run each case for exactly this long instead (like warp and fio; not for delete).", "D"},
              {"concurrency", "Workers sharing the operations (default 1), like 1,4,16; threads on a disk image.",
               "LIST"},
              {"mix", "Mixed mode: workers draw operations by weight, like read=45,write=15,stat=30,delete=10.",
               "LIST"},
              {"profile",
               "On a disk image: 'default' runs KDiskMark's SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1.", "NAME"},
              {"pattern", "On a disk image: seq or rand (default rand).", "P"},
              {"queue-depth", "On a disk image: requests in flight per thread (default 1).", "N"},
              {"direct", "On a local file or device: O_DIRECT, past the page cache."},
              {"region", "On a disk image: the bytes to use, [START+]LENGTH (default the first 1GiB).", "R"},
              {"allow-overwrite", "On a disk image: write even where the region holds data (it is lost)."},
              {"timeline", "Write per-interval ops/s, MB/s, p50 and p99 to FILE.csv while running (with --duration).",
               "FILE"},
              {"interval", "The timeline's interval (default 1s).", "D"},
              {"no-latency", "Skip per-request timing (to measure its cost; no percentiles then)."},
              {"label", "A name for this run (in the output and the history).", "NAME"},
              {"vs", "Also run on URI2, run by run in turn, and compare.", "URI2"},
              {"csv", "CSV instead of Go's benchmark format."},
              {"hosts", "Run from these hosts at once, through ssh: [user@]host[:port],… (each runs strata).", "LIST"},
              {"hosts-file", "The hosts, one [user@]host[:port] a line.", "FILE"},
              {"ssh", "The ssh command for --hosts, like 'ssh -F FILE' (default ssh).", "CMD"},
              {"strata-path", "strata on the hosts (default strata, on their PATH).", "PATH"},
              {"on-host-failure", "stop (default) or continue when a host fails.", "WHAT"},
              {"agent", "Be one host of a run from many (started by --hosts over ssh; reads its input)."},
              json},
             0,
             1,
             &commandBench});
        l.push_back(
            {"benchstat",
             "OLD.txt NEW.txt…",
             "Compare Go benchmark results like benchstat: medians, 95 % intervals, Mann-Whitney p, geomean.",
             {{"format", "text (default), csv or json.", "F"}, {"alpha", "Significance level (default 0.05).", "A"}},
             1,
             -1,
             &commandBenchstat});
        l.push_back({"extents",
                     "URI",
                     "Show where a file's or a disk image's data is: data, zero and hole ranges.",
                     {json},
                     1,
                     1,
                     &commandExtents});
        l.push_back({"cat",
                     "URI",
                     "Write an object's bytes to stdout.",
                     {{"offset", "Start at byte N.", "N"}, {"length", "Write at most N bytes.", "N"}},
                     1,
                     1,
                     &commandCat});
        const std::vector<Option> transferOptions{
            {"verify", "Re-read each copy and compare checksums; a mismatch is an error."},
            {"progress", "Show progress on stderr even when it is not a terminal."},
            {"progress-fd", "Also write progress as 'N/100' lines, one per percent, to file descriptor FD.", "FD"},
            {"jobs", "Files copied at once (default 8).", "N"},
            {"bwlimit", "Limit the transfer rate, like 50M (bytes per second).", "RATE"},
            {"zstd-level", "Compression level (1-22) for destinations ending in .zst.", "N"},
            {"part-size", "Split large files into parts of this size, copied in parallel (default 32M).", "SIZE"},
            {"sync", "Make each copy durable (fsync) before it is published."},
            {"preserve",
             "Keep these exactly, comma-separated: mode (the source's permission bits, umask and set-ID bits included; "
             "without it they are masked as cp does), timestamps (always kept), all.",
             "LIST"},
            {"ignore-case",
             "The destination takes names that differ only in case as one name (found out by itself on local FAT, "
             "exFAT, NTFS, SMB and casefold folders); of sources that would collide, the first is copied and the "
             "others are refused."},
            json};
        auto with = [](std::vector<Option> options, const std::vector<Option> &more) {
            options.insert(options.end(), more.begin(), more.end());
            return options;
        };
        l.push_back({"cp", "SRC… DST", "Copy objects or trees (-r) between any two locations.",
                     with({{{"r", "recursive"}, "Copy directories and their contents."},
                           {"overwrite", "Replace objects that exist at the destination."},
                           {{"n", "skip-existing"}, "Keep objects that exist at the destination."}},
                          transferOptions),
                     2, -1, &commandCp});
        l.push_back({"mv", "SRC… DST", "Move objects or trees: a rename on one backend, else copy then remove.",
                     with({{"overwrite", "Replace objects that exist at the destination."},
                           {{"n", "no-clobber"}, "Never replace an existing object."},
                           {"no-preserve-root",
                            "Allow moving the root of a local file system (file:///), or into it with --overwrite."}},
                          transferOptions),
                     2, -1, &commandMv});
        l.push_back(
            {"sync", "SRC DST", "Make DST like SRC: copy what is missing or differs (size, time).",
             with({{"dry-run", "Print what would be done; change nothing."},
                   {"delete", "Also delete what DST has and SRC does not."},
                   {{"c", "checksum"}, "Compare files of the same size by checksum instead of modification time."},
                   {"no-preserve-root", "Allow --delete on the root of a local file system (file:///)."}},
                  transferOptions),
             2, 2, &commandSync});
        l.push_back({"diff",
                     "A B",
                     "Compare two folders on any storages: what is only in A or B, newer or different (exit 0 alike, "
                     "1 different, 2 trouble).",
                     {{{"c", "checksum"}, "Compare files of the same size by content instead of modification time."},
                      {"exclude", "Skip names matching GLOB and all below them (repeatable).", "GLOB"},
                      json},
                     2,
                     2,
                     &commandDiff});
        l.push_back({"rm",
                     "URI…",
                     "Remove objects.",
                     {{{"r", "recursive"}, "Remove directories and their contents."},
                      {{"f", "force"}, "Ignore missing objects."},
                      {"dry-run", "Print what would be removed; remove nothing."},
                      {"no-preserve-root", "Allow -r on the root of a local file system (file:///)."}},
                     1,
                     -1,
                     &commandRm});
        l.push_back({"mkdir",
                     "URI…",
                     "Create directories.",
                     {{{"p", "parents"}, "Create missing parents; no error if it exists."}},
                     1,
                     -1,
                     &commandMkdir});
        return l;
    }();
    return list;
}

const std::vector<Option> &commonOptions()
{
    static const std::vector<Option> list{
        Option({"h", "help"}, "Show the command's options."),
        Option({"v", "verbose"}, "Log each storage operation to stderr (secrets are never shown)."),
        Option("accept-new-host-key",
               "Trust an SSH server never seen before and add its key to known_hosts (a "
               "changed key is always refused).")};
    return list;
}

const CommandSpec &openCommand()
{
    static const CommandSpec open{
        "open",
        "[FOLDER|IMAGE|URI|RESULTS.bench…]",
        "Open the desktop app on folders, storage URIs, disk images or Go benchmark files.",
        {Option("benchmarks", "Show the Benchmarks page."), Option("usage", "Show the disk usage of the home folder.")},
        0,
        -1,
        nullptr};
    return open;
}

bool wantsCommandLine(const std::vector<std::string> &arguments)
{
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        const std::string &a = arguments[i];
        if (a == "-v" || a == "--verbose" || a == "--accept-new-host-key")
            continue;
        // `strata open FILE…`, the desktop entry's command: the window, never a command;
        // but `strata open --help` is answered here, without a window.
        if (a == "open") {
            for (std::size_t j = i + 1; j < arguments.size(); ++j)
                if (arguments[j] == "-h" || arguments[j] == "--help")
                    return true;
            return false;
        }
        return true; // a command, --help, --version or a mistake the CLI should report
    }
    return false;
}

int run(const std::vector<std::string> &arguments, void (*registerBackends)(Registry &), std::FILE *out, std::FILE *err)
{
    std::vector<std::string> args = arguments;
    bool verbose = false;
    bool acceptNewHostKey = false;
    // Global options before the command.
    while (args.size() > 1 && args[1].starts_with('-')) {
        const std::string a = args[1];
        if (a == "-v" || a == "--verbose") {
            verbose = true;
            args.erase(args.begin() + 1);
        } else if (a == "--accept-new-host-key") {
            acceptNewHostKey = true;
            args.erase(args.begin() + 1);
        } else if (a == "--version") {
            write(out, "strata " STRATA_VERSION "\n");
            return Success;
        } else if (a == "-h" || a == "--help" || a == "help") {
            write(out, globalHelp(registerBackends));
            return Success;
        } else {
            write(err, "strata: unknown option '" + printable(a) + "'\n\n" + globalHelp(registerBackends));
            return Usage;
        }
    }
    if (args.size() < 2) {
        write(err, globalHelp(registerBackends));
        return Usage;
    }
    const std::string name = args[1];
    if (name == "help") {
        write(out, globalHelp(registerBackends));
        return Success;
    }
    const auto &all = commands();
    const CommandSpec *spec = name == "open" ? &openCommand() : nullptr;
    if (auto it = std::find_if(all.begin(), all.end(), [&](const CommandSpec &c) { return c.name == name; });
        it != all.end())
        spec = &*it;
    if (!spec) {
        write(err, "strata: unknown command '" + printable(name) + "'\n\n" + globalHelp(registerBackends));
        return Usage;
    }

    ArgParser parser;
    parser.setDescription(spec->summary);
    parser.setPositionalSyntax(spec->arguments);
    parser.addOptions(commonOptions());
    parser.addOptions(spec->options);

    std::vector<std::string> commandArgs(args.begin() + 1, args.end());
    commandArgs[0] = "strata " + name;
    if (!parser.parse(commandArgs)) {
        write(err, "strata " + name + ": " + printable(parser.errorText()) + "\nTry 'strata " + name + " --help'.\n");
        return Usage;
    }
    if (parser.isSet("help")) {
        write(out, parser.helpText());
        return Success;
    }
    if (!spec->handler) { // `open` without --help is the window's (wantsCommandLine)
        write(err, "strata " + name + ": opens the desktop app; try 'strata " + name + " --help'.\n");
        return Usage;
    }

    OperatorOptions options;
    if (verbose || parser.isSet("verbose"))
        options.log = [err](std::string_view line) {
            // A line holds names and server text (an error's cause, a redirect's Location).
            write(err, "strata: " + printable(line) + "\n");
        };
    Registry registry(std::move(options));
    registerBackends(registry);
    if (acceptNewHostKey || parser.isSet("accept-new-host-key"))
        registry.setPrompts({[err](const HostKeyQuestion &key) {
                                 // As ssh says it: the user sees what was trusted, once.
                                 std::fprintf(err, "strata: added the %s key %s of %s to %s\n", key.keyType.c_str(),
                                              key.fingerprint.c_str(), printable(key.host).c_str(),
                                              key.knownHosts.c_str());
                                 return HostKeyAnswer::Accept;
                             },
                             {}});
    Context context(registry, out, err);
    context.commandName = name;
    const auto &positional = parser.positionalArguments();
    if (int(positional.size()) < spec->minArgs)
        return context.usage("expects " + spec->arguments);
    if (spec->maxArgs >= 0 && int(positional.size()) > spec->maxArgs)
        return context.usage("takes only " + spec->arguments);
    return spec->handler(context, parser);
}

} // namespace strata::cli

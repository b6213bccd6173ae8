// cp, mv and sync: the command line's face of the transfer engine.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt_watch.h"
#include "core/storage/path.h"
#include "core/storage/printable.h"
#include "core/storage/retry_note.h"
#include "core/storage/state_folder.h"
#include "core/transfer/transfer_queue.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace strata::cli {

namespace {

// Draws one progress line on stderr (when it is a terminal, or --progress).
class ProgressBar final : public TransferObserver {
public:
    ProgressBar(std::FILE *err, bool enabled, int fd = -1) : m_err(err), m_enabled(enabled), m_fd(fd) {}
    ~ProgressBar() override { end(); }

    void progress(const std::string &, const TransferProgress &p) override
    {
        if (m_fd >= 0 && !p.planning)
            machineProgress(p);
        if (!m_enabled)
            return;
        std::string line;
        if (p.planning) {
            line = format("finding files: %llu files, ", (unsigned long long)p.filesTotal) + formatSize(p.bytesTotal);
        } else {
            const int percent = p.bytesTotal ? int(p.bytesDone * 100 / p.bytesTotal) : 100;
            line = format("%3d%%  ", percent) + formatSize(p.bytesDone) + " of " + formatSize(p.bytesTotal) + "  "
                + formatSize(std::uint64_t(p.bytesPerSecond)) + "/s";
            if (p.etaSeconds && p.bytesDone < p.bytesTotal)
                line += format("  ETA %llds", (long long)std::llround(*p.etaSeconds));
            if (p.filesTotal > 1)
                line += format("  %llu/%llu files", (unsigned long long)p.filesDone, (unsigned long long)p.filesTotal);
            if (p.filesFailed)
                line += format("  %llu failed", (unsigned long long)p.filesFailed);
        }
        std::lock_guard lock(m_mutex);
        write(m_err, "\r\033[K" + line);
        m_shown = true;
    }

    void end()
    {
        std::lock_guard lock(m_mutex);
        if (m_shown)
            std::fputc('\n', m_err);
        m_shown = false;
    }

    // A line of its own above the bar (drawn again with the next progress).
    void note(const std::string &line)
    {
        std::lock_guard lock(m_mutex);
        write(m_err, (m_shown ? "\r\033[K" : "") + line + "\n");
        m_shown = false;
    }

private:
    // "N/100" once per percent reached, on its own line (nbdcopy's --progress=FD format).
    void machineProgress(const TransferProgress &p)
    {
        const int percent =
            p.bytesTotal ? int(p.bytesDone * 100 / p.bytesTotal) : (p.filesDone >= p.filesTotal ? 100 : 0);
        std::lock_guard lock(m_mutex);
        while (m_lastPercent < percent) {
            ++m_lastPercent;
            char line[16];
            const int n = std::snprintf(line, sizeof line, "%d/100\n", m_lastPercent);
            if (::write(m_fd, line, std::size_t(n)) < 0) {
                m_fd = -1; // the reader went away: stop, the copy goes on
                return;
            }
        }
    }

    std::FILE *m_err;
    bool m_enabled;
    int m_fd;
    int m_lastPercent = -1;
    std::mutex m_mutex;
    bool m_shown = false;
};

// Timeouts and the requests tried again after them (by the storage layers, a backend or
// the copier), said as they happen: a server that stopped answering shows within its
// timeout, not when the last retry gives up (retry_note.h). A text said less than 10 s
// ago is not said again.
class RetryNotes {
public:
    explicit RetryNotes(ProgressBar &bar) : m_bar(bar) { listenForRetries(&RetryNotes::heard, this); }
    ~RetryNotes() { listenForRetries(nullptr, nullptr); }
    RetryNotes(const RetryNotes &) = delete;
    RetryNotes &operator=(const RetryNotes &) = delete;

private:
    static void heard(void *self, const char *text) { static_cast<RetryNotes *>(self)->say(text); }
    void say(std::string_view text) // one at a time (retry_note.cpp)
    {
        const auto now = std::chrono::steady_clock::now();
        if (text == m_last && now - m_when < std::chrono::seconds(10))
            return;
        m_last = text;
        m_when = now;
        // A cause holds server text: escaped, as every line of ours.
        m_bar.note("strata: note: " + printable(text));
    }

    ProgressBar &m_bar;
    std::string m_last;
    std::chrono::steady_clock::time_point m_when;
};

Result<std::string> uriOf(Context &context, const std::string &argument)
{
    auto loc = context.open(argument);
    if (!loc)
        return std::move(loc).error();
    Uri uri = loc->op->uriFor(loc->path);
    // A trailing slash ("dir/", "s3://b/dir/?endpoint=…") means "into this directory".
    const auto typed = Uri::parse(argument);
    const bool into = typed ? typed->path().ends_with('/') : argument.ends_with('/');
    if (into && !uri.path().ends_with('/'))
        uri.setPath(uri.path() + "/");
    // "dir/." (or "."): the directory's contents, not the directory, as cp has it. The
    // planner sees the "/." that normalising the path would otherwise drop.
    const std::string bare = typed && typed->hasAuthority() ? typed->path() : argument;
    if ((bare == "." || bare.ends_with("/.") || bare.ends_with("/./")) && !uri.path().ends_with("/."))
        uri.setPath((uri.path().ends_with('/') ? uri.path() : uri.path() + "/") + ".");
    return uri.toString();
}

std::string interruptedNote(const std::string &id)
{
    return "strata: interrupted; run the same command again to resume where it stopped (job " + id + ")\n";
}

int printReport(Context &context, const TransferReport &report, bool json, bool interrupted, const std::string &id)
{
    if (json) {
        json::Object o = report.toJson();
        o["job"] = id;
        writeJson(context.out, std::move(o));
    } else {
        // Names and server text are escaped: nothing a listing holds can drive the terminal.
        for (const auto &warning : report.warnings)
            write(context.err, "strata: note: " + printable(warning) + "\n");
        for (const auto &action : report.actions)
            write(context.out, printable(action) + "\n");
        for (const auto &f : report.failures)
            write(context.err, "strata: " + printable(f.message) + "\n");
        for (const auto &s : report.notCopied)
            write(context.err, "strata: not copied: " + printable(s.source) + ": " + printable(s.reason) + "\n");
        if (!report.error.empty())
            write(context.err, "strata: " + printable(report.error) + "\n");
        // What the plan refused (no destination: a name that is no path, a kind that cannot
        // be copied) a second run refuses again; only the rest is worth retrying.
        const auto refused = std::uint64_t(std::count_if(report.failures.begin(), report.failures.end(),
                                                         [](const FileFailure &f) { return f.destination.empty(); }));
        const std::uint64_t retryable = report.filesFailed > refused ? report.filesFailed - refused : 0;
        const std::uint64_t total = report.filesFailed + report.filesCopied + report.filesSkipped;
        if (retryable > 0)
            write(context.err,
                  format("strata: %llu of %llu files failed; %llu copied. Run the same command again to "
                         "retry the failed ones.\n",
                         (unsigned long long)retryable, (unsigned long long)total,
                         (unsigned long long)report.filesCopied));
        if (refused > 0)
            write(context.err,
                  format("strata: %llu of %llu entries were left alone for the reasons above (a second "
                         "run would leave them too); %llu copied.\n",
                         (unsigned long long)refused, (unsigned long long)total,
                         (unsigned long long)report.filesCopied));
    }
    if (interrupted) {
        write(context.err, interruptedNote(id));
        return 130;
    }
    switch (report.state) {
    case JobState::Completed: return Success;
    default: return Failure;
    }
}

int runTransfer(Context &context, const ArgParser &parser, TransferMode mode)
{
    const auto &args = parser.positionalArguments();
    TransferSpec spec;
    auto &options = spec.options;
    options.mode = mode;
    options.recursive = mode != TransferMode::Copy || parser.isSet("recursive");
    options.verify = parser.isSet("verify");
    options.sync = parser.isSet("sync");
    if (mode == TransferMode::Sync || parser.isSet("overwrite"))
        options.existing = ExistingPolicy::Overwrite;
    const char *keep = mode == TransferMode::Move ? "no-clobber" : "skip-existing";
    if (mode != TransferMode::Sync && parser.isSet(keep))
        options.existing = ExistingPolicy::Skip;
    if (mode == TransferMode::Sync) {
        options.deleteExtra = parser.isSet("delete");
        options.dryRun = parser.isSet("dry-run");
        options.compareContent = parser.isSet("checksum");
    }
    if (mode != TransferMode::Copy)
        options.allowLocalRoot = parser.isSet("no-preserve-root");
    if (parser.isSet("ignore-case"))
        options.destinationIgnoresCase = true;
    if (parser.isSet("preserve")) {
        const std::string list = parser.value("preserve");
        for (std::size_t pos = 0; pos <= list.size();) {
            const std::size_t comma = std::min(list.find(',', pos), list.size());
            const std::string item = list.substr(pos, comma - pos);
            if (item == "mode" || item == "all")
                options.preserveMode = true;
            else if (item != "timestamps")
                return context.usage("--preserve takes mode, timestamps or all, not '" + printable(item) + "'");
            pos = comma + 1;
        }
    }
    if (parser.isSet("jobs")) {
        const auto jobs = parseNumber<int>(parser.value("jobs"));
        options.jobs = jobs.value_or(0);
        if (options.jobs < 1 || options.jobs > 256)
            return context.usage("--jobs takes a number from 1 to 256");
    }
    if (parser.isSet("bwlimit")) {
        auto rate = parseSize(parser.value("bwlimit"));
        if (!rate)
            return context.usage("--bwlimit takes a rate in bytes per second, like 50M or 1.5GiB");
        options.bandwidthLimit = *rate;
    }
    if (parser.isSet("zstd-level")) {
        const auto level = parseNumber<int>(parser.value("zstd-level"));
        options.zstdLevel = level.value_or(0);
        if (options.zstdLevel < 1 || options.zstdLevel > 22)
            return context.usage("--zstd-level takes a number from 1 to 22");
    }
    if (parser.isSet("part-size")) {
        auto size = parseSize(parser.value("part-size"));
        if (!size || *size < options.chunkSize)
            return context.usage("--part-size takes a size of at least 1MiB, like 64M");
        options.partSize = *size;
    }
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        auto uri = uriOf(context, args[i]);
        if (!uri)
            return context.fail(uri.error());
        spec.sources.push_back(std::move(*uri));
    }
    auto destination = uriOf(context, args.back());
    if (!destination)
        return context.fail(destination.error());
    spec.destination = std::move(*destination);

    const bool json = parser.isSet("json");
    int progressFd = -1;
    if (parser.isSet("progress-fd")) {
        progressFd = parseNumber<int>(parser.value("progress-fd")).value_or(-1);
        if (progressFd < 0 || ::fcntl(progressFd, F_GETFD) == -1)
            return context.usage("--progress-fd takes the number of an open file descriptor");
    }
    const std::string journals = options.dryRun ? std::string() : defaultJournalDir();
    if (!journals.empty())
        for (const std::string &dir : {std::string(parentPath(journals)), journals})
            if (auto st = checkStateFolder(dir); !st)
                return context.fail(st.error());
    ProgressBar bar(context.err, !json && (parser.isSet("progress") || ::isatty(fileno(context.err))), progressFd);
    InterruptWatch interrupts;
    RetryNotes notes(bar);
    TransferQueue queue(context.registry, QueueOptions{journals, 1}, &bar);
    queue.restore();
    std::string id;
    if (auto earlier = queue.findByIdentity(spec.identity())) {
        id = *earlier;
        write(context.err, "strata: resuming an interrupted transfer (job " + id + ")\n");
        if (auto st = queue.resume(id, options); !st)
            return context.fail(st.error());
    } else {
        auto created = queue.enqueue(spec);
        if (!created)
            return context.fail(created.error());
        id = *created;
    }
    // This thread only waits: it looks for Ctrl-C meanwhile (a pause within 50 ms) rather
    // than start a thread to watch for it. A pause is over within 2 s, whatever a library
    // waits for: past kCutAfter every connection is cut (Registry::hangUp(); the requests
    // waiting fail at once, writers suspend as for any failure), and past kEndAfter (a DNS
    // lookup, a server that took a socket we do not know) the process ends as it stands.
    // The journal is written line by line as the job goes, so the same command resumes
    // either way, and what the job had not written yet is what a rerun writes.
    using Clock = std::chrono::steady_clock;
    std::optional<Clock::time_point> interrupted;
    bool cut = false;
    while (!queue.waitFor(id, std::chrono::milliseconds(50))) {
        if (!interrupted && interrupts.arrived()) {
            interrupted = Clock::now();
            (void)queue.pause(id);
        }
        const auto waited = interrupted ? Clock::now() - *interrupted : Clock::duration::zero();
        if (interrupted && !cut && waited >= InterruptWatch::kCutAfter) {
            context.registry.hangUp();
            cut = true;
        }
        if (interrupted && waited >= InterruptWatch::kEndAfter) {
            bar.end();
            InterruptWatch::endNow(context.err, interruptedNote(id));
        }
    }
    bar.end();
    auto report = queue.report(id);
    return printReport(context, report ? *report : TransferReport{}, json, interrupts.interrupted(), id);
}

} // namespace

int commandCp(Context &context, const ArgParser &parser)
{
    return runTransfer(context, parser, TransferMode::Copy);
}

int commandMv(Context &context, const ArgParser &parser)
{
    const auto &args = parser.positionalArguments();
    // One object on one backend: a rename, instant and atomic.
    if (args.size() == 2) {
        auto src = context.open(args[0]);
        auto dst = src ? context.open(args[1]) : src;
        const bool replace = parser.isSet("overwrite") && !parser.isSet("no-clobber");
        const bool allowRoot = parser.isSet("no-preserve-root");
        if (src && dst) {
            // As the transfer's planner does: refused before anything is looked at.
            if (auto st = src->op->guardLocalRoot(src->path, "move it (a move removes its source)", "move", allowRoot);
                !st)
                return context.fail(st.error());
            if (auto st = dst->op->guardLocalRoot(dst->path, "replace what is in it", "move to", allowRoot || !replace);
                !st)
                return context.fail(st.error());
        }
        if (src && dst && src->sameBackend(*dst) && src->op->capabilities().has(Capability::Rename)) {
            std::string target = dst->path;
            if (auto there = dst->op->stat(target); there && there->isDir())
                target = joinPath(dst->path, baseName(src->path));
            auto st = src->op->rename(src->path, target, replace);
            if (st)
                return Success;
            if (st.error().kind() == ErrorKind::AlreadyExists)
                return context.fail(Error(ErrorKind::AlreadyExists,
                                          replace || parser.isSet("no-clobber")
                                              ? "nothing was moved"
                                              : "nothing was moved (--overwrite replaces it)")
                                        .withContext("move to", dst->op->display(target)));
            if (st.error().kind() != ErrorKind::Unsupported)
                return context.fail(st.error());
        }
    }
    return runTransfer(context, parser, TransferMode::Move);
}

int commandSync(Context &context, const ArgParser &parser)
{
    return runTransfer(context, parser, TransferMode::Sync);
}

} // namespace strata::cli

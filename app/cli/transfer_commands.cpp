// cp, mv and sync: the command line's face of the transfer engine.
#include "app/cli/cli.h"
#include "app/cli/cli_output.h"
#include "app/cli/interrupt_watch.h"
#include "app/cli/commands.h"
#include "core/storage/path.h"
#include "core/transfer/transfer_queue.h"

#include <QCommandLineParser>
#include <QJsonDocument>

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <thread>
#include <fcntl.h>
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
        QString line;
        if (p.planning) {
            line = QStringLiteral("finding files: %1 files, %2").arg(p.filesTotal).arg(humanSize(p.bytesTotal));
        } else {
            const int percent = p.bytesTotal ? int(p.bytesDone * 100 / p.bytesTotal) : 100;
            line = QStringLiteral("%1%  %2 of %3  %4/s").arg(percent, 3).arg(humanSize(p.bytesDone), humanSize(p.bytesTotal),
                                                                          humanSize(std::uint64_t(p.bytesPerSecond)));
            if (p.etaSeconds && p.bytesDone < p.bytesTotal)
                line += QStringLiteral("  ETA %1s").arg(qint64(*p.etaSeconds + 0.5));
            if (p.filesTotal > 1)
                line += QStringLiteral("  %1/%2 files").arg(p.filesDone).arg(p.filesTotal);
            if (p.filesFailed)
                line += QStringLiteral("  %1 failed").arg(p.filesFailed);
        }
        std::lock_guard lock(m_mutex);
        write(m_err, QStringLiteral("\r\033[K") + line);
        m_shown = true;
    }

    void end()
    {
        std::lock_guard lock(m_mutex);
        if (m_shown)
            std::fputc('\n', m_err);
        m_shown = false;
    }

private:
    // "N/100" once per percent reached, on its own line (nbdcopy's --progress=FD format).
    void machineProgress(const TransferProgress &p)
    {
        const int percent = p.bytesTotal ? int(p.bytesDone * 100 / p.bytesTotal) : (p.filesDone >= p.filesTotal ? 100 : 0);
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

Result<std::string> uriOf(Context &context, const QString &argument)
{
    auto loc = context.open(argument);
    if (!loc)
        return std::move(loc).error();
    Uri uri = loc->op->uriFor(loc->path);
    // A trailing slash ("dir/", "s3://b/dir/?endpoint=…") means "into this directory".
    const auto typed = Uri::parse(argument.toStdString());
    const bool into = typed ? typed->path().ends_with('/') : argument.endsWith(QLatin1Char('/'));
    if (into && !uri.path().ends_with('/'))
        uri.setPath(uri.path() + "/");
    // "dir/." (or "."): the directory's contents, not the directory, as cp has it. The
    // planner sees the "/." that normalising the path would otherwise drop.
    const QString bare = typed && typed->hasAuthority() ? QString::fromStdString(typed->path()) : argument;
    if ((bare == QLatin1String(".") || bare.endsWith(QLatin1String("/.")) || bare.endsWith(QLatin1String("/./")))
        && !uri.path().ends_with("/."))
        uri.setPath((uri.path().ends_with('/') ? uri.path() : uri.path() + "/") + ".");
    return uri.toString();
}

int printReport(Context &context, const TransferReport &report, bool json, bool interrupted, const std::string &id)
{
    if (json) {
        QJsonObject o = report.toJson();
        o[QStringLiteral("job")] = QString::fromStdString(id);
        const QByteArray text = QJsonDocument(o).toJson(QJsonDocument::Indented);
        std::fwrite(text.constData(), 1, std::size_t(text.size()), context.out);
    } else {
        for (const auto &warning : report.warnings)
            write(context.err, QStringLiteral("strata: note: %1\n").arg(QString::fromStdString(warning)));
        for (const auto &action : report.actions)
            write(context.out, QString::fromStdString(action) + QLatin1Char('\n'));
        for (const auto &f : report.failures)
            write(context.err, QStringLiteral("strata: %1\n").arg(QString::fromStdString(f.message)));
        for (const auto &s : report.notCopied)
            write(context.err, QStringLiteral("strata: not copied: %1: %2\n")
                                   .arg(QString::fromStdString(s.source), QString::fromStdString(s.reason)));
        if (!report.error.empty())
            write(context.err, QStringLiteral("strata: %1\n").arg(QString::fromStdString(report.error)));
        if (report.filesFailed > 0)
            write(context.err, QStringLiteral("strata: %1 of %2 files failed; %3 copied. Run the same command again to retry the failed ones.\n")
                                   .arg(report.filesFailed)
                                   .arg(report.filesFailed + report.filesCopied + report.filesSkipped)
                                   .arg(report.filesCopied));
    }
    if (interrupted) {
        write(context.err, QStringLiteral("strata: interrupted; run the same command again to resume where it stopped (job %1)\n")
                               .arg(QString::fromStdString(id)));
        return 130;
    }
    switch (report.state) {
    case JobState::Completed: return Success;
    default: return Failure;
    }
}

int runTransfer(Context &context, const QCommandLineParser &parser, TransferMode mode)
{
    const auto args = parser.positionalArguments();
    TransferSpec spec;
    auto &options = spec.options;
    options.mode = mode;
    options.recursive = mode != TransferMode::Copy || parser.isSet(QStringLiteral("recursive"));
    options.verify = parser.isSet(QStringLiteral("verify"));
    options.sync = parser.isSet(QStringLiteral("sync"));
    if (mode == TransferMode::Sync || parser.isSet(QStringLiteral("overwrite")))
        options.existing = ExistingPolicy::Overwrite;
    const QString keep = mode == TransferMode::Move ? QStringLiteral("no-clobber") : QStringLiteral("skip-existing");
    if (mode != TransferMode::Sync && parser.isSet(keep))
        options.existing = ExistingPolicy::Skip;
    if (mode == TransferMode::Sync) {
        options.deleteExtra = parser.isSet(QStringLiteral("delete"));
        options.dryRun = parser.isSet(QStringLiteral("dry-run"));
        options.compareContent = parser.isSet(QStringLiteral("checksum"));
    }
    if (parser.isSet(QStringLiteral("ignore-case")))
        options.destinationIgnoresCase = true;
    if (parser.isSet(QStringLiteral("jobs"))) {
        bool ok = false;
        options.jobs = parser.value(QStringLiteral("jobs")).toInt(&ok);
        if (!ok || options.jobs < 1 || options.jobs > 256)
            return context.usage(QStringLiteral("--jobs takes a number from 1 to 256"));
    }
    if (parser.isSet(QStringLiteral("bwlimit"))) {
        auto rate = parseSize(parser.value(QStringLiteral("bwlimit")));
        if (!rate)
            return context.usage(QStringLiteral("--bwlimit takes a rate in bytes per second, like 50M or 1.5GiB"));
        options.bandwidthLimit = *rate;
    }
    if (parser.isSet(QStringLiteral("zstd-level"))) {
        bool ok = false;
        options.zstdLevel = parser.value(QStringLiteral("zstd-level")).toInt(&ok);
        if (!ok || options.zstdLevel < 1 || options.zstdLevel > 22)
            return context.usage(QStringLiteral("--zstd-level takes a number from 1 to 22"));
    }
    if (parser.isSet(QStringLiteral("part-size"))) {
        auto size = parseSize(parser.value(QStringLiteral("part-size")));
        if (!size || *size < options.chunkSize)
            return context.usage(QStringLiteral("--part-size takes a size of at least 1MiB, like 64M"));
        options.partSize = *size;
    }
    for (qsizetype i = 0; i + 1 < args.size(); ++i) {
        auto uri = uriOf(context, args[i]);
        if (!uri)
            return context.fail(uri.error());
        spec.sources.push_back(std::move(*uri));
    }
    auto destination = uriOf(context, args.back());
    if (!destination)
        return context.fail(destination.error());
    spec.destination = std::move(*destination);

    const bool json = parser.isSet(QStringLiteral("json"));
    int progressFd = -1;
    if (parser.isSet(QStringLiteral("progress-fd"))) {
        bool ok = false;
        progressFd = parser.value(QStringLiteral("progress-fd")).toInt(&ok);
        if (!ok || progressFd < 0 || ::fcntl(progressFd, F_GETFD) == -1)
            return context.usage(QStringLiteral("--progress-fd takes the number of an open file descriptor"));
    }
    ProgressBar bar(context.err, !json && (parser.isSet(QStringLiteral("progress")) || ::isatty(fileno(context.err))), progressFd);
    InterruptWatch interrupts;
    TransferQueue queue(context.registry, QueueOptions{options.dryRun ? std::string() : defaultJournalDir(), 1}, &bar);
    queue.restore();
    std::string id;
    if (auto earlier = queue.findByIdentity(spec.identity())) {
        id = *earlier;
        write(context.err, QStringLiteral("strata: resuming an interrupted transfer (job %1)\n").arg(QString::fromStdString(id)));
        if (auto st = queue.resume(id, options); !st)
            return context.fail(st.error());
    } else {
        auto created = queue.enqueue(spec);
        if (!created)
            return context.fail(created.error());
        id = *created;
    }
    interrupts.watch([&queue, id] { (void)queue.pause(id); });
    queue.wait(id);
    bar.end();
    auto report = queue.report(id);
    return printReport(context, report ? *report : TransferReport{}, json, interrupts.interrupted(), id);
}

} // namespace

int commandCp(Context &context, const QCommandLineParser &parser)
{
    return runTransfer(context, parser, TransferMode::Copy);
}

int commandMv(Context &context, const QCommandLineParser &parser)
{
    const auto args = parser.positionalArguments();
    // One object on one backend: a rename, instant and atomic.
    if (args.size() == 2) {
        auto src = context.open(args[0]);
        auto dst = src ? context.open(args[1]) : src;
        if (src && dst && src->sameBackend(*dst) && src->op->capabilities().has(Capability::Rename)) {
            std::string target = dst->path;
            if (auto there = dst->op->stat(target); there && there->isDir())
                target = joinPath(dst->path, baseName(src->path));
            if (parser.isSet(QStringLiteral("no-clobber")) && dst->op->stat(target))
                return context.fail(Error(ErrorKind::AlreadyExists, "nothing was moved (--no-clobber)")
                                        .withContext("move to", dst->op->display(target)));
            auto st = src->op->rename(src->path, target);
            if (st)
                return Success;
            if (st.error().kind() != ErrorKind::Unsupported)
                return context.fail(st.error());
        }
    }
    return runTransfer(context, parser, TransferMode::Move);
}

int commandSync(Context &context, const QCommandLineParser &parser)
{
    return runTransfer(context, parser, TransferMode::Sync);
}

} // namespace strata::cli

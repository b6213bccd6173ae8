#include "ui/bench/bench_job.h"

#include "core/storage/uri.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSysInfo>
#include <QThread>

#include <mutex>

namespace strata {

namespace {

// Go's header lines. Not the target: benchstat splits tables by configuration, and runs
// of two targets must stay comparable (the file name and label say which is which).
std::vector<std::pair<std::string, std::string>> runConfig()
{
    const QString arch = QSysInfo::buildCpuArchitecture();
    return {{"goos", "linux"},
            {"goarch", arch == QLatin1String("x86_64") ? std::string("amd64") : arch.toStdString()},
            {"pkg", "strata"}};
}

void saveToHistory(const std::vector<BenchSet> &sets, const std::vector<TimelinePoint> &timeline)
{
    const QString dir = QString::fromStdString(benchHistoryDir());
    QDir().mkpath(dir);
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    for (const auto &set : sets) {
        const std::string target = set.label.toStdString();
        QFile file(dir + QLatin1Char('/') + QString::fromStdString(historyFileName(stamp.toStdString(), {}, target)));
        if (file.open(QIODevice::WriteOnly))
            file.write(QByteArray::fromStdString(historyHeader(target, {}) + formatGoBench(set.results)
                                                 + flagLines(set.flags)));
        // This target's intervals, beside it.
        const int index = int(&set - sets.data());
        std::string csv;
        for (const auto &p : timeline)
            if (p.target == index)
                csv += timelineCsvLine(p, target);
        if (!csv.empty()) {
            QFile side(historyTimelinePath(file.fileName()));
            if (side.open(QIODevice::WriteOnly))
                side.write(QByteArray::fromStdString(timelineCsvHeader() + csv));
        }
    }
}

// A run from many hosts: one file, every host's lines after the merged ones (Go's host:
// key tells them apart), and the timeline beside it (target "all" or the host).
void saveHostsToHistory(const std::string &target, const std::vector<BenchResult> &results,
                        const std::vector<TimelinePoint> &timeline, const QStringList &names)
{
    const QString dir = QString::fromStdString(benchHistoryDir());
    QDir().mkpath(dir);
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QFile file(dir + QLatin1Char('/') + QString::fromStdString(historyFileName(stamp.toStdString(), {}, target)));
    if (file.open(QIODevice::WriteOnly))
        file.write(QByteArray::fromStdString(historyHeader(target, {}) + formatGoBench(results)));
    std::string csv;
    for (const auto &p : timeline)
        if (p.target >= 0 && p.target < names.size())
            csv += timelineCsvLine(p, names[p.target].toStdString());
    if (!csv.empty()) {
        QFile side(historyTimelinePath(file.fileName()));
        if (side.open(QIODevice::WriteOnly))
            side.write(QByteArray::fromStdString(timelineCsvHeader() + csv));
    }
}

} // namespace

QString historyTimelinePath(const QString &historyPath)
{
    QString base = historyPath;
    if (base.endsWith(QLatin1String(".txt")))
        base.chop(4);
    return base + QStringLiteral(".timeline.csv");
}

BenchJob::BenchJob(Registry &registry, QObject *parent) : QObject(parent), m_registry(registry) {}

BenchJob::~BenchJob()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void BenchJob::start(std::vector<std::string> uris, BenchOptions options)
{
    launch([this, registry = &m_registry, uris = std::move(uris), options = std::move(options)](std::stop_token stop) {
        std::vector<Location> locations;
        for (const auto &uri : uris) {
            auto at = registry->open(uri);
            if (!at) {
                QMetaObject::invokeMethod(
                    this, [this, e = QString::fromStdString(at.error().message())] { done(e, {}, {}); },
                    Qt::QueuedConnection);
                return;
            }
            locations.push_back(*at);
        }
        std::vector<std::pair<Operator *, std::string>> targets;
        for (auto &l : locations)
            targets.emplace_back(l.op.get(), l.path);
        // Intervals come from the runs' sampler threads, one run after another.
        std::mutex timelineMutex;
        std::vector<TimelinePoint> timeline;
        auto runs = runBench(
            targets, options, stop,
            [this](const BenchRun &) {
                QMetaObject::invokeMethod(
                    this, [this] { Q_EMIT progressed(); }, Qt::QueuedConnection);
            },
            [&](const TimelinePoint &p) {
                {
                    std::lock_guard lock(timelineMutex);
                    timeline.push_back(p);
                }
                QMetaObject::invokeMethod(
                    this, [this, p] { Q_EMIT timelinePoint(p); }, Qt::QueuedConnection);
            });
        std::vector<BenchSet> sets;
        QString error;
        if (!runs) {
            error = QString::fromStdString(runs.error().message());
        } else {
            const int procs = std::max(1, QThread::idealThreadCount());
            for (std::size_t i = 0; i < runs->size(); ++i) {
                BenchSet set{QString::fromStdString(locations[i].display()),
                             {},
                             checkRuns((*runs)[i], benchTarget(locations[i].op->uriFor("/")))};
                for (const auto &run : (*runs)[i]) {
                    BenchResult r = toBenchResult(run, procs);
                    r.config = runConfig();
                    set.results.push_back(std::move(r));
                }
                sets.push_back(std::move(set));
            }
        }
        QMetaObject::invokeMethod(
            this,
            [this, error, sets = std::move(sets), timeline = std::move(timeline)]() mutable {
                done(error, std::move(sets), std::move(timeline));
            },
            Qt::QueuedConnection);
    });
}

void BenchJob::startHosts(FleetPlan plan)
{
    launch([this, plan = std::move(plan)](std::stop_token stop) {
        FleetObserver observer;
        observer.stopRequested = [&stop] { return stop.stop_requested(); };
        observer.merged = [this](const BenchRun &) {
            QMetaObject::invokeMethod(
                this, [this] { Q_EMIT progressed(); }, Qt::QueuedConnection);
        };
        // Intervals with histograms would carry 60 KiB each to the GUI thread: they go
        // without (p50 and p99 are in the point).
        std::vector<TimelinePoint> timeline;
        observer.interval = [&](int host, const TimelinePoint &given) {
            TimelinePoint p = given;
            p.latency.reset();
            p.target = host + 1;
            timeline.push_back(p);
            QMetaObject::invokeMethod(
                this, [this, p] { Q_EMIT timelinePoint(p); }, Qt::QueuedConnection);
        };
        auto report = runFleet(plan, observer);
        QString error;
        std::vector<BenchSet> sets;
        std::vector<BenchResult> saved; // all hosts', then each host's (Go's host: key)
        if (!report) {
            error = QString::fromStdString(report.error().message());
        } else {
            const int procs = std::max(1, QThread::idealThreadCount());
            const auto parsed = Uri::parse(plan.uri);
            const std::string shown = parsed ? parsed->redacted() : std::string("the location");
            BenchSet set{QString::fromStdString(shown) + tr(" · %n host(s)", nullptr, int(plan.hosts.size())), {}, {}};
            for (const auto &run : report->merged) {
                BenchResult r = toBenchResult(run, procs);
                r.config = runConfig();
                set.results.push_back(r);
                r.config.emplace_back("host", "all");
                saved.push_back(std::move(r));
            }
            for (const auto &h : report->hosts)
                for (const auto &run : h.runs) {
                    BenchResult r = toBenchResult(run, procs);
                    r.config = runConfig();
                    r.config.emplace_back("host", h.name);
                    saved.push_back(std::move(r));
                }
            sets.push_back(std::move(set));
        }
        QMetaObject::invokeMethod(
            this,
            [this, error, sets = std::move(sets), saved = std::move(saved), timeline = std::move(timeline),
             hosts = plan.hosts, report = report ? std::optional(std::move(*report)) : std::nullopt]() mutable {
                m_running = false;
                if (error.isEmpty() && !sets.empty()) {
                    QStringList names{tr("all")};
                    for (const auto &h : hosts)
                        names << QString::fromStdString(h.name);
                    saveHostsToHistory(sets.front().label.toStdString(), saved, timeline, names);
                }
                if (report)
                    Q_EMIT hostsReported(*report);
                Q_EMIT finished(error, sets);
            },
            Qt::QueuedConnection);
    });
}

void BenchJob::checkHosts(FleetPlan plan)
{
    launch([this, plan = std::move(plan)](std::stop_token stop) {
        auto hosts = checkFleet(plan, [&stop] { return stop.stop_requested(); });
        QMetaObject::invokeMethod(
            this,
            [this, hosts = std::move(hosts)] {
                m_running = false;
                Q_EMIT checked(hosts);
            },
            Qt::QueuedConnection);
    });
}

void BenchJob::launch(std::function<void(std::stop_token)> work)
{
    if (m_running)
        return;
    if (m_worker.joinable())
        m_worker.join();
    m_running = true;
    m_worker = std::jthread(std::move(work));
}

void BenchJob::stop()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void BenchJob::done(const QString &error, std::vector<BenchSet> sets, std::vector<TimelinePoint> timeline)
{
    m_running = false;
    if (error.isEmpty())
        saveToHistory(sets, timeline); // kept in the history, as the command line's runs are
    Q_EMIT finished(error, sets);
}

} // namespace strata

#include "ui/bench_job.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSysInfo>
#include <QThread>

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

void saveToHistory(const std::vector<BenchSet> &sets)
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
    }
}

} // namespace

BenchJob::BenchJob(Registry &registry, QObject *parent) : QObject(parent), m_registry(registry) {}

BenchJob::~BenchJob()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void BenchJob::start(std::vector<std::string> uris, BenchOptions options)
{
    if (m_running)
        return;
    if (m_worker.joinable())
        m_worker.join();
    m_running = true;
    m_worker = std::jthread(
        [this, registry = &m_registry, uris = std::move(uris), options = std::move(options)](std::stop_token stop) {
            std::vector<Location> locations;
            for (const auto &uri : uris) {
                auto at = registry->open(uri);
                if (!at) {
                    QMetaObject::invokeMethod(
                        this, [this, e = QString::fromStdString(at.error().message())] { done(e, {}); },
                        Qt::QueuedConnection);
                    return;
                }
                locations.push_back(*at);
            }
            std::vector<std::pair<Operator *, std::string>> targets;
            for (auto &l : locations)
                targets.emplace_back(l.op.get(), l.path);
            auto runs = runBench(targets, options, stop, [this](const BenchRun &) {
                QMetaObject::invokeMethod(
                    this, [this] { Q_EMIT progressed(); }, Qt::QueuedConnection);
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
                this, [this, error, sets = std::move(sets)]() mutable { done(error, std::move(sets)); },
                Qt::QueuedConnection);
        });
}

void BenchJob::stop()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void BenchJob::done(const QString &error, std::vector<BenchSet> sets)
{
    m_running = false;
    if (error.isEmpty())
        saveToHistory(sets); // kept in the history, as the command line's runs are
    Q_EMIT finished(error, sets);
}

} // namespace strata

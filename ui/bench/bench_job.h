#pragma once

#include "core/bench/bench_fleet.h"
#include "core/bench/bench_runner.h"
#include "core/storage/registry.h"
#include "ui/bench/bench_charts.h"

#include <QObject>

#include <functional>
#include <thread>
#include <vector>

namespace strata {

// One benchmark run for the desktop app, on a thread of its own: opens the connections,
// runs the matrix (targets taking turns), turns the runs into Go benchmark results and
// keeps them in the history like the command line's, with the run's timeline beside each
// (historyTimelinePath). Reports on the GUI thread.
// Where the timeline of the saved run `historyPath` ("….txt") is kept: "….timeline.csv".
QString historyTimelinePath(const QString &historyPath);

class BenchJob : public QObject {
    Q_OBJECT
public:
    BenchJob(Registry &registry, QObject *parent = nullptr);
    ~BenchJob() override; // stops the run and waits: it removes what it wrote first

    void start(std::vector<std::string> uris, BenchOptions options);
    // The same from many hosts at once (bench_fleet.h): the timeline's target 0 is all
    // hosts together, target 1 + i the plan's host i; hostsReported() comes before
    // finished(), whose one set holds the merged runs. Saved with every host's runs (Go's
    // `host:` key) and its timeline.
    void startHosts(FleetPlan plan);
    // Reaches each host as a run would (hello, version, clock) and lets it go: checked().
    void checkHosts(FleetPlan plan);
    void stop();
    bool running() const { return m_running; }

Q_SIGNALS:
    void progressed(); // one more run done
    // An interval of a fixed-time run (options.timelineInterval), as it ends.
    void timelinePoint(const strata::TimelinePoint &point);
    // error is one sentence (empty on success); sets, one per connection, are saved.
    void finished(const QString &error, const std::vector<strata::BenchSet> &sets);
    void hostsReported(const strata::FleetReport &report);
    void checked(const std::vector<strata::FleetHostReport> &hosts);

private:
    // Runs `work` on the job's thread, unless a run is going.
    void launch(std::function<void(std::stop_token)> work);
    void done(const QString &error, std::vector<BenchSet> sets, std::vector<TimelinePoint> timeline);

    Registry &m_registry;
    bool m_running = false;
    std::jthread m_worker; // last: stopped and joined before the members it uses go
};

} // namespace strata

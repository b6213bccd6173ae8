// Jobs under control: atomic publication, pause, resume, cancel, restart, progress.
#include "tests/transfer/transfer_suite.h"

#include <QThread>

namespace strata::test {

namespace {

constexpr std::uint64_t kSlowSize = 48u << 20;
constexpr std::uint64_t kSlowRate = 48'000'000; // a second for kSlowSize

bool hasTemporaryName(const std::vector<std::string> &names)
{
    return std::any_of(names.begin(), names.end(), [](const std::string &n) { return n.starts_with(".strata"); });
}

} // namespace

void TransferSuite::nothingUnderFinalNameUntilDone()
{
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("slow.bin"), 32u << 20, 3));
    auto o = options();
    o.bandwidthLimit = 64'000'000; // half a second
    const auto id = start(spec({m_src->uri("slow.bin")}, m_dst->uri("slow.bin"), o));
    QVERIFY(waitForBytes(id, 4u << 20));
    int absent = 0;
    while (!isFinal(*m_queue->state(id))) {
        // Seen before all bytes moved would mean a half-written file under the name.
        const bool there = exists(m_dst->op(), m_dst->path("slow.bin"));
        const auto progress = m_queue->progress(id);
        if (there)
            QCOMPARE(progress->bytesDone, progress->bytesTotal);
        else
            ++absent;
        QThread::msleep(20);
    }
    QVERIFY2(absent >= 3, "the copy ended before it could be watched");
    REQUIRE_COMPLETED(finish(id));
    QCOMPARE(digest(m_dst->op(), m_dst->path("slow.bin")), digest(m_src->op(), m_src->path("slow.bin")));
}

void TransferSuite::pauseAndResume()
{
    const bool keeps = keepsPartialState(m_dst->op(), m_dst->path());
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("paused.bin"), kSlowSize, 4));
    auto o = options();
    o.bandwidthLimit = kSlowRate;
    o.partsInFlight = 1; // parts finish one after another: some are whole when it pauses
    const auto id = start(spec({m_src->uri("paused.bin")}, m_dst->uri("paused.bin"), o));
    QVERIFY(pauseAfter(id, 12u << 20));
    QVERIFY(!exists(m_dst->op(), m_dst->path("paused.bin")));
    QVERIFY(!journalFiles().empty()); // what is done is remembered

    auto out = resumeUnthrottled(id, o);
    REQUIRE_COMPLETED(out);
    QCOMPARE(digest(m_dst->op(), m_dst->path("paused.bin")), digest(m_src->op(), m_src->path("paused.bin")));
    QCOMPARE(out.report.bytesCopied + out.report.bytesResumed, kSlowSize);
    if (keeps)
        QVERIFY2(out.report.bytesResumed >= (8u << 20), std::to_string(out.report.bytesResumed).c_str());
    QCOMPARE(names(m_dst->op(), m_dst->path()), std::vector<std::string>{"paused.bin"});
    QVERIFY(journalFiles().empty());
    const auto states = m_observer.states(id);
    QVERIFY(std::find(states.begin(), states.end(), JobState::Paused) != states.end());
    QCOMPARE_STATE(states.back(), JobState::Completed);
}

void TransferSuite::resumeWithoutPartialFile()
{
    if (!keepsPartialState(m_dst->op(), m_dst->path()))
        QSKIP("this destination keeps no partial state to lose");
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("lost.bin"), kSlowSize, 8));
    auto o = options();
    o.bandwidthLimit = kSlowRate;
    o.partsInFlight = 1;
    const auto id = start(spec({m_src->uri("lost.bin")}, m_dst->uri("lost.bin"), o));
    QVERIFY(pauseAfter(id, 12u << 20));
    // Someone cleans up hidden files while the job is paused: the parts done are gone.
    const auto partial = names(m_dst->op(), m_dst->path());
    QVERIFY2(hasTemporaryName(partial), QTest::toString(partial));
    for (const auto &name : partial)
        QVERIFY(m_dst->op().remove(m_dst->path(name)));
    // Copied again from the start, never published with holes where the parts were.
    REQUIRE_COMPLETED(resumeUnthrottled(id, o));
    QCOMPARE(digest(m_dst->op(), m_dst->path("lost.bin")), digest(m_src->op(), m_src->path("lost.bin")));
}

void TransferSuite::resumeChecksFilesAlreadyDone()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("r")));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("r/big.bin"), kSlowSize, 9));
    for (int i = 0; i < 4; ++i)
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path("r/s" + std::to_string(i)), 1000, std::uint64_t(i)));
    auto o = options();
    o.bandwidthLimit = kSlowRate;
    o.recursive = true;
    o.existing = ExistingPolicy::Overwrite; // a changed copy is replaced, not an error
    const auto id = start(spec({m_src->uri("r")}, m_dst->uri(), o));
    // Paused once the four small files are done (a slow first request must not race the pause).
    QVERIFY(pauseAfter(id, 12u << 20, 4));
    QVERIFY(exists(m_dst->op(), m_dst->path("r/s0")));
    // A finished copy goes away (or is changed) while the job is paused.
    QVERIFY(m_dst->op().remove(m_dst->path("r/s0")));
    QVERIFY(putBytes(m_dst->op(), m_dst->path("r/s1"), asBytes("short")));
    REQUIRE_COMPLETED(resumeUnthrottled(id, o));
    // Completed means everything is there, whatever the journal remembered.
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("r")), snapshot(m_src->op(), m_src->path("r")));
}

void TransferSuite::cancelLeavesNothing()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("c")));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("c/big.bin"), kSlowSize, 5));
    std::vector<std::string> small;
    for (int i = 0; i < 5; ++i) {
        small.push_back("s" + std::to_string(i));
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path("c/" + small.back()), 1000, std::uint64_t(i)));
    }
    auto o = options();
    o.bandwidthLimit = kSlowRate;
    o.recursive = true;

    // Cancelled while running, and cancelled while paused.
    for (bool pausedFirst : {false, true}) {
        const std::string into = pausedFirst ? "paused" : "running";
        QVERIFY(makeDirs(m_dst->op(), m_dst->path(into)));
        const auto id = start(spec({m_src->uri("c")}, m_dst->uri(into), o));
        QVERIFY(pausedFirst ? pauseAfter(id, 12u << 20) : waitForBytes(id, 12u << 20));
        QVERIFY(m_queue->cancel(id));
        QCOMPARE_STATE(m_queue->wait(id), JobState::Cancelled);
        QVERIFY(!exists(m_dst->op(), m_dst->path(into + "/c/big.bin")));
        const auto left = names(m_dst->op(), m_dst->path(into + "/c"));
        QVERIFY2(!hasTemporaryName(left), QTest::toString(left));
        for (const auto &name : left)
            QVERIFY2(std::find(small.begin(), small.end(), name) != small.end(), name.c_str());
        QVERIFY2(journalFiles().empty(), QTest::toString(journalFiles()));
        QCOMPARE_STATE(m_observer.states(id).back(), JobState::Cancelled);
    }
}

void TransferSuite::survivesRestart()
{
    const bool keeps = keepsPartialState(m_dst->op(), m_dst->path());
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("restart.bin"), kSlowSize, 6));
    auto o = options();
    o.bandwidthLimit = kSlowRate;
    o.partsInFlight = 1;
    const auto transfer = spec({m_src->uri("restart.bin")}, m_dst->uri("restart.bin"), o);
    const auto id = start(transfer);
    QVERIFY(waitForBytes(id, 12u << 20));

    newQueue(); // the app quits and starts again
    QVERIFY(!exists(m_dst->op(), m_dst->path("restart.bin")));
    QCOMPARE(m_queue->restore(), std::vector<std::string>{id});
    QCOMPARE_STATE(*m_queue->state(id), JobState::Paused);
    QCOMPARE(m_queue->spec(id)->identity(), transfer.identity());
    QCOMPARE(m_queue->findByIdentity(transfer.identity()), std::optional<std::string>(id));

    auto out = resumeUnthrottled(id, o);
    REQUIRE_COMPLETED(out);
    QCOMPARE(digest(m_dst->op(), m_dst->path("restart.bin")), digest(m_src->op(), m_src->path("restart.bin")));
    if (keeps)
        QVERIFY2(out.report.bytesResumed >= (8u << 20), std::to_string(out.report.bytesResumed).c_str());
    QCOMPARE(names(m_dst->op(), m_dst->path()), std::vector<std::string>{"restart.bin"});
    QVERIFY(journalFiles().empty());
}

void TransferSuite::progressIsThrottledAndComplete()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("p")));
    for (int i = 0; i < 8; ++i)
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path("p/f" + std::to_string(i)), 8u << 20, std::uint64_t(i)));
    auto o = options();
    o.recursive = true;
    o.bandwidthLimit = 32'000'000; // 64 MiB: about two seconds
    auto out = run(spec({m_src->uri("p")}, m_dst->uri(), o));
    REQUIRE_COMPLETED(out);
    const auto ticks = m_observer.ticks(out.id);
    QVERIFY2(ticks.size() >= 5, std::to_string(ticks.size()).c_str());
    // At most ~10 a second however long the copy took (a slow machine or server makes it
    // longer, not the updates more frequent), plus the few that state changes send.
    const double seconds = std::chrono::duration<double>(ticks.back().at - ticks.front().at).count();
    QVERIFY2(double(ticks.size()) <= 6 + 11 * seconds,
             (std::to_string(ticks.size()) + " updates in " + std::to_string(seconds) + " s").c_str());
    bool sawRate = false;
    for (std::size_t i = 1; i < ticks.size(); ++i) {
        QVERIFY(ticks[i].progress.bytesDone >= ticks[i - 1].progress.bytesDone);
        QVERIFY(ticks[i].progress.bytesDone <= ticks[i].progress.bytesTotal || ticks[i].progress.planning);
        if (ticks[i].progress.bytesPerSecond > 0 && ticks[i].progress.etaSeconds)
            sawRate = true;
    }
    QVERIFY(sawRate);
    const auto &last = ticks.back().progress;
    QCOMPARE(last.bytesTotal, std::uint64_t(64u << 20));
    QCOMPARE(last.bytesDone, last.bytesTotal);
    QCOMPARE(last.filesTotal, 8u);
    QCOMPARE(last.filesDone, last.filesTotal);
    QCOMPARE(last.filesFailed, 0u);
}

void TransferSuite::queueRunsJobsIndividually()
{
    // Three slow jobs on a queue that runs two at a time, each handled on its own.
    auto o = options();
    o.bandwidthLimit = 64'000'000;
    std::vector<std::string> ids;
    // Sources first: on a slow source, writing one while a job runs could let a job end.
    for (int i = 0; i < 3; ++i)
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path("job" + std::to_string(i)), 32u << 20, std::uint64_t(i)));
    for (int i = 0; i < 3; ++i) {
        const std::string name = "job" + std::to_string(i);
        ids.push_back(start(spec({m_src->uri(name)}, m_dst->uri(name), o)));
        QVERIFY(!ids.back().empty());
    }
    QCOMPARE_STATE(*m_queue->state(ids[2]), JobState::Queued);
    QVERIFY(m_queue->pause(ids[2])); // never started: paused where it waits
    QCOMPARE_STATE(*m_queue->state(ids[2]), JobState::Paused);
    QVERIFY(m_queue->cancel(ids[1]));
    QCOMPARE_STATE(m_queue->wait(ids[1]), JobState::Cancelled);
    REQUIRE_COMPLETED(finish(ids[0]));
    QCOMPARE_STATE(*m_queue->state(ids[2]), JobState::Paused); // a free slot does not start it
    QVERIFY(!m_queue->resume(ids[0]));                         // a finished job cannot be resumed
    QVERIFY(m_queue->resume(ids[2]));
    REQUIRE_COMPLETED(finish(ids[2]));
    QCOMPARE(names(m_dst->op(), m_dst->path()), (std::vector<std::string>{"job0", "job2"}));
    QCOMPARE(digest(m_dst->op(), m_dst->path("job2")), digest(m_src->op(), m_src->path("job2")));
    QCOMPARE(m_queue->jobIds(), ids);
    QVERIFY(journalFiles().empty());
}

} // namespace strata::test

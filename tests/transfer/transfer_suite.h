#pragma once

#include "core/transfer/transfer_queue.h"
#include "tests/transfer/fake_backend.h"
#include "tests/transfer/transfer_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

// Readable QCOMPARE failures for the types the suite compares.
namespace QTest {
template <>
inline char *toString(const strata::ErrorKind &kind)
{
    return qstrdup(std::string(strata::identifier(kind)).c_str());
}
template <>
inline char *toString(const std::string &text)
{
    return qstrdup(text.c_str());
}
template <>
inline char *toString(const std::vector<std::string> &list)
{
    std::string text = "[";
    for (const auto &s : list)
        text += (text.size() > 1 ? ", \"" : "\"") + s + "\"";
    return qstrdup((text + "]").c_str());
}
template <>
inline char *toString(const std::map<std::string, std::string> &map)
{
    std::string text;
    for (const auto &[key, value] : map)
        text += "\n  " + key + ": " + value;
    return qstrdup(text.c_str());
}
} // namespace QTest

// QCOMPARE on JobState values would find strata::toString (a string_view) by ADL, so
// states are compared by name.
// The Status must be ok; otherwise the test fails with the error's sentence.
#define REQUIRE_DONE(expr)                                                                             \
    do {                                                                                               \
        auto st_ = (expr);                                                                             \
        QVERIFY2(st_.ok(), st_.ok() ? "" : (std::string(#expr ": ") + st_.error().message()).c_str()); \
    } while (false)

// The outcome of run() must be a completed job; otherwise the test says why it was not.
#define REQUIRE_COMPLETED(expr)                                                                                      \
    do {                                                                                                             \
        const auto &out_ = (expr);                                                                                   \
        QVERIFY2(out_.state == JobState::Completed, strata::test::whyNotCompleted(out_.state, out_.report).c_str()); \
    } while (false)

#define QCOMPARE_STATE(actual, expected) QCOMPARE(strata::test::stateName(actual), strata::test::stateName(expected))

namespace strata::test {

inline QByteArray stateName(JobState state)
{
    const auto name = toString(state);
    return QByteArray(name.data(), qsizetype(name.size()));
}

// Why a job did not complete: its state, the job's error and its first failures.
inline std::string whyNotCompleted(JobState state, const TransferReport &report)
{
    std::string why = "the job ended " + std::string(toString(state));
    if (!report.error.empty())
        why += ": " + report.error;
    for (std::size_t i = 0; i < report.failures.size() && i < 3; ++i)
        why += "; " + report.failures[i].message;
    return why;
}

// The transfer engine, driven through TransferQueue and TransferObserver, between the
// two backends named by the environment (see BackendPair). Every test gets fresh roots
// on both sides, a fresh registry and a fresh journal directory. The slots are defined
// in several files by topic.
class TransferSuite : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    // transfer_suite.cpp: one object
    void singleObject_data();
    void singleObject();

    // tree_tests.cpp
    void recursiveTree();
    void foldersOfALevelMadeSideBySide();
    void folderModesBesideOrAfterTheirFiles();
    void severalSourcesIntoOneDirectory();
    void namingRules();
    void boundedParallelism();
    void syncCopiesOnlyWhatChanged();
    void syncDryRunChangesNothing();
    void moveRemovesSources();
    void copyOntoItselfRefused();

    // data_tests.cpp
    void sparseStaysSparse();
    void zstdRoundTrip();
    void verifyCountsCheckedFiles();
    void sourceChangedDuringCopyFails();
    void existingDestination_data();
    void existingDestination();

    // control_tests.cpp
    void nothingUnderFinalNameUntilDone();
    void pauseAndResume();
    void resumeWithoutPartialFile();
    void resumeChecksFilesAlreadyDone();
    void cancelLeavesNothing();
    void survivesRestart();
    void progressIsThrottledAndComplete();
    void queueRunsJobsIndividually();

    // hostile_tests.cpp
    void hostileNamesRefused();
    void unreadableFileFailsAlone();
    void blockedDirectoryFailsItsFilesOnly();
    void flakyReadsAreRetried();
    void oneStreamSourcesOverlapSafely();
    void distantSourceReadInFinerParts();
    void distantSourceHasMoreFilesInFlight();
    void resumedCopyIsCutAsBefore();
    void unreachableStorageStopsTrying();
    void destinationFullFailsThatFile();
    void linksAreNamedNotFollowed();

    // alloc_tests.cpp
    void noAllocationPerChunk();

private:
    struct Outcome {
        std::string id;
        JobState state = JobState::Queued;
        TransferReport report;
    };

    // Options that keep large copies quick to test: 8 MiB parts.
    static TransferOptions options();
    static TransferSpec spec(std::vector<std::string> sources, std::string destination,
                             const TransferOptions &options = TransferSuite::options());
    // Enqueues and waits for the job to stop; empty id when enqueue failed.
    Outcome run(const TransferSpec &spec);
    Outcome finish(const std::string &id);
    std::string start(const TransferSpec &spec);
    // Polls until the job has moved at least `bytes` and finished `files` files (false on timeout or
    // if it stopped).
    bool waitForBytes(const std::string &id, std::uint64_t bytes, int timeoutMs = 10000, std::uint64_t files = 0);
    // Pauses the job once it has moved `bytes` (and finished `files`); true when it then stands paused.
    bool pauseAfter(const std::string &id, std::uint64_t bytes, std::uint64_t files = 0);
    // Resumes a paused job without its bandwidth limit and waits for it.
    Outcome resumeUnthrottled(const std::string &id, TransferOptions options);
    void newQueue();
    std::vector<std::string> journalFiles() const;
    // Makes source mtimes older than the 1 s sync tolerance (or waits that long).
    void ageSources(const std::vector<std::string> &relativePaths);

    BackendPair m_pair;
    std::unique_ptr<Registry> m_registry;
    std::shared_ptr<FakeBackend> m_fake;
    std::unique_ptr<TestRoot> m_src;
    std::unique_ptr<TestRoot> m_dst;
    std::unique_ptr<QTemporaryDir> m_journalDir;
    RecordingObserver m_observer;
    std::unique_ptr<TransferQueue> m_queue;
};

} // namespace strata::test

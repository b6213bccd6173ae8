// Load on S3 (issue #12), scaled to what s3rver bears: its listing walks the whole folder
// on disk for every page of 1 000 keys (50 000 keys take it ~28 s to list), so the folder
// here has STRATA_LOAD_S3_KEYS keys (default 20 000), written straight into s3rver's data
// folder (a PUT each would take minutes). Listed page by page with bounded memory, and
// opened in the browser pane while 16 transfers upload to the same server: every row
// arrives, every transfer completes, the event loop never stalls. Prints the figures.
#include "tests/behavior/behavior_root.h"
#include "tests/gui/gui_fixture.h"
#include "tests/lib/perf_goal.h"
#include "tests/load/memory_figures.h"

#include "core/storage/operator.h"
#include "core/transfer/transfer_queue.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace strata {

using namespace gui_test;
using namespace load_test;

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

std::string keyName(std::size_t i)
{
    char name[32];
    std::snprintf(name, sizeof name, "k%07zu", i);
    return name;
}

} // namespace

class TestLoadS3 : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void pagedListing();
    void paneStaysResponsiveWhileTransfersRun();

private:
    std::string uri(const std::string &path) const
    {
        return "s3://" + m_bucket + "/" + path + "?endpoint=" + m_endpoint;
    }

    std::shared_ptr<Registry> m_registry;
    std::string m_endpoint, m_bucket;
    std::size_t m_keys = 20'000;
};

void TestLoadS3::initTestCase()
{
    const std::string envFile = env("STRATA_S3_ENVFILE");
    if (envFile.empty())
        QSKIP("no s3rver: run through CTest (fixture s3rver_load_s3)");
    loadEnvFile(envFile);
    m_endpoint = env("STRATA_S3_ENDPOINT");
    m_bucket = env("STRATA_S3_BUCKET");
    QVERIFY2(m_endpoint.starts_with("http://127.0.0.1:"), m_endpoint.c_str());
    if (const long n = std::atol(env("STRATA_LOAD_S3_KEYS").c_str()); n > 0)
        m_keys = std::size_t(n);
    m_registry = makeRegistry();

    // s3rver keeps each object as KEY._S3rver_object with its MD5 beside it: the folder is
    // written there directly (s3rver reads it back as it would its own).
    QFile dataDirFile(QFileInfo(QString::fromStdString(envFile)).dir().filePath(QStringLiteral("s3rver.datadir")));
    QVERIFY2(dataDirFile.open(QIODevice::ReadOnly), qPrintable(dataDirFile.fileName()));
    const std::string folder = dataDirFile.readAll().trimmed().toStdString() + "/" + m_bucket + "/big";
    QVERIFY(QDir().mkpath(QString::fromStdString(folder)));
    QElapsedTimer clock;
    clock.start();
    for (std::size_t i = 0; i < m_keys; ++i) {
        const std::string object = folder + "/" + keyName(i) + "._S3rver_object";
        std::ofstream(object, std::ios::binary) << "x";
        std::ofstream(object + ".md5", std::ios::binary) << "9dd4e461268c8034f5c8564e155c67a6"; // md5("x")
    }
    qInfo("%zu one-byte objects placed in s3rver's folder in %.1f s", m_keys, clock.elapsed() / 1000.0);
}

// Every page in order, no key twice or missing; memory grows by a page, not by the folder.
void TestLoadS3::pagedListing()
{
    auto at = m_registry->open(uri("big/"));
    QVERIFY2(at.ok(), at.ok() ? "" : at.error().message().c_str());
    QElapsedTimer clock;
    clock.start();
    const double before = rssMiB();
    double highest = before;
    std::size_t seen = 0, pages = 0;
    std::string last;
    ListOptions options;
    for (;;) {
        auto page = at->op->list(at->path, options);
        QVERIFY2(page.ok(), page.ok() ? "" : page.error().message().c_str());
        for (const auto &e : page->entries) {
            if (!(e.path > last))
                QFAIL(qPrintable(QStringLiteral("out of order or repeated: %1 after %2")
                                     .arg(QString::fromStdString(e.path), QString::fromStdString(last))));
            last = e.path;
            if (e.size != 1)
                QFAIL(qPrintable(QStringLiteral("%1 has size %2").arg(QString::fromStdString(e.path)).arg(e.size)));
            ++seen;
        }
        ++pages;
        highest = std::max(highest, rssMiB());
        if (page->nextPageToken.empty())
            break;
        options.pageToken = page->nextPageToken;
    }
    const double seconds = clock.elapsed() / 1000.0;
    qInfo("S3: listed %zu keys in %zu pages in %.2f s (%.0f keys/s, s3rver's pace); resident memory +%.1f MiB at "
          "most (peak of the process: %.0f MiB)",
          seen, pages, seconds, double(seen) / std::max(seconds, 1e-3), highest - before, peakRssMiB());
    QCOMPARE(seen, m_keys);
    QVERIFY2(last.ends_with(keyName(m_keys - 1)), last.c_str());
    QVERIFY2(highest - before < 64, "listing page by page should not hold the folder in memory");
}

// The pane streams the big folder in while 16 uploads run on the same server: all rows
// arrive, all uploads complete (no deadlock between the listing and the transfers), and
// the event loop never waits long.
void TestLoadS3::paneStaysResponsiveWhileTransfersRun()
{
    constexpr int kJobs = 16, kFiles = 8;
    {
        auto src = m_registry->open("memory://loads3/");
        QVERIFY(src.ok());
        QVERIFY(src->op->createDir("/src", true).ok());
        for (int f = 0; f < kFiles; ++f) {
            std::vector<std::byte> data(64u << 10, std::byte(f + 1));
            QVERIFY(src->op->writeAll("/src/f" + std::to_string(f), data).ok());
        }
    }
    QTemporaryDir journals;
    QVERIFY(journals.isValid());
    TransferQueue queue(*m_registry, QueueOptions{journals.path().toStdString(), kJobs});

    BrowserPane pane(*m_registry);
    pane.resize(900, 700);
    pane.show();
    StallMeter stalls(2);
    const double before = rssMiB();
    stalls.start();
    pane.openUri(QString::fromStdString(uri("big/")));
    QTest::qWait(20);
    const qint64 afterOpen = stalls.longest();
    std::vector<std::string> ids;
    for (int j = 0; j < kJobs; ++j) {
        TransferSpec spec;
        spec.sources = {"memory://loads3/src"};
        spec.destination = uri("up/d" + std::to_string(j));
        spec.options.recursive = true;
        auto id = queue.enqueue(spec);
        QVERIFY2(id.ok(), id.ok() ? "" : id.error().message().c_str());
        ids.push_back(*id);
    }
    QTest::qWait(20);
    const qint64 afterEnqueue = stalls.longest();
    qInfo("stall so far: %lld ms after opening, %lld ms after enqueueing", (long long)afterOpen,
          (long long)afterEnqueue);
    const int expected = int(m_keys);
    const bool loaded =
        waitFor([&] { return pane.model()->rowCount() == expected && !pane.model()->loading(); }, 240000);
    const qint64 listed = stalls.elapsed();
    bool allDone = waitFor(
        [&] {
            return std::all_of(ids.begin(), ids.end(), [&](const std::string &id) {
                const auto state = queue.state(id);
                return state && (*state == JobState::Completed || *state == JobState::Failed);
            });
        },
        240000);
    const qint64 took = stalls.elapsed();
    stalls.stop();
    qInfo("S3: the pane showed %d of %d rows in %.2f s while %d uploads ran (all ended after %.2f s); longest "
          "event-loop stall %lld ms; resident memory +%.0f MiB (peak of the process: %.0f MiB)",
          pane.model()->rowCount(), expected, listed / 1000.0, kJobs, took / 1000.0,
          static_cast<long long>(stalls.longest()), rssMiB() - before, peakRssMiB());
    QVERIFY2(loaded,
             qPrintable(QStringLiteral("%1 of %2 rows; error: %3")
                            .arg(pane.model()->rowCount())
                            .arg(expected)
                            .arg(pane.model()->error())));
    QVERIFY2(allDone, "the uploads did not end within 240 s");
    for (const auto &id : ids) {
        const auto report = queue.report(id);
        QVERIFY(report);
        QVERIFY2(report->state == JobState::Completed, report->error.c_str());
        QCOMPARE(report->filesCopied, std::uint64_t(kFiles));
    }
    STRATA_PERF_GOAL(stalls.longest() < 250,
                     qPrintable(QStringLiteral("the event loop stalled for %1 ms").arg(stalls.longest())));
}

} // namespace strata

QTEST_MAIN(strata::TestLoadS3)
#include "test_load_s3.moc"

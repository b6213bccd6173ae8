// Load (issue #12): a folder of a million keys listed page by page with bounded memory,
// the desktop app opening that folder without stalling its event loop, and 64 transfers
// running at once to completion. Prints the figures (time, peak RSS, longest stall), and
// `figure NAME VALUE` lines that tests/perf/huge_folder.sh judges against the goals (one
// frame, 150 bytes a row); the bounds here only catch a collapse (tests/lib/perf_goal.h).
// STRATA_LOAD_KEYS scales the big folder (default 1 000 000).
#include "tests/gui/gui_fixture.h"
#include "tests/lib/perf_goal.h"
#include "tests/load/memory_figures.h"

#include "core/io/memory_tuning.h"
#include "core/storage/operator.h"
#include "core/transfer/transfer_queue.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>

#include <sys/resource.h>

namespace strata {

using namespace gui_test;
using namespace load_test;

namespace {

std::size_t keyCount()
{
    const char *v = std::getenv("STRATA_LOAD_KEYS");
    const long n = v ? std::atol(v) : 0;
    return n > 0 ? std::size_t(n) : 1'000'000;
}

// One figure for tests/perf/huge_folder.sh, which judges it against the goals.
void figure(const char *name, double value)
{
    qInfo("figure %s %.1f", name, value);
}

std::string keyName(std::size_t i)
{
    char name[32];
    std::snprintf(name, sizeof name, "/big/k%07zu", i);
    return name;
}

} // namespace

class TestLoad : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sixtyFourTransfersAtOnce(); // first: its memory is measured before the big folder exists
    void millionKeyListing();
    void desktopOpensTheMillionKeyFolder();

private:
    std::shared_ptr<Registry> m_registry;
    std::size_t m_keys = 0;
};

void TestLoad::initTestCase()
{
    keepFreedMemory(); // as the application does
    m_registry = makeRegistry();
    m_keys = keyCount();
}

// Every page comes back in order, no key twice or missing, and listing holds one page at
// a time: memory grows by a page, not by the folder.
void TestLoad::millionKeyListing()
{
    auto at = m_registry->open("memory://load/");
    QVERIFY(at.ok());
    QElapsedTimer clock;
    clock.start();
    const double empty = rssMiB();
    QVERIFY(at->op->createDir("/big", true).ok());
    for (std::size_t i = 0; i < m_keys; ++i) {
        auto st = at->op->writeAll(keyName(i), {});
        if (!st)
            QFAIL(st.error().message().c_str());
    }
    qInfo("%zu empty objects written in %.1f s; resident memory %.0f -> %.0f MiB", m_keys, clock.elapsed() / 1000.0,
          empty, rssMiB());
    clock.restart();
    const double before = rssMiB();
    double highest = before;
    std::size_t seen = 0, pages = 0;
    std::string last;
    ListOptions options;
    for (;;) {
        auto page = at->op->list("/big", options);
        QVERIFY2(page.ok(), page.ok() ? "" : page.error().message().c_str());
        for (const auto &e : page->entries) {
            if (!(e.path > last))
                QFAIL(qPrintable(QStringLiteral("out of order or repeated: %1 after %2")
                                     .arg(QString::fromStdString(e.path), QString::fromStdString(last))));
            last = e.path;
            ++seen;
        }
        ++pages;
        highest = std::max(highest, rssMiB());
        if (page->nextPageToken.empty())
            break;
        options.pageToken = page->nextPageToken;
    }
    const double seconds = clock.elapsed() / 1000.0;
    qInfo("listed %zu keys in %zu pages in %.2f s (%.0f keys/s); resident memory grew by %.1f MiB while listing "
          "(peak of the process: %.0f MiB)",
          seen, pages, seconds, double(seen) / std::max(seconds, 1e-3), highest - before, peakRssMiB());
    QCOMPARE(seen, m_keys);
    QCOMPARE(last, keyName(m_keys - 1));
    QVERIFY2(highest - before < 64, "listing page by page should not hold the folder in memory");
}

// The browser pane streams the folder in: every row arrives, and the event loop never
// waits long for it (a 2 ms timer measures the longest gap; the test runs the loop as an
// application does, not with QTest::qWait, whose 10 ms sleeps the timer would count).
void TestLoad::desktopOpensTheMillionKeyFolder()
{
    BrowserPane pane(*m_registry);
    pane.resize(900, 700);
    pane.show();
    // Shown and painted once first, as a window is before the user opens a folder in it:
    // the first paint of a new window (fonts, icons, styles loaded) is not the folder's.
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    waitForLive([] { return false; }, 100);
    StallMeter stalls(2);
    const double before = rssMiB();
    stalls.start();
    pane.openUri(QStringLiteral("memory://load/big/"));
    const int expected = int(m_keys);
    const bool loaded =
        waitForLive([&] { return pane.model()->rowCount() == expected && !pane.model()->loading(); }, 300000);
    const qint64 took = stalls.elapsed();
    waitForLive([] { return false; }, 50); // the view lays the last rows out after the model is done
    stalls.stop();
    const qint64 longest = stalls.longest();
    const double grown = rssMiB() - before;
    qInfo("the pane showed %d of %d rows in %.2f s; longest event-loop stall %lld ms; resident memory +%.0f MiB, "
          "%.0f bytes a row (peak of the process: %.0f MiB)",
          pane.model()->rowCount(), expected, took / 1000.0, static_cast<long long>(longest), grown,
          grown * double(1 << 20) / double(m_keys), peakRssMiB());
    figure("open-stall-ms", double(longest));
    figure("bytes-per-row", grown * double(1 << 20) / double(m_keys));
    QVERIFY(loaded);
    STRATA_PERF_GOAL(longest < 250, qPrintable(QStringLiteral("the event loop stalled for %1 ms").arg(longest)));

    // A refresh lists again and works out the differences off the GUI thread.
    stalls.start();
    pane.refresh();
    const bool refreshed = waitForLive([&] { return !pane.model()->loading(); }, 120000);
    const qint64 refreshTook = stalls.elapsed();
    waitForLive([] { return false; }, 50);
    stalls.stop();
    qInfo("a refresh kept the %d rows in %.2f s; longest event-loop stall %lld ms", pane.model()->rowCount(),
          refreshTook / 1000.0, static_cast<long long>(stalls.longest()));
    figure("refresh-stall-ms", double(stalls.longest()));
    QVERIFY(refreshed);
    QCOMPARE(pane.model()->rowCount(), expected);
    // Refresh and filter bounds are looser than the listing's: they guard against a whole
    // refresh worked out on the GUI thread (1.5 s for a million rows) or a filter rebuilt
    // interval by interval (56 s), and stay clear of a busy machine's noise.
    STRATA_PERF_GOAL(stalls.longest() < 1000,
                     qPrintable(QStringLiteral("a refresh stalled the event loop for %1 ms").arg(stalls.longest())));

    // A header click sorts the million rows off the GUI thread; the view keeps running.
    stalls.start();
    pane.view()->sortByColumn(DirectoryModel::Name, Qt::DescendingOrder);
    const bool sorted = waitForLive([&] { return !pane.model()->sorting(); }, 120000);
    const qint64 sortTook = stalls.elapsed();
    waitForLive([] { return false; }, 50); // the view lays the rows out in their new order
    stalls.stop();
    qInfo("a header click sorted the %d rows in %.2f s; longest event-loop stall %lld ms", pane.model()->rowCount(),
          sortTook / 1000.0, static_cast<long long>(stalls.longest()));
    figure("sort-stall-ms", double(stalls.longest()));
    QVERIFY(sorted);
    QCOMPARE(pane.model()->entryAt(0)->path, keyName(m_keys - 1));
    STRATA_PERF_GOAL(stalls.longest() < 250,
                     qPrintable(QStringLiteral("sorting stalled the event loop for %1 ms").arg(stalls.longest())));

    // Typing in the filter box: rows of one run, rows scattered all over, then none filtered.
    QLineEdit *filter = nullptr;
    for (auto *edit : pane.findChildren<QLineEdit *>())
        if (edit->placeholderText() == QLatin1String("Filter"))
            filter = edit;
    QVERIFY(filter);
    const std::size_t k05 = std::clamp<std::size_t>(m_keys, 500'000, 600'000) - 500'000; // k0500000 to k0599999
    for (const auto &[text, rows, name] : {std::tuple{QStringLiteral("k05"), k05, "filter-k05-stall-ms"},
                                           {QStringLiteral("7"), std::size_t(0), "filter-7-stall-ms"},
                                           {QString(), m_keys, "filter-cleared-stall-ms"}}) {
        stalls.start();
        QElapsedTimer clock;
        clock.start();
        filter->setText(text);
        const qint64 typed = clock.elapsed();
        const bool filtered = waitForLive([&] { return !pane.model()->filtering(); }, 60000); // on a worker thread
        const qint64 shown = clock.elapsed();
        waitForLive([] { return false; }, 50);
        stalls.stop();
        qInfo("filter \"%s\": %d rows shown after %lld ms, %lld ms for the keystroke; longest event-loop stall %lld ms",
              qPrintable(text), pane.view()->model()->rowCount(), static_cast<long long>(shown),
              static_cast<long long>(typed), static_cast<long long>(stalls.longest()));
        QVERIFY(filtered);
        figure(name, double(stalls.longest()));
        if (rows)
            QCOMPARE(std::size_t(pane.view()->model()->rowCount()), rows);
        STRATA_PERF_GOAL(
            stalls.longest() < 1000,
            qPrintable(QStringLiteral("filtering stalled the event loop for %1 ms").arg(stalls.longest())));
    }
}

// 64 jobs at once, each a folder of 16 files (4 MiB) from memory to its own local folder:
// all complete, every byte arrives, memory stays bounded, nothing deadlocks.
void TestLoad::sixtyFourTransfersAtOnce()
{
    QTemporaryDir out, journals;
    QVERIFY(out.isValid() && journals.isValid());
    constexpr int kJobs = 64, kFiles = 16;
    constexpr std::size_t kFileSize = 256u << 10;
    {
        auto at = m_registry->open("memory://load/");
        QVERIFY(at.ok());
        QVERIFY(at->op->createDir("/src", true).ok());
        for (int f = 0; f < kFiles; ++f) {
            std::vector<std::byte> data(kFileSize, std::byte(f + 1));
            QVERIFY(at->op->writeAll("/src/f" + std::to_string(f), data).ok());
        }
    }
    const double before = rssMiB();
    QElapsedTimer clock;
    clock.start();
    std::vector<std::string> ids;
    {
        TransferQueue queue(*m_registry, QueueOptions{journals.path().toStdString(), kJobs});
        for (int j = 0; j < kJobs; ++j) {
            TransferSpec spec;
            spec.sources = {"memory://load/src"};
            spec.destination = "file://" + out.path().toStdString() + "/d" + std::to_string(j);
            spec.options.recursive = true;
            auto id = queue.enqueue(spec);
            QVERIFY2(id.ok(), id.ok() ? "" : id.error().message().c_str());
            ids.push_back(*id);
        }
        double highest = before;
        for (const auto &id : ids) {
            const JobState state = queue.wait(id);
            highest = std::max(highest, rssMiB());
            const auto report = queue.report(id);
            QVERIFY2(state == JobState::Completed,
                     qPrintable(QStringLiteral("job %1 ended %2: %3")
                                    .arg(QString::fromStdString(id))
                                    .arg(int(state))
                                    .arg(QString::fromStdString(report ? report->error : std::string()))));
            QCOMPARE(report->filesCopied, std::uint64_t(kFiles));
        }
        qInfo("%d transfers of %d files (%zu MiB in all) at once: done in %.2f s; resident memory +%.0f MiB at most "
              "(peak of the process: %.0f MiB)",
              kJobs, kFiles, std::size_t(kJobs) * kFiles * kFileSize >> 20, clock.elapsed() / 1000.0, highest - before,
              peakRssMiB());
        QVERIFY2(highest - before < 1024, "64 jobs held more than 1 GiB");
    }
    for (int j = 0; j < kJobs; j += 9) {
        QFile f(out.path() + QStringLiteral("/d%1/f%2").arg(j).arg(j % kFiles));
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
        const QByteArray bytes = f.readAll();
        QCOMPARE(std::size_t(bytes.size()), kFileSize);
        QVERIFY(bytes.count(char(j % kFiles + 1)) == bytes.size());
    }
}

} // namespace strata

QTEST_MAIN(strata::TestLoad)
#include "test_load.moc"

// The Operator lets only paths strictly below a listed folder reach its callers, and
// removeAll only removes below the path it was given, whatever a storage lists (issue 23).
// The storage here is a memory store behind a layer that lies in its listings.
#include "tests/unit/unit_checks.h"

#include "backends/memory/memory_backend.h"
#include "core/storage/confinement.h"
#include "core/storage/operator.h"
#include "core/storage/path.h"
#include "tests/lib/forwarding_backend.h"

#include <QTest>

#include <map>
#include <set>

namespace strata {

namespace {

// Adds the entries of `extra` (folder -> entries) to that folder's first page; can also
// make removals of some paths succeed without removing anything.
class LyingLayer final : public testing::ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;
    std::map<std::string, std::vector<Entry>> extra;
    std::set<std::string> ignoreRemoval;
    std::vector<std::string> removed;
    std::vector<std::string> listedWithin; // "dir within" of every listing
    std::string refuseListing;             // a folder whose listing says a link was found
    // A first page holding only `extra` (names that are no path), the real listing after it.
    bool extraPageFirst = false;

    // A flat listing here is only what `extra` holds for the folder.
    Capabilities capabilities() const override
    {
        return ForwardingBackend::capabilities().add(Capability::ListRecursive);
    }
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override
    {
        listedWithin.push_back(std::string(dir) + " " + options.within);
        if (dir == refuseListing)
            return plantedLinkError(dir, "/elsewhere");
        if (options.recursive) {
            ListPage page;
            page.entries = extra[std::string(dir)];
            return page;
        }
        if (extraPageFirst && options.pageToken.empty()) {
            ListPage page;
            page.entries = extra[std::string(dir)];
            page.nextPageToken = "after-extra";
            return page;
        }
        if (extraPageFirst) {
            ListOptions rest = options;
            rest.pageToken = options.pageToken == "after-extra" ? std::string() : options.pageToken;
            return ForwardingBackend::list(dir, rest);
        }
        auto page = ForwardingBackend::list(dir, options);
        if (page && options.pageToken.empty())
            if (auto it = extra.find(std::string(dir)); it != extra.end())
                page->entries.insert(page->entries.end(), it->second.begin(), it->second.end());
        return page;
    }
    Status remove(std::string_view path, std::string_view within) override
    {
        removed.emplace_back(path);
        return ignoreRemoval.count(std::string(path)) ? Status{} : ForwardingBackend::remove(path, within);
    }
    Status removeMany(std::span<const std::string> paths, std::string_view within) override
    {
        for (const auto &p : paths)
            if (auto st = remove(p, within); !st)
                return st;
        return {};
    }
};

// Counts the stats and folder creations the Operator asks of the storage.
class AskCounter final : public testing::ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;
    int stats = 0, creations = 0;
    Result<Entry> stat(std::string_view path) override
    {
        ++stats;
        return ForwardingBackend::stat(path);
    }
    Status createDir(std::string_view path) override
    {
        ++creations;
        return ForwardingBackend::createDir(path);
    }
};

Entry entry(std::string name, std::string path, EntryKind kind = EntryKind::File)
{
    Entry e;
    e.name = std::move(name);
    e.path = std::move(path);
    e.kind = kind;
    return e;
}

} // namespace

class TestOperatorConfinement : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void listingsAreConfined();
    void recursiveListingsAreConfined();
    void removeAllStaysInside();
    void removeAllEndsWhenTheStorageKeepsListing();
    void removeAllDryRunRemovesNothing();
    void removeAllLooksPastAPageOfSkippedNames();
    void removeAllOfAnObjectStoreRootIsAllowed();
    void removalsListWithinWhatWasNamed();
    void aPlantedLinkStopsItsSubtree();
    void expectedRealPaths_data();
    void expectedRealPaths();
    void realPathCacheKeepsOneTop();
    void createDirWithParentsAsksOncePerFolder();

private:
    void put(const std::string &path) { REQUIRE_OK(m_op->writeAll(path, std::as_bytes(std::span("x", 1)))); }
    bool exists(const std::string &path) { return m_op->stat(path).ok(); }

    std::shared_ptr<LyingLayer> m_layer;
    std::unique_ptr<Operator> m_op;
};

void TestOperatorConfinement::init()
{
    m_layer = std::make_shared<LyingLayer>(std::make_shared<MemoryBackend>("confined"));
    m_op = std::make_unique<Operator>(m_layer);
    REQUIRE_OK(m_op->createDir("/dst/sub", true));
    REQUIRE_OK(m_op->createDir("/other", true));
    put("/dst/a");
    put("/dst/sub/b");
    put("/other/keep");
    put("/top");
}

void TestOperatorConfinement::listingsAreConfined()
{
    m_layer->extra["/dst"] = {entry("..", "/dst/..", EntryKind::Directory),
                              entry("", "/dst/", EntryKind::Directory),
                              entry("x/y", "/dst/x/y"),
                              entry(".", "/dst/."),
                              entry("top", "/top"),
                              entry("other", "/other", EntryKind::Directory),
                              entry("a", "/dst/sub/a"),
                              entry("nul", std::string("/dst/n\0l", 8))};
    auto page = m_op->list("/dst");
    REQUIRE_OK(page);
    std::set<std::string> names;
    for (const auto &e : page->entries)
        names.insert(e.name);
    QCOMPARE(names, (std::set<std::string>{"a", "sub"}));
    QCOMPARE(page->skipped.size(), std::size_t(8));
    QVERIFY(std::find(page->skipped.begin(), page->skipped.end(), "/dst/..") != page->skipped.end());
}

void TestOperatorConfinement::recursiveListingsAreConfined()
{
    ListOptions options;
    options.recursive = true;
    m_layer->extra["/dst"] = {entry("b", "/dst/sub/b"), entry("c", "/dst/sub/../c"), entry("top", "/top"),
                              entry("dst", "/dst"), entry("d", "/dst//d")};
    auto page = m_op->list("/dst", options);
    REQUIRE_OK(page);
    QCOMPARE(page->entries.size(), std::size_t(1));
    QCOMPARE(page->entries[0].path, std::string("/dst/sub/b"));
    QCOMPARE(page->skipped.size(), std::size_t(4));
    QVERIFY(std::find(page->skipped.begin(), page->skipped.end(), "/dst/sub/../c") != page->skipped.end());
    QVERIFY(std::find(page->skipped.begin(), page->skipped.end(), "/top") != page->skipped.end());
}

void TestOperatorConfinement::removeAllStaysInside()
{
    // A listing that names the parent, the root and a sibling as children of /dst.
    m_layer->extra["/dst"] = {entry("..", "/dst/..", EntryKind::Directory),
                              entry("other", "/other", EntryKind::Directory), entry("top", "/top")};
    m_layer->extra["/dst/sub"] = {entry("..", "/dst/sub/..", EntryKind::Directory)};
    std::vector<std::string> skipped;
    RemoveAllOptions options;
    options.onSkipped = [&](std::string_view dir, std::string_view raw) {
        skipped.push_back(std::string(dir) + " " + std::string(raw));
    };
    REQUIRE_OK(m_op->removeAll("/dst", options));
    QVERIFY(!exists("/dst"));
    QVERIFY(exists("/other/keep"));
    QVERIFY(exists("/top"));
    for (const auto &p : m_layer->removed)
        QVERIFY2(p == "/dst" || isStrictlyBelow(p, "/dst"), p.c_str());
    // Each named once, however often the folder was listed.
    QCOMPARE(std::count(skipped.begin(), skipped.end(), "/dst /dst/.."), std::ptrdiff_t(1));
}

void TestOperatorConfinement::removeAllEndsWhenTheStorageKeepsListing()
{
    m_layer->ignoreRemoval = {"/dst/a"};
    auto st = m_op->removeAll("/dst");
    QVERIFY(!st.ok());
    QCOMPARE(st.error().kind(), ErrorKind::Corrupt);
    QVERIFY2(st.error().message().find("still lists 'a'") != std::string::npos, st.error().message().c_str());
    QVERIFY(exists("/other/keep"));
}

void TestOperatorConfinement::removeAllLooksPastAPageOfSkippedNames()
{
    m_layer->extraPageFirst = true;
    m_layer->extra["/dst"] = {entry("..", "/dst/..", EntryKind::Directory), entry("", "/dst/")};
    REQUIRE_OK(m_op->removeAll("/dst"));
    QVERIFY(!exists("/dst/a"));
    QVERIFY(!exists("/dst/sub/b"));
    QVERIFY(exists("/other/keep"));
    QVERIFY(exists("/top"));
}

void TestOperatorConfinement::removeAllDryRunRemovesNothing()
{
    std::vector<std::string> named;
    RemoveAllOptions options;
    options.dryRun = true;
    options.onRemove = [&](std::string_view path, bool dir) { named.push_back(std::string(path) + (dir ? "/" : "")); };
    REQUIRE_OK(m_op->removeAll("/dst", options));
    QCOMPARE(named, (std::vector<std::string>{"/dst/a", "/dst/sub/b", "/dst/sub/", "/dst/"}));
    QVERIFY(m_layer->removed.empty());
    QVERIFY(exists("/dst/sub/b"));
}

void TestOperatorConfinement::removeAllOfAnObjectStoreRootIsAllowed()
{
    // Not a local file system: emptying it is allowed (a bucket); the root itself stays.
    REQUIRE_OK(m_op->removeAll("/"));
    auto page = m_op->list("/");
    REQUIRE_OK(page);
    QVERIFY(page->entries.empty());
}

void TestOperatorConfinement::removalsListWithinWhatWasNamed()
{
    // Each folder is listed for removal with the named folder (or sync's `within`) as the
    // place no link may be crossed below: remote storage checks it before every listing.
    REQUIRE_OK(m_op->removeAll("/dst"));
    QVERIFY(!m_layer->listedWithin.empty());
    for (const auto &line : m_layer->listedWithin)
        QVERIFY2(line == "/dst /dst" || line == "/dst/sub /dst", line.c_str());
    REQUIRE_OK(m_op->createDir("/dst2/x", true));
    put("/dst2/x/y");
    m_layer->listedWithin.clear();
    RemoveAllOptions options;
    options.within = "/";
    REQUIRE_OK(m_op->removeAll("/dst2/x", options));
    for (const auto &line : m_layer->listedWithin)
        QVERIFY2(line.ends_with(" /"), line.c_str());
}

void TestOperatorConfinement::aPlantedLinkStopsItsSubtree()
{
    m_layer->refuseListing = "/dst/sub";
    auto st = m_op->removeAll("/dst");
    QVERIFY(!st.ok());
    QVERIFY2(st.error().message().find("symbolic link") != std::string::npos, st.error().message().c_str());
    QVERIFY2(st.error().message().find("/elsewhere") != std::string::npos, st.error().message().c_str());
    QVERIFY(exists("/dst/sub/b")); // nothing below the refused folder went
    QVERIFY(exists("/other/keep"));
}

void TestOperatorConfinement::expectedRealPaths_data()
{
    QTest::addColumn<QString>("realTop");
    QTest::addColumn<QString>("top");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected");
    QTest::newRow("below") << "/data/t"
                           << "/home/u/t"
                           << "/home/u/t/a/b"
                           << "/data/t/a/b";
    QTest::newRow("the top") << "/data/t"
                             << "/home/u/t"
                             << "/home/u/t"
                             << "/data/t";
    QTest::newRow("top is the root") << "/"
                                     << "/"
                                     << "/a/b"
                                     << "/a/b";
    QTest::newRow("root resolves elsewhere") << "/srv"
                                             << "/"
                                             << "/a"
                                             << "/srv/a";
    QTest::newRow("resolves to the root") << "/"
                                          << "/link"
                                          << "/link/a"
                                          << "/a";
    QTest::newRow("root itself") << "/"
                                 << "/"
                                 << "/"
                                 << "/";
}

void TestOperatorConfinement::expectedRealPaths()
{
    QFETCH(QString, realTop);
    QFETCH(QString, top);
    QFETCH(QString, path);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(expectedRealPath(realTop.toStdString(), top.toStdString(), path.toStdString())),
             expected);
}

void TestOperatorConfinement::realPathCacheKeepsOneTop()
{
    RealPathCache cache;
    QVERIFY(!cache.find("/a"));
    cache.keep("/a", "/real/a");
    QCOMPARE(cache.find("/a").value_or(""), std::string("/real/a"));
    QVERIFY(!cache.find("/b")); // another top is asked again
    cache.keep("/b", "/real/b");
    QVERIFY(!cache.find("/a"));
}

// A folder whose parent stands is made with one request (a copy makes its folders parents
// first: a distant server pays one round trip each, not three); what is in the way is said.
void TestOperatorConfinement::createDirWithParentsAsksOncePerFolder()
{
    auto counter = std::make_shared<AskCounter>(std::make_shared<MemoryBackend>("mkdir"));
    Operator op(counter);
    REQUIRE_OK(op.createDir("/a", true));
    REQUIRE_OK(op.createDir("/a/b", true));
    QCOMPARE(counter->creations, 2);
    QCOMPARE(counter->stats, 0);
    REQUIRE_OK(op.createDir("/x/y/z", true)); // parents missing: made on the way
    QVERIFY(op.stat("/x/y").ok() && op.stat("/x/y")->isDir());
    QVERIFY(op.stat("/x/y/z").ok() && op.stat("/x/y/z")->isDir());
    REQUIRE_OK(op.createDir("/a/b", true)); // already there: fine
    REQUIRE_OK(op.writeAll("/f", std::as_bytes(std::span("x", 1))));
    REQUIRE_KIND(op.createDir("/f", true), ErrorKind::NotDirectory);
    QVERIFY(!op.createDir("/f/g", true).ok());
    QVERIFY(op.stat("/f")->isFile()); // left as it was
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestOperatorConfinement)
#include "test_operator_confinement.moc"

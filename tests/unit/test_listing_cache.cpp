// ListingCache: pages served from a listing while it is still being read (first rows
// before the whole folder), in the server's order, each name once; errors, abandoned and
// pushed-out listings.
#include "tests/unit/unit_checks.h"

#include "core/storage/listing_cache.h"

#include <QTest>

#include <atomic>
#include <future>
#include <set>

namespace strata {

namespace {

std::vector<Entry> named(const std::string &prefix, int from, int to)
{
    std::vector<Entry> out;
    for (int i = from; i < to; ++i) {
        Entry e;
        e.name = prefix + std::to_string(i);
        e.path = "/d/" + e.name;
        out.push_back(std::move(e));
    }
    return out;
}

// A folder of `count` entries ("e0"…) in server order (not sorted), sent in batches.
ListingCache::ListAll folder(int count, int batchSize, std::atomic<int> *reads = nullptr)
{
    return [=](const ListingCache::Sink &sink, std::vector<std::string> &) -> Status {
        if (reads)
            ++*reads;
        for (int i = count; i > 0; i -= batchSize) {
            auto batch = named("e", std::max(0, i - batchSize), i);
            if (!sink(batch))
                return Error(ErrorKind::Cancelled, "stopped");
        }
        return {};
    };
}

// Every page until the last: the names in the order handed out.
std::vector<std::string> allPages(ListingCache &cache, const ListingCache::ListAll &listAll, bool stream,
                                  std::size_t pageSize, int *pages = nullptr)
{
    std::vector<std::string> names;
    ListOptions options;
    options.pageSize = pageSize;
    do {
        auto page = cache.page(options, listAll, stream);
        if (!page.ok()) {
            names.push_back("error: " + page.error().message());
            break;
        }
        for (const auto &e : page->entries)
            names.push_back(e.name);
        options.pageToken = page->nextPageToken;
        if (pages)
            ++*pages;
    } while (!options.pageToken.empty());
    return names;
}

// The names of the pages from `options.pageToken` on, until the last.
void pagesAfter(ListingCache &cache, ListOptions options, const ListingCache::ListAll &listAll, bool stream,
                std::vector<std::string> &names)
{
    while (!options.pageToken.empty()) {
        auto page = cache.page(options, listAll, stream);
        REQUIRE_OK(page);
        for (const auto &e : page->entries)
            names.push_back(e.name);
        options.pageToken = page->nextPageToken;
    }
}

} // namespace

class TestListingCache : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void firstPageBeforeTheFolderIsRead();
    void pagesOfTheSizeAsked();
    void serverOrderEachNameOnce();
    void emptyFolderIsOneEmptyPage();
    void skippedNamesComeOnce();
    void errorMidwayFailsThenResumes();
    void pushedOutListingIsReadAgainAndResumed();
    void changedFolderOnResumeIsAnError();
    void foreignTokenIsRefused();
    void abandonedListingStopsItsReader();
    void listingNobodyReadsStopsAfterAWhile();
};

// The first page holds what arrived first while the rest is still on its way: the reader
// here cannot send its second batch until that page was handed out.
void TestListingCache::firstPageBeforeTheFolderIsRead()
{
    ListingCache cache;
    std::promise<void> firstPageOut;
    auto released = firstPageOut.get_future().share();
    auto listAll = [released](const ListingCache::Sink &sink, std::vector<std::string> &) -> Status {
        auto one = named("a", 0, 3);
        if (!sink(one))
            return Error(ErrorKind::Cancelled, "stopped");
        if (released.wait_for(std::chrono::seconds(20)) != std::future_status::ready)
            return Error(ErrorKind::Timeout, "the first page never came out");
        auto two = named("b", 0, 3);
        sink(two);
        return {};
    };
    ListOptions options;
    options.pageSize = 1000;
    auto first = cache.page(options, listAll, true);
    REQUIRE_OK(first);
    QCOMPARE(first->entries.size(), std::size_t(3));
    QCOMPARE(first->entries.front().name, std::string("a0"));
    QVERIFY(!first->nextPageToken.empty());
    firstPageOut.set_value();
    std::vector<std::string> rest;
    options.pageToken = first->nextPageToken;
    pagesAfter(cache, options, listAll, true, rest);
    QCOMPARE(rest, (std::vector<std::string>{"b0", "b1", "b2"}));
}

void TestListingCache::pagesOfTheSizeAsked()
{
    for (const bool stream : {false, true}) {
        ListingCache cache;
        std::atomic<int> reads = 0;
        int pages = 0;
        const auto names = allPages(cache, folder(2500, 2500, &reads), stream, 1000, &pages);
        QCOMPARE(names.size(), std::size_t(2500));
        // Streamed, the last entries may come before the reader knows they are the last:
        // one more page, empty, says so.
        QVERIFY2(pages == 3 || (stream && pages == 4), std::to_string(pages).c_str());
        QCOMPARE(reads.load(), 1); // read once, not once per page
    }
}

void TestListingCache::serverOrderEachNameOnce()
{
    ListingCache cache;
    auto listAll = [](const ListingCache::Sink &sink, std::vector<std::string> &) -> Status {
        for (const auto &leaf : {"z", "a", "m", "a", "z", "b"}) {
            std::vector<Entry> batch(1);
            batch[0].name = leaf;
            batch[0].path = std::string("/d/") + leaf;
            sink(batch);
        }
        return {};
    };
    for (const bool stream : {false, true})
        QCOMPARE(allPages(cache, listAll, stream, 2), (std::vector<std::string>{"z", "a", "m", "b"}));
}

void TestListingCache::emptyFolderIsOneEmptyPage()
{
    ListingCache cache;
    for (const bool stream : {false, true}) {
        auto page = cache.page({}, folder(0, 10), stream);
        REQUIRE_OK(page);
        QVERIFY(page->entries.empty());
        QVERIFY(page->nextPageToken.empty());
    }
}

// Names that are no path come with the page served after they arrived, each once.
void TestListingCache::skippedNamesComeOnce()
{
    for (const bool stream : {false, true}) {
        ListingCache cache;
        std::promise<void> firstPageOut;
        auto released = firstPageOut.get_future().share();
        auto listAll = [stream, released](const ListingCache::Sink &sink, std::vector<std::string> &skipped) -> Status {
            skipped.push_back("a/b");
            auto batch = named("e", 0, 5);
            sink(batch);
            if (stream)
                released.wait_for(std::chrono::seconds(20));
            skipped.push_back("c/d");
            return {};
        };
        ListOptions options;
        options.pageSize = 3;
        auto first = cache.page(options, listAll, stream);
        REQUIRE_OK(first);
        // Read whole first, everything left out is known by the first page.
        const std::vector<std::string> firstSkipped =
            stream ? std::vector<std::string>{"a/b"} : std::vector<std::string>{"a/b", "c/d"};
        QCOMPARE(first->skipped, firstSkipped);
        if (stream)
            firstPageOut.set_value();
        std::vector<std::string> later;
        options.pageToken = first->nextPageToken;
        while (!options.pageToken.empty()) {
            auto page = cache.page(options, listAll, stream);
            REQUIRE_OK(page);
            later.insert(later.end(), page->skipped.begin(), page->skipped.end());
            options.pageToken = page->nextPageToken;
        }
        const std::vector<std::string> laterSkipped =
            stream ? std::vector<std::string>{"c/d"} : std::vector<std::string>{};
        QCOMPARE(later, laterSkipped);
    }
}

// A listing that breaks after its first batch fails its next page; asked again with the
// same token (as the retry layer does), the folder is read again and the pages go on
// after the last name handed out, nothing twice.
void TestListingCache::errorMidwayFailsThenResumes()
{
    ListingCache cache;
    std::atomic<int> reads = 0;
    std::promise<void> firstPageOut;
    auto released = firstPageOut.get_future().share();
    auto listAll = [&reads, released](const ListingCache::Sink &sink, std::vector<std::string> &) -> Status {
        auto batch = named("e", 0, 10);
        sink(batch);
        if (++reads == 1) {
            released.wait_for(std::chrono::seconds(20));
            return Error(ErrorKind::Network, "connection reset");
        }
        auto more = named("f", 0, 10);
        sink(more);
        return {};
    };
    ListOptions options;
    options.pageSize = 4;
    auto first = cache.page(options, listAll, true);
    REQUIRE_OK(first);
    QCOMPARE(first->entries.size(), std::size_t(4));
    firstPageOut.set_value();
    std::vector<std::string> names;
    for (const auto &e : first->entries)
        names.push_back(e.name);
    // What arrived before the break may be served first; then the error.
    options.pageToken = first->nextPageToken;
    for (;;) {
        auto page = cache.page(options, listAll, true);
        if (!page.ok()) {
            QCOMPARE(page.error().kind(), ErrorKind::Network);
            break;
        }
        for (const auto &e : page->entries)
            names.push_back(e.name);
        options.pageToken = page->nextPageToken;
        QVERIFY(!options.pageToken.empty());
    }
    pagesAfter(cache, options, listAll, true, names); // the same token again
    QCOMPARE(reads.load(), 2);
    QCOMPARE(names.size(), std::size_t(20));
    QCOMPARE(std::set<std::string>(names.begin(), names.end()).size(), std::size_t(20));
}

void TestListingCache::pushedOutListingIsReadAgainAndResumed()
{
    ListingCache cache;
    std::atomic<int> reads = 0;
    const auto listAll = folder(30, 30, &reads);
    ListOptions options;
    options.pageSize = 10;
    auto first = cache.page(options, listAll, false);
    REQUIRE_OK(first);
    for (std::size_t i = 0; i < ListingCache::kMaxListings; ++i) // others push it out
        REQUIRE_OK(cache.page(options, folder(30, 30), false));
    std::vector<std::string> names;
    for (const auto &e : first->entries)
        names.push_back(e.name);
    options.pageToken = first->nextPageToken;
    pagesAfter(cache, options, listAll, false, names);
    QCOMPARE(reads.load(), 2);
    QCOMPARE(names.size(), std::size_t(30));
    QCOMPARE(std::set<std::string>(names.begin(), names.end()).size(), std::size_t(30));
}

void TestListingCache::changedFolderOnResumeIsAnError()
{
    ListingCache cache;
    std::atomic<int> reads = 0;
    auto listAll = [&reads](const ListingCache::Sink &sink, std::vector<std::string> &) -> Status {
        auto batch = named(++reads == 1 ? "old" : "new", 0, 10);
        sink(batch);
        return {};
    };
    ListOptions options;
    options.pageSize = 4;
    auto first = cache.page(options, listAll, false);
    REQUIRE_OK(first);
    for (std::size_t i = 0; i < ListingCache::kMaxListings; ++i)
        REQUIRE_OK(cache.page(options, folder(30, 30), false));
    options.pageToken = first->nextPageToken;
    REQUIRE_KIND(cache.page(options, listAll, false), ErrorKind::Corrupt);
}

void TestListingCache::foreignTokenIsRefused()
{
    ListingCache cache;
    ListOptions options;
    options.pageToken = "not a token";
    REQUIRE_KIND(cache.page(options, folder(3, 3), true), ErrorKind::InvalidInput);
    options.pageToken = "1.1\nx\ne0";
    REQUIRE_KIND(cache.page(options, folder(3, 3), true), ErrorKind::InvalidInput);
}

// A listing nobody asks the next page of stops reading once it is dropped (stop(), as a
// backend's destructor calls it): its reader is told at its next batch and joined.
void TestListingCache::abandonedListingStopsItsReader()
{
    std::atomic<int> batches = 0;
    std::atomic<bool> ended = false;
    {
        ListingCache cache;
        auto endless = [&](const ListingCache::Sink &sink, std::vector<std::string> &) -> Status {
            for (int i = 0;; ++i) {
                auto batch = named("e" + std::to_string(i) + ".", 0, 10);
                ++batches;
                if (!sink(batch)) {
                    ended = true;
                    return Error(ErrorKind::Cancelled, "stopped");
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        };
        auto first = cache.page({}, endless, true);
        REQUIRE_OK(first);
        QVERIFY(!first->nextPageToken.empty());
    } // ~ListingCache: stop()
    QVERIFY(ended.load());
    const int seen = batches.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    QCOMPARE(batches.load(), seen); // nothing reads any more
}

// A streamed listing whose next page nobody asks for stops reading after `abandonAfter`
// (a browser moved on); asked for later, its next page reads the folder again and goes on.
void TestListingCache::listingNobodyReadsStopsAfterAWhile()
{
    ListingCache cache(std::chrono::milliseconds(50));
    std::atomic<int> reads = 0, batches = 0;
    auto slow = [&](const ListingCache::Sink &sink, std::vector<std::string> &) -> Status {
        ++reads;
        for (int i = 0; i < 100; ++i) {
            auto batch = named("e", i * 10, i * 10 + 10);
            ++batches;
            if (!sink(batch))
                return Error(ErrorKind::Cancelled, "stopped");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return {};
    };
    ListOptions options;
    options.pageSize = 5;
    auto first = cache.page(options, slow, true);
    REQUIRE_OK(first);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const int seen = batches.load();
    QVERIFY2(seen < 50, std::to_string(seen).c_str()); // 100 batches take 1 s: it stopped
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    QCOMPARE(batches.load(), seen);
    std::vector<std::string> names;
    for (const auto &e : first->entries)
        names.push_back(e.name);
    options.pageToken = first->nextPageToken;
    options.pageSize = 1000;
    pagesAfter(cache, options, slow, true, names);
    QCOMPARE(reads.load(), 2);
    QCOMPARE(names.size(), std::size_t(1000));
    QCOMPARE(std::set<std::string>(names.begin(), names.end()).size(), std::size_t(1000));
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestListingCache)
#include "test_listing_cache.moc"

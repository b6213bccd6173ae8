#include "core/storage/listing_cache.h"

#include "core/storage/random.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <iterator>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_set>

namespace strata {

struct ListingCache::Listing {
    std::mutex mutex;
    std::condition_variable arrived;
    std::vector<Entry> entries;       // as the server sent them, each name once
    std::vector<std::string> skipped; // names that are no path, as they arrived
    std::size_t skippedOut = 0;       // how many of them pages have handed out
    bool done = false;
    std::optional<Error> error;
    std::atomic<bool> cancelled{false};
    // Streamed: a reader whose pages nobody asked for in `abandonAfter` (and nobody waits
    // for) stops, so a folder browsed away from does not keep its connection reading.
    bool watched = false;
    std::chrono::milliseconds abandonAfter{0};
    std::chrono::steady_clock::time_point servedAt = std::chrono::steady_clock::now();
    int waiting = 0;
    bool abandoned = false;                // stopped so: a later page reads the folder again
    std::thread reader;                    // joined once done (retire) or at stop()
    std::unordered_set<std::string> names; // the reader's own: what it already took

    // The reader's work: the whole folder, batch by batch, into `entries`.
    void read(const ListAll &listAll)
    {
        std::vector<std::string> leftOut; // the reader's: moved over with each batch
        const auto takeLeftOut = [&] {
            std::move(leftOut.begin(), leftOut.end(), std::back_inserter(skipped));
            leftOut.clear();
        };
        const Sink sink = [&](std::vector<Entry> &batch) {
            if (cancelled.load(std::memory_order_relaxed))
                return false;
            std::lock_guard lock(mutex);
            if (watched && waiting == 0 && std::chrono::steady_clock::now() - servedAt > abandonAfter) {
                cancelled = abandoned = true;
                return false;
            }
            for (auto &e : batch)
                if (names.insert(e.name).second) // a server listing a child twice lists it once here
                    entries.push_back(std::move(e));
            takeLeftOut();
            arrived.notify_all();
            return true;
        };
        Status st = listAll(sink, leftOut);
        names = {}; // read to the end: nothing more to tell apart
        std::lock_guard lock(mutex);
        if (!st)
            error = std::move(st).error();
        else if (cancelled)
            error = Error(ErrorKind::Cancelled, "the listing was stopped");
        takeLeftOut();
        done = true;
        arrived.notify_all();
    }
};

namespace {

struct Token {
    std::string id;
    std::size_t count = 0; // entries handed out before
    std::string last;      // the last of them
};

std::optional<Token> parseToken(const std::string &text)
{
    const auto a = text.find('\n');
    const auto b = a == std::string::npos ? a : text.find('\n', a + 1);
    if (b == std::string::npos)
        return std::nullopt;
    Token t;
    t.id = text.substr(0, a);
    auto [ptr, ec] = std::from_chars(text.data() + a + 1, text.data() + b, t.count);
    if (ec != std::errc() || ptr != text.data() + b || t.count == 0)
        return std::nullopt;
    t.last = text.substr(b + 1);
    return t;
}

void join(std::thread &reader)
{
    if (reader.joinable() && reader.get_id() != std::this_thread::get_id())
        reader.join();
}

} // namespace

ListingCache::Shared ListingCache::start(ListAll listAll, bool stream)
{
    auto listing = std::make_shared<Listing>();
    listing->abandonAfter = m_abandonAfter;
    if (stream) {
        listing->watched = true;
        try {
            listing->reader =
                std::thread([listing = listing.get(), listAll = std::move(listAll)] { listing->read(listAll); });
            return listing;
        } catch (const std::system_error &) {
            // No thread to be had: read it here, as a whole.
        }
    }
    listing->read(listAll);
    return listing;
}

Result<ListPage> ListingCache::page(const ListOptions &options, ListAll listAll, bool stream)
{
    Shared listing;
    std::string id;
    std::size_t from = 0;
    if (!options.pageToken.empty()) {
        auto token = parseToken(options.pageToken);
        if (!token)
            return Error(ErrorKind::InvalidInput, "the page token is not one of this backend's");
        id = token->id;
        from = token->count;
        listing = find(id);
        if (listing && [&] {
                std::lock_guard lock(listing->mutex);
                return listing->abandoned;
            }()) {
            drop(id);
            listing = nullptr;
        }
        if (!listing) { // pushed out, failed, or another instance's: read it again, whole
            id.clear();
            listing = start(std::move(listAll), false);
            if (listing->error)
                return *listing->error;
            const auto &entries = listing->entries;
            if (from > entries.size() || entries[from - 1].name != token->last) {
                auto it =
                    std::find_if(entries.begin(), entries.end(), [&](const Entry &e) { return e.name == token->last; });
                if (it == entries.end())
                    return Error(ErrorKind::Corrupt, "the folder changed while it was listed; list it again");
                from = std::size_t(it - entries.begin()) + 1;
            }
        }
    } else {
        listing = start(std::move(listAll), stream);
    }

    ListPage page;
    bool last = false;
    {
        std::unique_lock lock(listing->mutex);
        ++listing->waiting;
        listing->arrived.wait(lock, [&] { return listing->done || listing->entries.size() > from; });
        --listing->waiting;
        listing->servedAt = std::chrono::steady_clock::now();
        if (listing->error) {
            Error failed = *listing->error;
            lock.unlock();
            if (!id.empty())
                drop(id);
            else
                retire(listing);
            return failed;
        }
        const auto &entries = listing->entries;
        const std::size_t to = std::min(entries.size(), from + std::max<std::size_t>(options.pageSize, 1));
        page.entries.assign(entries.begin() + std::ptrdiff_t(from), entries.begin() + std::ptrdiff_t(to));
        last = listing->done && to == entries.size();
        // The names left out so far, each handed out once (a page read again after an
        // error may miss some: they are a warning, not data).
        page.skipped.assign(listing->skipped.begin() + std::ptrdiff_t(listing->skippedOut), listing->skipped.end());
        listing->skippedOut = listing->skipped.size();
        if (!last)
            page.nextPageToken = std::to_string(to) + "\n" + (to ? entries[to - 1].name : std::string());
    }
    if (last) {
        if (!id.empty())
            drop(id);
        else
            retire(listing);
        return page;
    }
    if (id.empty())
        id = keep(listing);
    page.nextPageToken = id + "\n" + page.nextPageToken;
    return page;
}

std::string ListingCache::keep(Shared listing)
{
    Shared out;
    std::string id;
    {
        std::lock_guard lock(m_mutex);
        // A random part: a token from another backend instance (or process) never matches.
        id = std::to_string(randomU64()) + "." + std::to_string(++m_next);
        m_listings.emplace_back(id, std::move(listing));
        if (m_listings.size() > kMaxListings) {
            out = std::move(m_listings.front().second);
            m_listings.pop_front();
        }
    }
    if (out)
        retire(std::move(out));
    return id;
}

ListingCache::Shared ListingCache::find(const std::string &id)
{
    std::lock_guard lock(m_mutex);
    for (auto it = m_listings.begin(); it != m_listings.end(); ++it)
        if (it->first == id) {
            m_listings.splice(m_listings.end(), m_listings, it); // used now: the last to go
            return m_listings.back().second;
        }
    return nullptr;
}

void ListingCache::drop(const std::string &id)
{
    Shared out;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_listings.begin(); it != m_listings.end(); ++it)
            if (it->first == id) {
                out = std::move(it->second);
                m_listings.erase(it);
                break;
            }
    }
    if (out)
        retire(std::move(out));
}

// A listing no page will come from: its reader is told to stop, and joined once it has
// (now if it is done, else by a later call or stop()): nobody waits here for a network.
void ListingCache::retire(Shared listing)
{
    listing->cancelled = true;
    std::vector<Shared> finished;
    {
        std::lock_guard lock(m_mutex);
        m_retired.push_back(std::move(listing));
        std::erase_if(m_retired, [&](Shared &l) {
            std::lock_guard inner(l->mutex);
            if (!l->done)
                return false;
            finished.push_back(std::move(l));
            return true;
        });
    }
    for (auto &l : finished)
        join(l->reader); // done: it is returning
}

void ListingCache::stop()
{
    std::vector<Shared> all;
    {
        std::lock_guard lock(m_mutex);
        for (auto &[id, listing] : m_listings)
            all.push_back(std::move(listing));
        m_listings.clear();
        for (auto &listing : m_retired)
            all.push_back(std::move(listing));
        m_retired.clear();
    }
    for (auto &l : all)
        l->cancelled = true;
    for (auto &l : all)
        join(l->reader);
}

} // namespace strata

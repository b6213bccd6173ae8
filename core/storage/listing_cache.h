#pragma once

#include "core/storage/backend.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace strata {

// Some protocols answer a whole directory in one exchange or one handle (WebDAV's
// PROPFIND, FTP's MLSD, SFTP's READDIR on one handle); the Backend interface hands out
// pages. A listing is read once, here, and its pages are served from what has arrived:
// far away, a browser shows the first rows after the first batch, not after the whole
// folder (10 000 entries are 100 READDIR round trips over SFTP, 8 s at 80 ms).
//
// Entries come in the order the server sent them (duplicates dropped), not sorted:
// whoever shows them sorts, as for a local folder. Bounded: the least recently used
// listings go first; a page token whose listing went is served by reading the folder
// again and resuming after the last name handed out. Thread-safe.
class ListingCache {
public:
    // Takes one batch of entries as they arrived; false when the listing is no longer
    // wanted: stop reading.
    using Sink = std::function<bool(std::vector<Entry> &batch)>;
    // Reads the whole directory, each batch to the sink; names that are no path go to
    // `skipped`. An error after some batches fails the listing.
    using ListAll = std::function<Status(const Sink &sink, std::vector<std::string> &skipped)>;

    // A streamed listing nobody asks pages of for `abandonAfter` stops being read (a page
    // asked for later reads the folder again).
    explicit ListingCache(std::chrono::milliseconds abandonAfter = std::chrono::seconds(30))
        : m_abandonAfter(abandonAfter)
    {
    }
    ~ListingCache() { stop(); }
    ListingCache(const ListingCache &) = delete;
    ListingCache &operator=(const ListingCache &) = delete;

    // One page of a listing. The first page starts reading the folder: on a thread of its
    // own when `stream` (it then holds what arrived first, at least one entry unless the
    // folder is empty), else to the end before it returns (a removal's listing, checked
    // as a whole). `listAll` must own what it uses (it may outlive this call).
    Result<ListPage> page(const ListOptions &options, ListAll listAll, bool stream);
    // page() for a backend that reads folder `dir` with backend->*read(dir, within, sink,
    // skipped): streamed, unless it is a removal's listing (options.within).
    template <class B>
    Result<ListPage> pageOf(B *backend,
                            Status (B::*read)(const std::string &, const std::string &, const Sink &,
                                              std::vector<std::string> &),
                            std::string_view dir, const ListOptions &options)
    {
        return page(
            options,
            [backend, read, dir = std::string(dir), within = options.within](const Sink &sink,
                                                                             std::vector<std::string> &skipped) {
                return (backend->*read)(dir, within, sink, skipped);
            },
            options.within.empty());
    }

    // Stops every listing still being read and waits for its reader: a backend calls it
    // first in its destructor, while what the readers use still stands.
    void stop();

    static constexpr std::size_t kMaxListings = 16;

private:
    struct Listing;
    using Shared = std::shared_ptr<Listing>;

    Shared start(ListAll listAll, bool stream);
    std::string keep(Shared listing);
    Shared find(const std::string &id);
    void drop(const std::string &id);
    void retire(Shared listing); // joined once read to the end, or at stop()

    std::mutex m_mutex;
    std::list<std::pair<std::string, Shared>> m_listings; // least recently used first
    std::vector<Shared> m_retired;                        // cancelled, maybe still reading
    std::uint64_t m_next = 0;
    const std::chrono::milliseconds m_abandonAfter;
};

} // namespace strata

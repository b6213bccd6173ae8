#pragma once

#include "core/storage/backend.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace strata {

// Some protocols answer a whole directory at once (WebDAV's PROPFIND, SFTP's READDIR on one
// handle); the Backend interface hands out pages. The sorted listing is kept here between
// the pages of one listing, so a directory of 10 000 entries is read once, not once per
// page. Bounded: the oldest listings go first (a page token whose listing went is served
// by listing again). Thread-safe.
class ListingCache {
public:
    using Listing = std::shared_ptr<const std::vector<Entry>>;
    // Reads the whole directory, sorted by name; names that are no path go to `skipped`.
    using ListAll = std::function<Result<Listing>(std::vector<std::string> &skipped)>;

    // One page of a listing: the first reads the directory with `listAll`, the next ones
    // come from the kept listing. Page token: "<listing id>\n<last name of the page
    // before>"; when the listing is no longer kept, the directory is read again and the
    // page resumes after that name.
    Result<ListPage> page(const ListOptions &options, const ListAll &listAll);

    // Keeps a listing; returns the id its page tokens carry.
    std::string keep(Listing listing);
    // The listing of that id, or null once it was dropped or pushed out.
    Listing find(const std::string &id) const;
    void drop(const std::string &id);

    static constexpr std::size_t kMaxListings = 16;

private:
    mutable std::mutex m_mutex;
    std::deque<std::pair<std::string, Listing>> m_listings; // oldest first
    std::uint64_t m_next = 0;
};

} // namespace strata

#pragma once

#include "core/storage/entry.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace strata::webdav {

// PROPFIND answers a whole collection at once; the Backend interface hands out pages. The
// sorted listing is kept here between the pages of one listing, so a directory of 10 000
// entries costs one PROPFIND, not one per page. Bounded: the oldest listings go first
// (a page token whose listing went is served by listing again). Thread-safe.
class ListingCache {
public:
    using Listing = std::shared_ptr<const std::vector<Entry>>;

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

} // namespace strata::webdav

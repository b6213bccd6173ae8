#include "backends/webdav/webdav_listing_cache.h"

#include "core/storage/random.h"

namespace strata::webdav {

std::string ListingCache::keep(Listing listing)
{
    std::lock_guard lock(m_mutex);
    // A random part: a token from another backend instance (or process) never matches.
    std::string id = std::to_string(randomU64()) + "." + std::to_string(++m_next);
    m_listings.emplace_back(id, std::move(listing));
    if (m_listings.size() > kMaxListings)
        m_listings.pop_front();
    return id;
}

ListingCache::Listing ListingCache::find(const std::string &id) const
{
    std::lock_guard lock(m_mutex);
    for (const auto &[key, listing] : m_listings)
        if (key == id)
            return listing;
    return nullptr;
}

void ListingCache::drop(const std::string &id)
{
    std::lock_guard lock(m_mutex);
    std::erase_if(m_listings, [&](const auto &item) { return item.first == id; });
}

} // namespace strata::webdav

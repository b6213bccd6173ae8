#include "core/storage/listing_cache.h"

#include "core/storage/random.h"

#include <algorithm>

namespace strata {

Result<ListPage> ListingCache::page(const ListOptions &options, const ListAll &listAll)
{
    std::string id, after;
    Listing entries;
    if (!options.pageToken.empty()) {
        const auto nl = options.pageToken.find('\n');
        if (nl == std::string::npos)
            return Error(ErrorKind::InvalidInput, "the page token is not one of this backend's");
        id = options.pageToken.substr(0, nl);
        after = options.pageToken.substr(nl + 1);
        entries = find(id);
    }
    ListPage page;
    if (!entries) {
        auto fresh = listAll(page.skipped);
        if (!fresh)
            return std::move(fresh).error();
        entries = std::move(*fresh);
        id.clear();
    }
    auto begin = options.pageToken.empty()
        ? entries->begin()
        : std::upper_bound(entries->begin(), entries->end(), after,
                           [](const std::string &name, const Entry &e) { return name < e.name; });
    const auto count =
        std::min<std::size_t>(std::max<std::size_t>(options.pageSize, 1), std::size_t(entries->end() - begin));
    page.entries.assign(begin, begin + std::ptrdiff_t(count));
    if (begin + std::ptrdiff_t(count) != entries->end()) {
        if (id.empty())
            id = keep(entries);
        page.nextPageToken = id + "\n" + page.entries.back().name;
    } else if (!id.empty()) {
        drop(id);
    }
    return page;
}

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

} // namespace strata

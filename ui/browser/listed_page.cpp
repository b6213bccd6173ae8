#include "ui/browser/listed_page.h"

#include "core/storage/path.h"

#include <algorithm>
#include <limits>

namespace strata {

namespace {

// Longer tags or targets are cut: a tag only tells a refresh whether the object changed.
constexpr std::size_t kLongestTag = std::numeric_limits<std::uint16_t>::max();

// A million rows are 40 MB of these; the pane's goal is under 150 bytes a row in all.
static_assert(sizeof(ListedEntry) <= 40);

} // namespace

Entry ListedEntry::toEntry(std::string_view folder) const
{
    Entry e;
    e.name = name();
    e.path = joinPath(folder, e.name);
    e.kind = kind;
    e.size = size;
    e.mtimeNs = mtime();
    e.etag = etag();
    if (hasMode)
        e.mode = mode;
    e.symlinkTarget = symlinkTarget();
    return e;
}

ListedPage::ListedPage(const std::vector<Entry> &entries)
{
    std::size_t bytes = 0;
    for (const Entry &e : entries)
        bytes += e.name.size() + std::min(e.etag.size(), kLongestTag) + std::min(e.symlinkTarget.size(), kLongestTag);
    m_text = std::make_unique_for_overwrite<char[]>(bytes);
    m_rows.reserve(entries.size());
    char *at = m_text.get();
    for (const Entry &e : entries) {
        ListedEntry &row = m_rows.emplace_back();
        row.text = at;
        row.size = e.size;
        row.mtimeNs = e.mtimeNs.value_or(0);
        row.hasTime = e.mtimeNs.has_value();
        row.mode = e.mode.value_or(0);
        row.hasMode = e.mode.has_value();
        row.kind = e.kind;
        row.nameLength = std::uint32_t(e.name.size());
        row.etagLength = std::uint16_t(std::min(e.etag.size(), kLongestTag));
        row.targetLength = std::uint16_t(std::min(e.symlinkTarget.size(), kLongestTag));
        at = std::copy_n(e.name.data(), row.nameLength, at);
        at = std::copy_n(e.etag.data(), row.etagLength, at);
        at = std::copy_n(e.symlinkTarget.data(), row.targetLength, at);
    }
}

} // namespace strata

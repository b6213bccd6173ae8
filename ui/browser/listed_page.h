#pragma once

#include "core/storage/entry.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

// One listed entry as the browser keeps it: what the pane shows, sorts by and compares on
// a refresh. Its texts live in its page. Fields only the properties dialog shows
// (allocated, hashes, storage class, device and inode) are left out: it stats again.
struct ListedEntry {
    const char *text = nullptr; // the name, then the ETag, then the symlink target
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    std::uint32_t mode = 0;
    std::uint32_t nameLength = 0;
    std::uint16_t etagLength = 0, targetLength = 0;
    EntryKind kind = EntryKind::File;
    bool hasTime = false, hasMode = false;

    std::string_view name() const { return {text, nameLength}; }
    std::string_view etag() const { return {text + nameLength, etagLength}; }
    std::string_view symlinkTarget() const { return {text + nameLength + etagLength, targetLength}; }
    std::optional<std::int64_t> mtime() const { return hasTime ? std::optional(mtimeNs) : std::nullopt; }
    bool isDir() const { return kind == EntryKind::Directory; }
    // The entry again, its path in `folder`.
    Entry toEntry(std::string_view folder) const;
};

// A page of a listing, kept compact: a row of fixed size per entry and every text in one
// block. Rows never move once made (the model points at them), nor when the page moves.
class ListedPage {
public:
    ListedPage() = default;
    explicit ListedPage(const std::vector<Entry> &entries);

    std::size_t size() const { return m_rows.size(); }
    bool empty() const { return m_rows.empty(); }
    const std::vector<ListedEntry> &rows() const { return m_rows; }

private:
    std::unique_ptr<char[]> m_text;
    std::vector<ListedEntry> m_rows;
};

} // namespace strata

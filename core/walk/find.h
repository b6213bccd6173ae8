#pragma once

// Which entries a search keeps: GNU find's tests on names, sizes, times and kinds, shared by
// `strata find` and the browser's search (which feeds the walker's entries through it).
#include "core/storage/entry.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

// GNU find's -size: "+10M" (more than 10 MiB), "-1k", "100c", "8" (512-byte blocks). The
// size is rounded up to whole units before comparing, as find does: "-1M" keeps only empty
// files, "1M" anything from one byte to one MiB.
struct SizeTest {
    enum class Compare : std::uint8_t { Less, Equal, Greater };
    Compare compare = Compare::Equal;
    std::uint64_t count = 0;
    std::uint64_t unit = 512; // c 1, w 2, b 512, k 1024, M 1024², G 1024³
    bool roundUp = true;      // false: bytes against count × unit exactly (the browser's search)
    bool matches(std::uint64_t bytes) const;
};
// nullopt for anything that is not [+-]N[cwbkMG].
std::optional<SizeTest> parseSizeTest(std::string_view text);

// A point in time from "2026-12-03", "2026-12-03 14:05[:30]", "2026-12-03T14:05:30[Z|±HH:MM]"
// (local time without a zone, as find -newermt reads it) or an age before `nowNs`: "90s",
// "30m", "12h", "7d", "2w". Unix nanoseconds; nullopt when it reads as neither.
std::optional<std::int64_t> parseFindTime(std::string_view text, std::int64_t nowNs);

struct FindCriteria {
    std::string name;        // a shell glob matched against the whole base name; empty: any
    bool ignoreCase = false; // -iname
    bool substring = false;  // `name` is a part of the base name, not a glob
    std::optional<SizeTest> size;
    std::optional<std::int64_t> newerNs; // modified after (find -newermt)
    std::optional<std::int64_t> olderNs; // not modified after (find ! -newermt)
    std::optional<EntryKind> kind;       // -type f, d or l

    // Whether sizes or times are asked about (the walk must then stat what it finds).
    bool needsStat() const { return size || newerNs || olderNs; }
};

// What a search field's text means: a glob where it has *, ? or [, else a part of the name;
// either way case does not matter.
FindCriteria searchTextCriteria(std::string_view text);

// FindCriteria made ready for many entries (the folded pattern computed once).
class FindFilter {
public:
    explicit FindFilter(FindCriteria criteria);
    const FindCriteria &criteria() const { return m_criteria; }
    bool matchesName(std::string_view baseName) const;
    // `size` is the entry's own size (a folder's or link's too, where the storage has one).
    bool matches(std::string_view baseName, EntryKind kind, std::uint64_t size, std::int64_t mtimeNs) const;

private:
    FindCriteria m_criteria;
    std::string m_pattern; // the glob or the part, folded when case is ignored
};

} // namespace strata

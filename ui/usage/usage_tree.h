#pragma once

#include "core/walk/scan.h"

#include <QHash>
#include <QString>

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string_view>
#include <vector>

namespace strata {

// A folder's contents with sizes, for the usage view: built from the walker's entries
// (in any order) with every folder's totals kept up to date as entries arrive, then sorted
// largest first by finish().
struct UsageNode {
    QString name;
    std::uint64_t bytes = 0;     // a file's size; a folder's total
    std::uint64_t allocated = 0; // bytes on disk (a folder: its own and everything below)
    std::uint64_t files = 0;     // files below (a file counts itself)
    std::uint64_t hidden = 0;    // in a partial copy (snapshot()): children left out
    bool dir = false;
    Kept kept = Kept::No; // an object's older versions or unfinished upload (counted as no file)
    UsageNode *parent = nullptr;
    std::vector<std::unique_ptr<UsageNode>> children;

    QString path() const; // relative to the scanned folder, "" for it
};

class UsageTree {
public:
    UsageTree();
    // A relative '/'-separated path; missing parents are made. Each file once: only
    // folders are looked up, so a file added twice would be listed twice.
    void add(std::string_view path, bool dir, std::uint64_t bytes, std::uint64_t allocated = 0, Kept kept = Kept::No);
    // Sorts every folder's children largest first (the totals are kept as entries come).
    void finish();
    UsageNode *root() const { return m_root.get(); }
    std::uint64_t entries() const { return m_entries; }
    // Entries for older versions and unfinished uploads (Kept), not objects.
    std::uint64_t keptEntries() const { return m_kept; }
    // The node at a relative path, or null.
    UsageNode *find(QStringView path) const;
    // Takes node (not the root) out of the tree and its size out of its folders' totals,
    // which keep their order largest first.
    // Fails (false, nothing changed) while a reader holds the tree: try again later.
    bool remove(UsageNode *node);
    // Threads that read the tree while the GUI thread may change it (drawings, comparisons)
    // hold this shared; remove() takes it exclusively, without waiting.
    std::shared_mutex &mutex() const { return m_mutex; }

    // A finished copy of the largest parts, for a picture of a scan in progress: folders
    // taken largest first, in each up to `perFolder` children, the rest summed into one
    // "… more" file (hidden says how many), until about `budget` nodes are copied.
    std::unique_ptr<UsageTree> snapshot(std::size_t budget = 40'000, std::size_t perFolder = 300) const;

private:
    UsageNode *child(UsageNode *parent, const QString &name, bool dir);
    // Adds to node's totals and those of every folder above it.
    static void account(UsageNode *node, std::int64_t bytes, std::int64_t allocated, std::int64_t files);

    std::unique_ptr<UsageNode> m_root;
    QHash<const UsageNode *, QHash<QString, UsageNode *>> m_folders; // sub-folders by name
    std::uint64_t m_entries = 0;
    std::uint64_t m_kept = 0;
    mutable std::shared_mutex m_mutex;
};

// The tree's entries as a scan (paths below the root, sizes, a folder's own allocation;
// no times), to save or to compare with a saved one.
Scan toScan(const UsageTree &tree, const QString &root);

} // namespace strata

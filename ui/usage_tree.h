#pragma once

#include <QHash>
#include <QString>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace strata {

// A folder's contents with sizes, for the usage view: built from the walker's entries
// (in any order), then summed and sorted largest first by finish().
struct UsageNode {
    QString name;
    std::uint64_t bytes = 0;     // a file's size; a folder's total once finished
    std::uint64_t allocated = 0; // bytes on disk (a folder: its own and everything below)
    std::uint64_t files = 0;     // files below (a file counts itself)
    bool dir = false;
    UsageNode *parent = nullptr;
    std::vector<std::unique_ptr<UsageNode>> children;

    QString path() const; // relative to the scanned folder, "" for it
};

class UsageTree {
public:
    UsageTree();
    // A relative '/'-separated path; missing parents are made.
    void add(std::string_view path, bool dir, std::uint64_t bytes, std::uint64_t allocated = 0);
    void finish();
    UsageNode *root() const { return m_root.get(); }
    std::uint64_t entries() const { return m_entries; }

private:
    UsageNode *child(UsageNode *parent, const QString &name, bool dir);

    std::unique_ptr<UsageNode> m_root;
    QHash<const UsageNode *, QHash<QString, UsageNode *>> m_index; // while building
    std::uint64_t m_entries = 0;
};

} // namespace strata

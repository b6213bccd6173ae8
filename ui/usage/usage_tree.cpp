#include "ui/usage/usage_tree.h"

#include <QCoreApplication>
#include <QDateTime>

#include <algorithm>
#include <mutex>
#include <queue>

namespace strata {

namespace {

bool largerFirst(const std::unique_ptr<UsageNode> &a, const std::unique_ptr<UsageNode> &b)
{
    return a->bytes > b->bytes || (a->bytes == b->bytes && a->name < b->name);
}

} // namespace

QString UsageNode::path() const
{
    QString out;
    for (const UsageNode *n = this; n && n->parent; n = n->parent)
        out = out.isEmpty() ? n->name : n->name + QLatin1Char('/') + out;
    return out;
}

UsageTree::UsageTree() : m_root(std::make_unique<UsageNode>())
{
    m_root->dir = true;
}

void UsageTree::account(UsageNode *node, std::int64_t bytes, std::int64_t allocated, std::int64_t files)
{
    for (UsageNode *n = node; n; n = n->parent) {
        n->bytes += std::uint64_t(bytes);
        n->allocated += std::uint64_t(allocated);
        n->files += std::uint64_t(files);
    }
}

UsageNode *UsageTree::child(UsageNode *parent, const QString &name, bool dir)
{
    // Files are not indexed (a million names would cost tens of MiB): only folders are
    // looked up, to hang what is below them in the right place.
    if (dir) {
        auto &folders = m_folders[parent];
        if (auto it = folders.constFind(name); it != folders.constEnd())
            return *it;
    }
    auto node = std::make_unique<UsageNode>();
    node->name = name;
    node->dir = dir;
    node->parent = parent;
    UsageNode *raw = node.get();
    parent->children.push_back(std::move(node));
    if (dir)
        m_folders[parent].insert(name, raw);
    return raw;
}

void UsageTree::add(std::string_view path, bool dir, std::uint64_t bytes, std::uint64_t allocated, Kept kept)
{
    UsageNode *at = m_root.get();
    while (!path.empty()) {
        const auto slash = path.find('/');
        const std::string_view segment = path.substr(0, slash);
        const bool last = slash == std::string_view::npos;
        if (!segment.empty())
            at = child(at, QString::fromUtf8(segment.data(), qsizetype(segment.size())), last ? dir : true);
        path = last ? std::string_view() : path.substr(slash + 1);
    }
    if (at == m_root.get()) {
        ++m_entries;
        return;
    }
    at->kept = kept;
    m_kept += kept != Kept::No;
    account(at, dir ? 0 : std::int64_t(bytes), std::int64_t(allocated), dir || kept != Kept::No ? 0 : 1);
    ++m_entries;
}

void UsageTree::finish()
{
    m_folders.clear();
    m_folders.squeeze();
    std::vector<UsageNode *> stack{m_root.get()};
    while (!stack.empty()) { // without recursion: deep trees must not exhaust the stack
        UsageNode *node = stack.back();
        stack.pop_back();
        std::sort(node->children.begin(), node->children.end(), largerFirst);
        for (auto &c : node->children)
            if (!c->children.empty())
                stack.push_back(c.get());
    }
}

UsageNode *UsageTree::find(QStringView path) const
{
    UsageNode *at = m_root.get();
    for (QStringView segment : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        const auto it =
            std::find_if(at->children.begin(), at->children.end(), [&](const auto &c) { return c->name == segment; });
        if (it == at->children.end())
            return nullptr;
        at = it->get();
    }
    return at;
}

bool UsageTree::remove(UsageNode *node)
{
    UsageNode *parent = node ? node->parent : nullptr;
    if (!parent)
        return true;
    const std::unique_lock lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock())
        return false;
    account(parent, -std::int64_t(node->bytes), -std::int64_t(node->allocated), -std::int64_t(node->files));
    if (node->dir)
        if (auto it = m_folders.find(parent); it != m_folders.end())
            it->remove(node->name);
    auto &siblings = parent->children;
    siblings.erase(std::find_if(siblings.begin(), siblings.end(), [&](const auto &c) { return c.get() == node; }));
    --m_entries;
    // Every folder above shrank: it moves down among its siblings.
    for (UsageNode *n = parent; n->parent; n = n->parent)
        std::stable_sort(n->parent->children.begin(), n->parent->children.end(), largerFirst);
    return true;
}

std::unique_ptr<UsageTree> UsageTree::snapshot(std::size_t budget, std::size_t perFolder) const
{
    auto copy = std::make_unique<UsageTree>();
    copy->m_entries = m_entries;
    copy->m_kept = m_kept;
    const auto same = [](UsageNode &to, const UsageNode &from) {
        to.name = from.name;
        to.bytes = from.bytes;
        to.allocated = from.allocated;
        to.files = from.files;
        to.dir = from.dir;
        to.kept = from.kept;
    };
    same(*copy->m_root, *m_root);
    // Folders to copy, largest first: the budget goes where the space is.
    using Pending = std::pair<const UsageNode *, UsageNode *>; // original, its copy
    const auto smaller = [](const Pending &a, const Pending &b) { return a.first->bytes < b.first->bytes; };
    std::priority_queue<Pending, std::vector<Pending>, decltype(smaller)> folders(smaller);
    folders.push({m_root.get(), copy->m_root.get()});
    std::size_t copied = 1;
    std::vector<const UsageNode *> order;
    while (!folders.empty() && copied < budget) {
        auto [from, to] = folders.top();
        folders.pop();
        order.clear();
        for (const auto &c : from->children)
            order.push_back(c.get());
        const std::size_t keep = std::min({order.size(), perFolder, budget - copied});
        const auto larger = [](const UsageNode *a, const UsageNode *b) {
            return a->bytes > b->bytes || (a->bytes == b->bytes && a->name < b->name);
        };
        std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(keep), order.end(), larger);
        std::uint64_t keptBytes = 0, keptAllocated = 0, keptFiles = 0;
        for (std::size_t i = 0; i < keep; ++i) {
            auto node = std::make_unique<UsageNode>();
            same(*node, *order[i]);
            node->parent = to;
            keptBytes += node->bytes;
            keptAllocated += node->allocated;
            keptFiles += node->files;
            if (node->dir && !order[i]->children.empty())
                folders.push({order[i], node.get()});
            to->children.push_back(std::move(node));
        }
        copied += keep;
        if (keep < order.size()) {
            // The rest as one tile, so the picture keeps its proportions.
            auto rest = std::make_unique<UsageNode>();
            rest->name = QCoreApplication::translate("UsageTree", "… %n more", nullptr, int(order.size() - keep));
            rest->bytes = from->bytes - std::min(from->bytes, keptBytes);
            rest->allocated = from->allocated - std::min(from->allocated, keptAllocated);
            rest->files = from->files - std::min(from->files, keptFiles);
            rest->parent = to;
            to->hidden = order.size() - keep;
            to->children.push_back(std::move(rest));
            ++copied;
            std::sort(to->children.begin(), to->children.end(), largerFirst);
        }
    }
    // Folders the budget did not reach keep their totals and show as one tile.
    return copy;
}

Scan toScan(const UsageTree &tree, const QString &root)
{
    Scan scan;
    scan.root = root.toStdString();
    scan.takenNs = QDateTime::currentMSecsSinceEpoch() * 1'000'000;
    std::vector<std::pair<const UsageNode *, std::string>> stack;
    for (const auto &c : tree.root()->children)
        stack.emplace_back(c.get(), c->name.toStdString());
    while (!stack.empty()) {
        auto [node, path] = std::move(stack.back());
        stack.pop_back();
        std::uint64_t allocated = node->allocated;
        if (node->dir)
            for (const auto &c : node->children)
                allocated -= std::min(allocated, c->allocated); // the folder's own only
        scan.entries.push_back({path, node->dir ? EntryKind::Directory : EntryKind::File, node->dir ? 0 : node->bytes,
                                allocated, 0, node->kept});
        for (const auto &c : node->children)
            stack.emplace_back(c.get(), path + '/' + c->name.toStdString());
    }
    return scan;
}

} // namespace strata

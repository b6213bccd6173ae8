#include "ui/usage_tree.h"

#include <algorithm>

namespace strata {

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

UsageNode *UsageTree::child(UsageNode *parent, const QString &name, bool dir)
{
    auto &index = m_index[parent];
    if (auto it = index.constFind(name); it != index.constEnd()) {
        (*it)->dir = (*it)->dir || dir;
        return *it;
    }
    auto node = std::make_unique<UsageNode>();
    node->name = name;
    node->dir = dir;
    node->parent = parent;
    UsageNode *raw = node.get();
    parent->children.push_back(std::move(node));
    index.insert(name, raw);
    return raw;
}

void UsageTree::add(std::string_view path, bool dir, std::uint64_t bytes, std::uint64_t allocated)
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
    if (!dir)
        at->bytes = bytes;
    at->allocated = allocated;
    ++m_entries;
}

void UsageTree::finish()
{
    m_index.clear();
    // Post-order without recursion: deep trees must not exhaust the stack.
    std::vector<std::pair<UsageNode *, bool>> stack{{m_root.get(), false}};
    while (!stack.empty()) {
        auto [node, done] = stack.back();
        stack.pop_back();
        if (!done) {
            stack.push_back({node, true});
            for (auto &c : node->children)
                stack.push_back({c.get(), false});
            continue;
        }
        if (!node->dir) {
            node->files = 1;
            continue;
        }
        node->bytes = 0;
        node->files = 0;
        for (const auto &c : node->children) {
            node->bytes += c->bytes;
            node->files += c->files;
            node->allocated += c->allocated; // on top of the folder's own
        }
        std::sort(node->children.begin(), node->children.end(), [](const auto &a, const auto &b) {
            return a->bytes > b->bytes || (a->bytes == b->bytes && a->name < b->name);
        });
    }
}

} // namespace strata

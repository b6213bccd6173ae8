// DirectoryModel's plans: the comparisons of a merge and of a refresh, worked out on a
// worker thread for a big folder (any thread; they only read).
#include "ui/browser/directory_model.h"
#include "ui/browser/directory_model_work.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace strata {

using directory_model_work::kMostInsertions;
using directory_model_work::kSmallFolder;

// Matches the rows to the new listing by name: all the hashing and comparing of a refresh.
// Any thread.
DirectoryModel::RefreshPlan DirectoryModel::planRefresh(const Rows &rows, const EntryStore &fresh,
                                                        const EntryOrder &order)
{
    std::size_t listed = 0;
    for (const auto &page : fresh)
        listed += page.size();
    std::unordered_map<std::string_view, const ListedEntry *> byName;
    byName.reserve(listed);
    for (const auto &page : fresh)
        for (const ListedEntry &e : page.rows())
            byName.emplace(e.name(), &e);
    RefreshPlan plan;
    plan.sortedBy = order.key();
    plan.kept.reserve(rows.size());
    std::unordered_set<const ListedEntry *> known;
    known.reserve(rows.size());
    const ListedEntry *previous = nullptr;
    bool previousChanged = false;
    for (std::size_t row = 0; row < rows.size(); ++row) {
        const auto it = byName.find(rows[row]->name());
        if (it == byName.end()) { // gone: a run of its own, or the one before grows
            if (!plan.gone.empty() && plan.gone.back().second + 1 == row)
                plan.gone.back().second = row;
            else
                plan.gone.emplace_back(row, row);
            continue;
        }
        const ListedEntry *now = it->second, *was = rows[row];
        known.insert(now);
        const bool changed = now->kind != was->kind || now->size != was->size || now->mtime() != was->mtime()
            || now->etag() != was->etag();
        if (changed)
            plan.changed.push_back(plan.kept.size());
        // A changed size or time may move a row: then all are sorted again.
        if (previous && (previousChanged || changed) && order(now, previous))
            plan.inOrder = false;
        previous = now;
        previousChanged = changed;
        plan.kept.push_back(now);
    }
    for (const auto &page : fresh)
        for (const ListedEntry &e : page.rows())
            if (!known.contains(&e))
                plan.added.push_back(&e);
    order.sort(plan.added);
    return plan;
}

// Sorts pages sorted otherwise, merges them into one batch and finds where each of its
// rows goes among `rows`: all the comparisons of a merge. Any thread.
DirectoryModel::MergePlan DirectoryModel::planMerge(std::vector<Rows> runs, const std::vector<int> &sortedBy,
                                                    const Rows &rows, const EntryOrder &order)
{
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (sortedBy[i] != order.key()) // listed before the user sorted by another column
            order.sort(runs[i]);
    // Pairwise merges of the sorted pages: O(k log pages) comparisons.
    while (runs.size() > 1) {
        std::vector<Rows> merged;
        for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
            Rows both(runs[i].size() + runs[i + 1].size());
            if (runs[i].empty() || runs[i + 1].empty() || !order(runs[i + 1].front(), runs[i].back()))
                std::copy(runs[i + 1].begin(), runs[i + 1].end(), // pages listed in order: one after the other
                          std::copy(runs[i].begin(), runs[i].end(), both.begin()));
            else
                std::merge(runs[i].begin(), runs[i].end(), runs[i + 1].begin(), runs[i + 1].end(), both.begin(), order);
            merged.push_back(std::move(both));
        }
        if (runs.size() % 2)
            merged.push_back(std::move(runs.back()));
        runs = std::move(merged);
    }
    MergePlan plan;
    if (runs.empty() || runs.front().empty())
        return plan;
    plan.batch = std::move(runs.front());
    const Rows &batch = plan.batch;
    const std::size_t n = rows.size(), k = batch.size();
    // where[i]: the row of `rows` that batch[i] goes before (n: after the last).
    plan.where.resize(k);
    std::size_t from = 0;
    if (n == 0 || !order(batch.front(), rows.back())) { // all after the last row
        from = n;
        plan.places = 1;
    }
    for (std::size_t i = 0; i < k; ++i) {
        if (from == n) {
            plan.where[i] = n;
            continue;
        }
        if (!order(batch[i], rows[n - 1]))
            from = n; // past the last row (the usual case of a listing already in order)
        else
            from = std::size_t(std::upper_bound(rows.begin() + std::ptrdiff_t(from), rows.end(), batch[i], order)
                               - rows.begin());
        plan.places += i == 0 || plan.where[i - 1] != from;
        plan.where[i] = from;
    }
    // A big folder changes its layout once (applyMerge): one place or the merged order.
    const bool big = n + k >= kSmallFolder;
    if (plan.places == 1 || !big) {
        plan.grown.reserve(n + k);
        plan.grown.assign(rows.begin(), rows.end());
        if (plan.places == 1)
            plan.grown.insert(plan.grown.begin() + std::ptrdiff_t(plan.where[0]), batch.begin(), batch.end());
        else if (plan.places > kMostInsertions)
            plan.grown.insert(plan.grown.end(), batch.begin(), batch.end());
    }
    if (plan.places == 1 || (plan.places <= kMostInsertions && !big))
        return plan;
    plan.merged.reserve(n + k);
    for (std::size_t i = 0, row = 0; i <= k; ++i) {
        const std::size_t upTo = i < k ? plan.where[i] : n;
        plan.merged.insert(plan.merged.end(), rows.begin() + std::ptrdiff_t(row), rows.begin() + std::ptrdiff_t(upTo));
        row = upTo;
        if (i < k)
            plan.merged.push_back(batch[i]);
    }
    return plan;
}

} // namespace strata

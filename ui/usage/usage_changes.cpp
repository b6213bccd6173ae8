// The Usage page's comparison with a saved scan: the same comparison strata du --compare
// prints (core/walk/scan.h), found in the tree on show, as colours and a list column.
#include "ui/usage/usage_changes.h"

#include "ui/common/entry_format.h"
#include "ui/usage/usage_view.h"

#include <QDateTime>
#include <QLabel>
#include <QTreeWidget>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <unordered_map>

namespace strata {

namespace {

QRgb mix(QRgb from, QRgb to, double t)
{
    const auto channel = [t](int a, int b) { return int(std::lround(a + (b - a) * t)); };
    return qRgb(channel(qRed(from), qRed(to)), channel(qGreen(from), qGreen(to)), channel(qBlue(from), qBlue(to)));
}

} // namespace

QRgb growthColor(std::uint64_t before, std::uint64_t after)
{
    if (before == after)
        return kUnchanged;
    const double larger = double(std::max(before, after));
    const double t = std::sqrt(std::abs(double(after) - double(before)) / larger);
    return mix(kUnchanged, after > before ? kGrew : kShrank, t);
}

UsageView::Change UsageView::changeOf(const UsageNode *node) const
{
    if (!m_changes || !node)
        return {node ? node->bytes : 0, false};
    if (auto it = m_changes->constFind(node); it != m_changes->constEnd())
        return *it;
    // Below a folder that appeared, everything did.
    for (const UsageNode *p = node->parent; p; p = p->parent)
        if (auto it = m_changes->constFind(p); it != m_changes->constEnd() && it->appeared)
            return {0, true};
    return {node->bytes, false};
}

QString UsageView::changeText(const UsageNode *node) const
{
    if (!m_changes)
        return {};
    const Change c = changeOf(node);
    if (c.appeared)
        return tr("new");
    if (c.before == node->bytes)
        return {};
    return (node->bytes > c.before ? QStringLiteral("+") : QStringLiteral("−"))
        + sizeString(node->bytes > c.before ? node->bytes - c.before : c.before - node->bytes);
}

void UsageView::compareWith(const QString &scanFile)
{
    if (!m_tree || m_partial) {
        m_status->setText(tr("Scan or open a scan first, then compare it with a saved one"));
        return;
    }
    m_status->setText(tr("Comparing with %1…").arg(scanFile));
    struct Compared {
        std::shared_ptr<const Changes> changes;
        QString message;
    };
    const std::shared_ptr<UsageTree> tree = m_tree;
    QtConcurrent::run([tree, scanFile, label = m_rootLabel]() -> Compared {
        auto before = loadScan(scanFile.toStdString());
        if (!before)
            return {nullptr, QString::fromStdString(before.error().message())};
        const std::shared_lock lock(tree->mutex());
        // The comparison strata du --compare prints, then its entries found in the tree.
        const ScanComparison compared = compareScans(*before, toScan(*tree, label), true);
        std::unordered_map<std::string_view, const ScanChange *> byPath;
        for (const ScanChange &c : compared.changes)
            byPath.emplace(c.path, &c);
        auto changes = std::make_shared<Changes>();
        changes->insert(tree->root(), {compared.before, false});
        std::vector<std::pair<const UsageNode *, std::string>> stack;
        for (const auto &c : tree->root()->children)
            stack.emplace_back(c.get(), c->name.toStdString());
        while (!stack.empty()) {
            auto [node, path] = std::move(stack.back());
            stack.pop_back();
            if (node->kept != Kept::No)
                continue; // versions and uploads are not compared: their objects are
            if (auto it = byPath.find(path); it != byPath.end()) {
                const bool appeared = it->second->kind == ScanChange::Kind::Appeared;
                changes->insert(node, {it->second->before, appeared});
                if (appeared)
                    continue; // everything below is new too
            }
            for (const auto &c : node->children)
                stack.emplace_back(c.get(), path + '/' + c->name.toStdString());
        }
        const auto delta = std::int64_t(compared.after) - std::int64_t(compared.before);
        const QString message =
            tr("Since %1 (%2): %3 → %4 (%5%6); %L7 grew, %L8 shrank, %L9 appeared, %L10 vanished")
                .arg(QString::fromStdString(before->root),
                     QDateTime::fromMSecsSinceEpoch(before->takenNs / 1'000'000).toString(Qt::ISODate),
                     sizeString(compared.before), sizeString(compared.after),
                     delta < 0 ? QStringLiteral("−") : QStringLiteral("+"),
                     sizeString(std::uint64_t(delta < 0 ? -delta : delta)))
                .arg(compared.grown)
                .arg(compared.shrunk)
                .arg(compared.appeared)
                .arg(compared.vanished);
        return {std::move(changes), message};
    }).then(this, [this, tree](const Compared &result) {
        if (tree != m_tree)
            return; // another tree is on show now
        if (!result.changes) {
            m_status->setText(result.message);
            Q_EMIT comparisonFinished(false, result.message);
            return;
        }
        m_changes = result.changes;
        m_changesSummary = result.message;
        applyComparison();
        Q_EMIT comparisonFinished(true, result.message);
    });
}

void UsageView::applyComparison()
{
    m_categoryLegend->setVisible(!m_changes);
    m_changeLegend->setVisible(m_changes != nullptr);
    m_list->setColumnHidden(kChangeColumn, !m_changes);
    if (!m_changes) {
        m_map->setColoring({});
        m_map->setTooltipNote({});
    } else {
        m_map->setTooltipNote([this](const UsageNode &node) {
            const Change c = changeOf(&node);
            if (c.appeared)
                return tr("New since the saved scan");
            const QString text = changeText(&node);
            return text.isEmpty() ? tr("Unchanged since the saved scan")
                                  : tr("%1 since the saved scan (was %2)").arg(text, sizeString(c.before));
        });
        // The same rule as changeOf(), on the drawing's thread: the table is not changed again.
        m_map->setColoring([changes = m_changes](const UsageNode &node) -> QRgb {
            if (auto it = changes->constFind(&node); it != changes->constEnd())
                return it->appeared ? kAppeared : growthColor(it->before, node.bytes);
            for (const UsageNode *p = node.parent; p; p = p->parent)
                if (auto it = changes->constFind(p); it != changes->constEnd() && it->appeared)
                    return kAppeared;
            return kUnchanged;
        });
    }
    showCurrent();
    m_status->setText(m_changes ? m_changesSummary : statusText());
}

void UsageView::stopComparing()
{
    m_changes.reset();
    applyComparison();
}

} // namespace strata

#include "ui/usage_view.h"

#include "core/walk/walker.h"
#include "ui/entry_format.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace strata {

UsageView::UsageView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_crumbs = new QHBoxLayout;
    m_crumbs->setSpacing(0);
    top->addLayout(m_crumbs);
    top->addStretch();
    m_status = new QLabel(this);
    m_cancel = new QPushButton(tr("&Cancel scan"), this);
    m_cancel->setEnabled(false);
    top->addWidget(m_status);
    top->addWidget(m_cancel);
    layout->addLayout(top);
    auto *split = new QSplitter(Qt::Horizontal, this);
    auto *mapSide = new QWidget(split);
    auto *mapLayout = new QVBoxLayout(mapSide);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    m_map = new TreemapWidget(mapSide);
    m_map->setMinimumSize(300, 200);
    mapLayout->addWidget(m_map, 1);
    // The legend: what each colour stands for.
    auto *legend = new QHBoxLayout;
    for (int c = 0; c < kFileCategories; ++c) {
        auto *swatch = new QLabel(mapSide);
        swatch->setFixedSize(12, 12);
        swatch->setStyleSheet(
            QStringLiteral("background: %1; border: 1px solid #555;").arg(categoryColor(FileCategory(c)).name()));
        legend->addWidget(swatch);
        legend->addWidget(new QLabel(categoryName(FileCategory(c)), mapSide));
        legend->addSpacing(8);
    }
    legend->addStretch();
    mapLayout->addLayout(legend);
    m_list = new QTreeWidget(split);
    m_list->setHeaderLabels({tr("Largest"), tr("Size"), tr("Share")});
    m_list->setRootIsDecorated(false);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_list->setMinimumWidth(280);
    split->addWidget(mapSide);
    split->addWidget(m_list);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    m_progress = new QTimer(this);
    m_progress->setInterval(100);
    connect(m_progress, &QTimer::timeout, this,
            [this] { m_status->setText(tr("Scanning… %L1 entries").arg(m_seen.load())); });
    connect(m_cancel, &QPushButton::clicked, this, &UsageView::cancel);
    connect(m_map, &TreemapWidget::zoomRequested, this, &UsageView::zoomTo);
    connect(m_map, &TreemapWidget::zoomOutRequested, this, [this] {
        if (m_current && m_current->parent)
            zoomTo(m_current->parent);
    });
    // The selection in the map picks the row of the top-level entry that holds it.
    connect(m_map, &TreemapWidget::selectionChanged, this, [this](const UsageNode *node) {
        while (node && node->parent && node->parent != m_current)
            node = node->parent;
        for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
            QTreeWidgetItem *item = m_list->topLevelItem(i);
            if (item->data(0, Qt::UserRole).value<void *>() == node) {
                const QSignalBlocker quiet(m_list);
                m_list->setCurrentItem(item);
                return;
            }
        }
        const QSignalBlocker quiet(m_list);
        m_list->setCurrentItem(nullptr);
    });
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item)
            m_map->select(static_cast<const UsageNode *>(item->data(0, Qt::UserRole).value<void *>()));
    });
    connect(m_list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        auto *node = static_cast<UsageNode *>(item->data(0, Qt::UserRole).value<void *>());
        if (node && node->dir)
            zoomTo(node);
    });
}

UsageView::~UsageView()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void UsageView::scan(const Location &location)
{
    cancel();
    if (m_worker.joinable())
        m_worker.join(); // a cancelled walk stops between batches
    m_done = false;
    m_seen = 0;
    m_cancel->setEnabled(true);
    m_progress->start();
    const QString label = QString::fromStdString(location.display());
    m_worker = std::jthread([this, location, label](std::stop_token stop) {
        auto tree = std::make_unique<UsageTree>();
        WalkOptions options;
        options.stat = true; // sizes of every file
        auto summary = walkTree(
            *location.op, location.path, options,
            [&](std::span<const WalkEntry> batch) {
                for (const auto &e : batch)
                    tree->add(e.path, e.kind == EntryKind::Directory, e.size);
                m_seen += batch.size();
            },
            stop);
        QString message;
        if (!summary)
            message = QString::fromStdString(summary.error().message());
        else if (summary->cancelled)
            message = tr("Scan cancelled");
        else if (!summary->errors.empty())
            message = tr("%n folder(s) could not be read, e.g. %1", nullptr, int(summary->errors.size()))
                          .arg(QString::fromStdString(summary->errors.front().message));
        const bool ok = summary && !summary->cancelled;
        if (ok)
            tree->finish();
        QMetaObject::invokeMethod(
            this,
            [this, ok, message, label, t = tree.release()] {
                std::unique_ptr<UsageTree> owned(t);
                m_done = true;
                m_progress->stop();
                m_cancel->setEnabled(false);
                if (ok)
                    setTree(std::move(owned), label);
                if (!message.isEmpty())
                    m_status->setText(message);
                Q_EMIT scanFinished(ok, message.isEmpty() ? m_status->text() : message);
            },
            Qt::QueuedConnection);
    });
}

void UsageView::cancel()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void UsageView::setTree(std::unique_ptr<UsageTree> tree, const QString &rootLabel)
{
    m_tree = std::move(tree);
    m_rootLabel = rootLabel;
    m_status->setText(tr("%1 in %L2 files").arg(sizeString(m_tree->root()->bytes)).arg(m_tree->root()->files));
    zoomTo(m_tree->root());
}

void UsageView::zoomTo(UsageNode *node)
{
    m_current = node;
    showCurrent();
}

void UsageView::showCurrent()
{
    while (auto *item = m_crumbs->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    std::vector<UsageNode *> chain;
    for (UsageNode *n = m_current; n; n = n->parent)
        chain.insert(chain.begin(), n);
    for (UsageNode *n : chain) {
        auto *b = new QToolButton(this);
        b->setAutoRaise(true);
        b->setText((n->parent ? n->name : m_rootLabel) + (n == m_current ? QString() : QStringLiteral("  ›")));
        connect(b, &QToolButton::clicked, this, [this, n] { zoomTo(n); });
        m_crumbs->addWidget(b);
    }
    m_map->setNode(m_current, m_tree);
    m_list->clear();
    if (!m_current)
        return;
    const double total = double(std::max<std::uint64_t>(1, m_current->bytes));
    int shown = 0;
    for (const auto &c : m_current->children) {
        if (++shown > 200)
            break; // the largest only: the treemap shows the rest
        auto *item = new QTreeWidgetItem(m_list,
                                         {c->name + (c->dir ? QStringLiteral("/") : QString()), sizeString(c->bytes),
                                          QStringLiteral("%1%").arg(100.0 * double(c->bytes) / total, 0, 'f', 1)});
        item->setData(0, Qt::UserRole, QVariant::fromValue<void *>(c.get()));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
    }
}

} // namespace strata

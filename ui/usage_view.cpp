#include "ui/usage_view.h"

#include "core/walk/walker.h"
#include "ui/entry_format.h"
#include "ui/treemap.h"

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

namespace {

// Folders in blues, files in a colour of their extension: similar things look alike.
QColor colorOf(const UsageNode &node, int index)
{
    if (node.dir)
        return QColor::fromHsv(210, 90 + (index * 37) % 80, 200 - (index * 23) % 50);
    const auto dot = node.name.lastIndexOf(QLatin1Char('.'));
    const uint hue = qHash(dot > 0 ? node.name.mid(dot).toLower() : QString()) % 360;
    return QColor::fromHsv(int(hue), 110, 225);
}

} // namespace

void TreemapWidget::setNode(UsageNode *node)
{
    m_node = node;
    layoutRects();
    update();
}

void TreemapWidget::layoutRects()
{
    m_rects.clear();
    if (!m_node)
        return;
    std::vector<double> weights;
    for (const auto &c : m_node->children)
        weights.push_back(double(c->bytes));
    m_rects = squarify(weights, QRectF(rect()).adjusted(1, 1, -1, -1));
}

UsageNode *TreemapWidget::childAt(const QPointF &pos) const
{
    for (std::size_t i = 0; i < m_rects.size(); ++i)
        if (m_rects[i].contains(pos))
            return m_node->children[i].get();
    return nullptr;
}

void TreemapWidget::resizeEvent(QResizeEvent *)
{
    layoutRects();
}

void TreemapWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_node || m_node->children.empty()) {
        p.drawText(rect(), Qt::AlignCenter,
                   m_node ? tr("This folder is empty") : tr("Scan a folder to see where its space goes"));
        return;
    }
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        const QRectF r = m_rects[i];
        if (r.width() < 1 || r.height() < 1)
            continue;
        const UsageNode &child = *m_node->children[i];
        p.fillRect(r, colorOf(child, int(i)));
        p.setPen(palette().window().color().darker(130));
        p.drawRect(r);
        const QString label = child.name + QLatin1Char('\n') + sizeString(child.bytes);
        if (r.width() > 60 && r.height() > 2.2 * fontMetrics().height()) {
            p.setPen(Qt::black);
            p.drawText(r.adjusted(4, 2, -4, -2), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, label);
        }
    }
}

void TreemapWidget::mouseMoveEvent(QMouseEvent *event)
{
    if (UsageNode *n = childAt(event->position()))
        QToolTip::showText(event->globalPosition().toPoint(),
                           tr("%1\n%2 (%L3 bytes)%4")
                               .arg(n->path(), sizeString(n->bytes))
                               .arg(n->bytes)
                               .arg(n->dir ? tr(", %n file(s); click to zoom in", nullptr, int(n->files)) : QString()),
                           this);
    else
        QToolTip::hideText();
}

void TreemapWidget::mouseReleaseEvent(QMouseEvent *event)
{
    if (UsageNode *n = childAt(event->position()); n && n->dir && event->button() == Qt::LeftButton)
        Q_EMIT zoomRequested(n);
}

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
    m_map = new TreemapWidget(split);
    m_map->setMouseTracking(true);
    m_map->setMinimumSize(300, 200);
    m_list = new QTreeWidget(split);
    m_list->setHeaderLabels({tr("Largest"), tr("Size"), tr("Share")});
    m_list->setRootIsDecorated(false);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_list->setMinimumWidth(280);
    split->addWidget(m_map);
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
    m_map->setNode(m_current);
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

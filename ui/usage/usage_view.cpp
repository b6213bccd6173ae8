#include "ui/usage/usage_view.h"

#include "core/storage/path.h"
#include "core/walk/scan.h"
#include "core/walk/walker.h"
#include "ui/browser/file_actions.h"
#include "ui/common/allocation_map.h"
#include "ui/common/entry_format.h"
#include "ui/usage/usage_changes.h"

#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

#include <chrono>

namespace strata {

namespace {

constexpr int kShownPerFolder = 200; // rows per folder in the list; the map shows the rest
const QString kRecentKey = QStringLiteral("usage/recent");
const QString kRecentScansKey = QStringLiteral("usage/recentScans");

constexpr int kShareRole = Qt::UserRole + 1; // a row's share of its folder, 0..1

// The Share column: a bar as long as the share, the percentage over it.
class ShareBarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const QVariant share = index.data(kShareRole);
        if (share.isValid()) {
            QRectF bar = QRectF(option.rect).adjusted(2, 3, -2, -3);
            bar.setWidth(bar.width() * std::clamp(share.toDouble(), 0.0, 1.0));
            painter->fillRect(bar, option.palette.highlight().color().lighter(160));
        }
        QStyledItemDelegate::paint(painter, option, index);
    }
};

// A row's name: folders end in '/', an object's older versions and unfinished upload say so.
QString displayName(const UsageNode &node)
{
    if (node.kept != Kept::No)
        return node.name + QStringLiteral("  (") + keptName(node.kept).toLower() + QLatin1Char(')');
    return node.name + (node.dir ? QStringLiteral("/") : QString());
}

UsageNode *nodeOf(const QTreeWidgetItem *item)
{
    return item ? static_cast<UsageNode *>(item->data(0, Qt::UserRole).value<void *>()) : nullptr;
}

} // namespace

UsageView::UsageView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    // The location bar.
    auto *bar = new QHBoxLayout;
    auto *label = new QLabel(tr("&Location:"), this);
    m_location = new QComboBox(this);
    m_location->setEditable(true);
    m_location->setInsertPolicy(QComboBox::NoInsert);
    m_location->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_location->setToolTip(tr("A folder of any connection: file://, s3://, webdav://, nbd://, memory://"));
    label->setBuddy(m_location);
    m_scan = new QPushButton(tr("&Scan"), this);
    m_cancel = new QPushButton(tr("&Cancel"), this);
    m_cancel->setEnabled(false);
    // Open Scan…: a file dialog, or one of the scans opened or saved lately (its arrow).
    auto *open = new QToolButton(this);
    open->setText(tr("&Open Scan…"));
    open->setPopupMode(QToolButton::MenuButtonPopup);
    open->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_recentScans = new QMenu(open);
    open->setMenu(m_recentScans);
    connect(m_recentScans, &QMenu::aboutToShow, this, &UsageView::listRecentScans);
    m_save = new QPushButton(tr("Sa&ve Scan…"), this);
    m_save->setEnabled(false);
    m_compare = new QPushButton(tr("Co&mpare…"), this);
    m_compare->setToolTip(tr("Compare with a saved scan: what grew, shrank, appeared and vanished since"));
    m_compare->setEnabled(false);
    bar->addWidget(label);
    bar->addWidget(m_location, 1);
    bar->addWidget(m_scan);
    bar->addWidget(m_cancel);
    bar->addWidget(open);
    bar->addWidget(m_save);
    bar->addWidget(m_compare);
    layout->addLayout(bar);
    // Breadcrumbs and the progress or summary line.
    auto *top = new QHBoxLayout;
    m_crumbs = new QHBoxLayout;
    m_crumbs->setSpacing(0);
    top->addLayout(m_crumbs);
    top->addStretch();
    m_status = new QLabel(this);
    top->addWidget(m_status);
    layout->addLayout(top);

    auto *split = new QSplitter(Qt::Horizontal, this);
    auto *mapSide = new QWidget(split);
    auto *mapLayout = new QVBoxLayout(mapSide);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    m_map = new TreemapWidget(mapSide);
    m_map->setMinimumSize(300, 200);
    mapLayout->addWidget(m_map, 1);
    // The legend: what each colour stands for.
    const auto legendOf = [mapSide](const QList<std::pair<QColor, QString>> &keys) {
        auto *row = new QWidget(mapSide);
        auto *legend = new QHBoxLayout(row);
        legend->setContentsMargins(0, 0, 0, 0);
        for (const auto &[color, name] : keys) {
            auto *swatch = new QLabel(row);
            swatch->setFixedSize(12, 12);
            swatch->setStyleSheet(QStringLiteral("background: %1; border: 1px solid #555;").arg(color.name()));
            auto *text = new QLabel(name, row);
            swatch->setObjectName(name);
            text->setObjectName(name);
            legend->addWidget(swatch);
            legend->addWidget(text);
            legend->addSpacing(8);
        }
        legend->addStretch();
        // Never wider than the map: a long legend is cut at the right, the window stays narrow.
        row->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        return row;
    };
    QList<std::pair<QColor, QString>> categories;
    for (int c = 0; c < kFileCategories; ++c)
        categories.append({categoryColor(FileCategory(c)), categoryName(FileCategory(c))});
    for (Kept k : {Kept::OldVersions, Kept::Upload})
        categories.append({keptColor(k), keptName(k)});
    m_categoryLegend = legendOf(categories);
    mapLayout->addWidget(m_categoryLegend);
    m_changeLegend = legendOf({{QColor(kAppeared), tr("New")},
                               {QColor(kGrew), tr("Grew")},
                               {QColor(kUnchanged), tr("Unchanged")},
                               {QColor(kShrank), tr("Shrank")}});
    auto *categoriesAgain = new QPushButton(tr("Show &Categories"), m_changeLegend);
    m_changeLegend->layout()->addWidget(categoriesAgain);
    connect(categoriesAgain, &QPushButton::clicked, this, &UsageView::stopComparing);
    m_changeLegend->hide();
    mapLayout->addWidget(m_changeLegend);
    auto *listSide = new QWidget(split);
    auto *listLayout = new QVBoxLayout(listSide);
    listLayout->setContentsMargins(0, 0, 0, 0);
    m_list = new QTreeWidget(listSide);
    listLayout->addWidget(m_list, 1);
    // A selected file whose storage knows its extents (a sparse file, a disk image): where
    // its data, zeros and holes are.
    m_imageTitle = new QLabel(listSide);
    m_imageTitle->setWordWrap(true);
    m_image = new AllocationMap(listSide);
    m_image->setMinimumHeight(160);
    listLayout->addWidget(m_imageTitle);
    listLayout->addWidget(m_image);
    m_imageTitle->hide();
    m_image->hide();
    connect(m_image, &AllocationMap::loaded, this,
            [this] { m_imageTitle->setText(tr("Where the data of %1 is: %2").arg(m_imageName, m_image->summary())); });
    m_list->setHeaderLabels({tr("Name"), tr("Size"), tr("On disk"), tr("Share"), tr("Files"), tr("Change")});
    m_list->setUniformRowHeights(true);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 6; ++c)
        m_list->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_list->setColumnHidden(kChangeColumn, true);
    m_list->setMinimumWidth(460); // the names keep room beside five figures
    m_list->setItemDelegateForColumn(3, new ShareBarDelegate(m_list));
    m_list->header()->setSectionResizeMode(3, QHeaderView::Fixed); // room for the bars
    m_list->header()->resizeSection(3, 96);
    split->addWidget(mapSide);
    split->addWidget(listSide);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);

    m_progress = new QTimer(this);
    m_progress->setInterval(100);
    connect(m_progress, &QTimer::timeout, this, [this] { m_status->setText(statusText()); });
    connect(m_scan, &QPushButton::clicked, this, &UsageView::scanTyped);
    connect(m_location->lineEdit(), &QLineEdit::returnPressed, this, &UsageView::scanTyped);
    connect(m_cancel, &QPushButton::clicked, this, &UsageView::cancel);
    // File dialogs shown with open(): no nested event loop.
    const auto askForScan = [this](const QString &title, bool saving, auto &&then) {
        auto *dialog = new QFileDialog(this, title, saving ? QStringLiteral("usage.strata-scan") : QString(),
                                       tr("Strata scans (*.strata-scan);;All files (*)"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        if (saving)
            dialog->setAcceptMode(QFileDialog::AcceptSave);
        else
            dialog->setFileMode(QFileDialog::ExistingFile);
        connect(dialog, &QFileDialog::fileSelected, this, then);
        dialog->open();
    };
    connect(open, &QToolButton::clicked, this, [this, askForScan] {
        askForScan(tr("Open a Saved Scan"), false, [this](const QString &f) { openScan(f); });
    });
    connect(m_save, &QPushButton::clicked, this,
            [this, askForScan] { askForScan(tr("Save the Scan"), true, [this](const QString &f) { saveScan(f); }); });
    connect(m_compare, &QPushButton::clicked, this, [this, askForScan] {
        askForScan(tr("Compare with a Saved Scan"), false, [this](const QString &f) { compareWith(f); });
    });
    connect(m_map, &TreemapWidget::zoomRequested, this, &UsageView::zoomTo);
    connect(m_map, &TreemapWidget::zoomOutRequested, this, [this] {
        if (m_current && m_current->parent)
            zoomTo(m_current->parent);
    });
    // The map's selection shows in the list (the deepest row listed that holds it).
    connect(m_map, &TreemapWidget::selectionChanged, this, [this](const UsageNode *node) {
        QTreeWidgetItem *item = nullptr;
        for (const UsageNode *n = node; n && !item && n != m_current; n = n->parent)
            item = itemOf(n);
        const QSignalBlocker quiet(m_list);
        m_list->setCurrentItem(item);
    });
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item)
            m_map->select(nodeOf(item));
    });
    connect(m_map, &TreemapWidget::selectionChanged, this, &UsageView::showImage);
    connect(m_list, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem *item) {
        // Children are listed when their folder is first opened.
        if (item->childCount() == 1 && !nodeOf(item->child(0)))
            delete item->takeChild(0);
        if (item->childCount() == 0)
            if (const UsageNode *node = nodeOf(item))
                fill(item, *node);
    });
    connect(m_list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        if (UsageNode *node = nodeOf(item); node && node->dir)
            zoomTo(node);
    });
    m_location->addItems(QSettings().value(kRecentKey).toStringList());
    // The context menu, on the map and on the list.
    m_map->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_map, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const UsageNode *node = m_map->tileAt(pos);
        m_map->select(node);
        showMenu(node, m_map->mapToGlobal(pos));
    });
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_list, &QWidget::customContextMenuRequested, this,
            [this](const QPoint &pos) { showMenu(nodeOf(m_list->itemAt(pos)), m_list->viewport()->mapToGlobal(pos)); });
}

UsageView::~UsageView()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void UsageView::setLocations(const QStringList &uris)
{
    const QString typed = m_location->currentText();
    for (const QString &uri : uris)
        if (m_location->findText(uri) < 0)
            m_location->addItem(uri);
    m_location->setEditText(typed.isEmpty() && !uris.isEmpty() ? uris.front() : typed);
}

void UsageView::rememberScan(const QString &file)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentScansKey).toStringList();
    const QString path = QFileInfo(file).absoluteFilePath();
    recent.removeAll(path);
    recent.prepend(path);
    settings.setValue(kRecentScansKey, recent.mid(0, 8));
}

QStringList UsageView::recentScans() const
{
    QStringList present;
    for (const QString &f : QSettings().value(kRecentScansKey).toStringList())
        if (QFileInfo::exists(f))
            present << f;
    return present;
}

void UsageView::listRecentScans()
{
    m_recentScans->clear();
    const QStringList files = recentScans();
    for (const QString &f : files)
        m_recentScans->addAction(
            literalText(QFileInfo(f).fileName() + QStringLiteral("  —  ") + QFileInfo(f).absolutePath()), this,
            [this, f] { openScan(f); });
    if (files.isEmpty())
        m_recentScans->addAction(tr("No recent scans"))->setEnabled(false);
    m_recentScans->addSeparator();
    m_recentScans->addAction(tr("Clear Recent Scans"), this, [] { QSettings().remove(kRecentScansKey); })
        ->setEnabled(!files.isEmpty());
}

void UsageView::remember(const QString &uri)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(uri);
    recent.prepend(uri);
    while (recent.size() > 10)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    if (const int at = m_location->findText(uri); at >= 0)
        m_location->removeItem(at);
    m_location->insertItem(0, uri);
    m_location->setCurrentIndex(0);
}

QString UsageView::statusText() const
{
    if (m_done && !m_failure.isEmpty())
        return m_failure;
    if (m_done)
        return m_tree ? tr("%1 in %L2 files").arg(sizeString(m_tree->root()->bytes)).arg(m_tree->root()->files)
                      : QString();
    const double seconds = double(QDateTime::currentMSecsSinceEpoch() - m_started) / 1000.0;
    const std::uint64_t seen = m_seen.load();
    return tr("Scanning… %L1 entries, %2, %L3 entries/s")
        .arg(seen)
        .arg(sizeString(m_bytes.load()))
        .arg(seconds > 0 ? std::uint64_t(double(seen) / seconds) : 0);
}

void UsageView::start(const QString &label, bool recent, Job job)
{
    cancel();
    if (m_worker.joinable())
        m_worker.join(); // a cancelled walk stops between batches
    m_done = false;
    m_failure.clear();
    const quint64 generation = ++m_generation;
    m_zoom.clear(); // the new tree opens at its root
    m_scanning = label;
    m_seen = 0;
    m_bytes = 0;
    m_started = QDateTime::currentMSecsSinceEpoch();
    m_cancel->setEnabled(true);
    m_scan->setEnabled(false);
    m_save->setEnabled(false);
    m_compare->setEnabled(false);
    m_progress->start();
    m_status->setText(statusText());
    m_worker = std::jthread([this, label, recent, generation, job = std::move(job)](std::stop_token stop) {
        auto tree = std::make_unique<UsageTree>();
        Outcome outcome = job(stop, *tree);
        QString message = outcome.message;
        if (stop.stop_requested())
            message = tr("Scan cancelled");
        const bool complete = outcome.ok && !stop.stop_requested();
        if (complete)
            tree->finish();
        QMetaObject::invokeMethod(
            this,
            [this, complete, message, label, recent, generation, where = std::move(outcome.where),
             oneFile = outcome.oneFile, t = tree.release()] {
                std::unique_ptr<UsageTree> owned(t);
                if (generation != m_generation)
                    return; // a scan started since: this one was cancelled, the new one goes on
                m_done = true;
                m_failure = complete ? QString() : message;
                m_progress->stop();
                m_cancel->setEnabled(false);
                m_scan->setEnabled(true);
                if (complete) {
                    m_where = where;
                    m_oneFile = oneFile;
                    setTree(std::move(owned), label);
                    if (m_oneFile && !m_tree->root()->children.empty()) // its allocation at once
                        m_map->select(m_tree->root()->children.front().get());
                    if (recent)
                        remember(label);
                } else {
                    if (m_partial) { // no half a tree to save or compare
                        m_tree.reset();
                        m_current = nullptr;
                        showCurrent();
                    }
                    m_save->setEnabled(m_tree != nullptr);
                    m_compare->setEnabled(m_tree != nullptr);
                    m_status->setText(statusText());
                }
                if (!message.isEmpty())
                    m_status->setText(message);
                Q_EMIT scanFinished(complete, message.isEmpty() ? m_status->text() : message);
            },
            Qt::QueuedConnection);
    });
}

// A failure to read some folders still shows the rest: the message says what is missing.
UsageView::Outcome UsageView::walkInto(const Location &location, std::stop_token stop, UsageTree &tree)
{
    // A file (a disk image, an NBD export) is its own tree: one tile, and its allocation.
    if (auto root = location.op->stat(location.path); root && root->kind == EntryKind::File) {
        const std::string name = root->name.empty() ? std::string(baseName(location.path)) : root->name;
        tree.add(name.empty() ? "image" : name, false, root->size, root->allocated.value_or(root->size));
        m_seen = 1;
        m_bytes = root->size;
        return {true, {}, location, true};
    }
    WalkOptions options;
    options.stat = true; // sizes of every file
    // A picture of the tree so far goes to the page a few times a second: a copy of its
    // largest parts, made here between batches (so the walk pauses, the window does not).
    using Clock = std::chrono::steady_clock;
    const quint64 generation = m_generation; // set before this thread started
    auto interval = std::chrono::milliseconds(300);
    auto next = Clock::now() + interval;
    auto summary = walkTree(
        *location.op, location.path, options,
        [&](std::span<const WalkEntry> batch) {
            std::uint64_t bytes = 0;
            for (const auto &e : batch) {
                tree.add(e.path, e.kind == EntryKind::Directory, e.size, e.allocated);
                bytes += e.kind == EntryKind::Directory ? 0 : e.size;
            }
            m_seen += batch.size();
            m_bytes += bytes;
            if (Clock::now() < next)
                return;
            const auto began = Clock::now();
            std::shared_ptr<UsageTree> picture = tree.snapshot();
            // Copying may take a while on a huge tree: then less often (a tenth of the time).
            const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began);
            interval = std::max(std::chrono::milliseconds(400), 10 * took);
            next = Clock::now() + interval;
            QMetaObject::invokeMethod(
                this,
                [this, generation, location, picture = std::move(picture)]() mutable {
                    if (generation != m_generation || m_done)
                        return;
                    m_where = location;
                    m_partial = true;
                    showTree(std::move(picture));
                    Q_EMIT previewShown();
                },
                Qt::QueuedConnection);
        },
        stop);
    if (!summary)
        return {false, QString::fromStdString(summary.error().message()), {}};
    // What the store keeps and bills beside the objects: older versions, unfinished uploads.
    QString keptProblem;
    if (!stop.stop_requested()) {
        const Status kept = listKept(
            *location.op, location.path,
            [&](const ScanEntry &e) {
                tree.add(e.path, false, e.size, e.allocated, e.kept);
                ++m_seen;
                m_bytes += e.size;
            },
            stop);
        if (!kept)
            keptProblem = tr("older versions and unfinished uploads could not be listed: %1")
                              .arg(QString::fromStdString(kept.error().message()));
    }
    if (!keptProblem.isEmpty() && summary->errors.empty())
        return {true, keptProblem, location};
    if (!summary->errors.empty())
        return {true,
                tr("%n folder(s) could not be read, e.g. %1", nullptr, int(summary->errors.size()))
                    .arg(QString::fromStdString(summary->errors.front().message)),
                location};
    return {true, {}, location};
}

void UsageView::scan(const Location &location)
{
    const QString label = QString::fromStdString(location.display());
    m_location->setEditText(label);
    start(label, true,
          [this, location](std::stop_token stop, UsageTree &tree) { return walkInto(location, stop, tree); });
}

void UsageView::scanTyped()
{
    const QString uri = m_location->currentText().trimmed();
    if (scanning() && uri == m_scanning)
        return; // already under way (an editable combo box reports Return twice)
    if (uri.isEmpty() || !m_registry) {
        m_status->setText(tr("Type a location to scan, e.g. file:///home or s3://bucket/"));
        return;
    }
    // Opening may ask a server: on the scan's thread, before the walk.
    start(uri, true, [this, registry = m_registry, uri](std::stop_token stop, UsageTree &tree) -> Outcome {
        auto at = registry->open(uri.toStdString());
        if (!at)
            return {false, QString::fromStdString(at.error().message()), {}};
        return walkInto(*at, stop, tree);
    });
}

void UsageView::openScan(const QString &file)
{
    start(file, false, [this, file](std::stop_token, UsageTree &tree) -> Outcome {
        auto scan = loadScan(file.toStdString());
        if (!scan)
            return {false, QString::fromStdString(scan.error().message()), {}};
        for (const auto &e : scan->entries)
            tree.add(e.path, e.kind == EntryKind::Directory, e.size, e.allocated, e.kept);
        m_seen = scan->entries.size();
        QMetaObject::invokeMethod(
            this, [this, file] { rememberScan(file); }, Qt::QueuedConnection);
        return {true, {}, {}};
    });
}

bool UsageView::saveScan(const QString &file)
{
    if (!m_tree || m_partial) { // half a tree would read back as the whole
        m_status->setText(tr("Nothing to save until a scan has finished"));
        return false;
    }
    if (auto st = strata::saveScan(toScan(*m_tree, m_rootLabel), file.toStdString()); !st) {
        m_status->setText(QString::fromStdString(st.error().message()));
        return false;
    }
    m_status->setText(tr("Scan saved to %1").arg(file));
    rememberScan(file);
    return true;
}

void UsageView::cancel()
{
    if (m_worker.joinable())
        m_worker.request_stop();
}

void UsageView::setTree(std::unique_ptr<UsageTree> tree, const QString &rootLabel)
{
    m_rootLabel = rootLabel;
    m_partial = false;
    m_save->setEnabled(true);
    m_compare->setEnabled(true);
    m_changes.reset(); // of another tree
    m_changeLegend->hide();
    m_categoryLegend->show();
    m_list->setColumnHidden(kChangeColumn, true);
    m_map->setColoring({});
    showTree(std::move(tree));
    m_status->setText(statusText());
}

void UsageView::showTree(std::shared_ptr<UsageTree> tree)
{
    m_tree = std::move(tree);
    // Older versions and unfinished uploads in the legend only where the tree has them.
    for (Kept k : {Kept::OldVersions, Kept::Upload})
        for (QWidget *w : m_categoryLegend->findChildren<QWidget *>(keptName(k)))
            w->setVisible(m_tree->keptEntries() > 0);
    UsageNode *at = m_tree->find(m_zoom);
    m_current = at && at->dir ? at : m_tree->root();
    showCurrent();
}

void UsageView::zoomTo(UsageNode *node)
{
    m_current = node;
    m_zoom = node ? node->path() : QString();
    showCurrent();
}

QString UsageView::uriOf(const UsageNode *node) const
{
    if (!m_where || !node)
        return {};
    return QString::fromStdString(m_where->op->display(pathOf(node)));
}

std::string UsageView::pathOf(const UsageNode *node) const
{
    if (m_oneFile && node && node->parent && !node->parent->parent)
        return m_where->path; // the file scanned
    return joinPath(m_where->path, node ? node->path().toStdString() : std::string());
}

void UsageView::showImage(const UsageNode *node)
{
    const bool known = node && !node->dir && node->parent && m_where && !m_partial
        && m_where->op->capabilities().has(Capability::Extents);
    m_imageTitle->setVisible(known);
    m_image->setVisible(known);
    if (!known) {
        m_image->clear();
        return;
    }
    m_imageName = node->name;
    m_imageTitle->setText(tr("Where the data of %1 is: reading its extents…").arg(m_imageName));
    m_image->load(m_where->op, pathOf(node));
}

void UsageView::showMenu(const UsageNode *node, const QPoint &globalPos)
{
    if (!node)
        return;
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const QString uri = uriOf(node);
    // A file opens its folder.
    const QString folder = node->dir ? uri : uriOf(node->parent);
    QAction *open = menu->addAction(tr("&Open in Files Tab"), this, [this, folder] { Q_EMIT openRequested(folder); });
    open->setEnabled(!folder.isEmpty());
    QAction *copy = menu->addAction(tr("&Copy URI"), this, [uri] { QGuiApplication::clipboard()->setText(uri); });
    copy->setEnabled(!uri.isEmpty());
    menu->addSeparator();
    QAction *remove = menu->addAction(tr("&Delete…"), this, [this, node] { deleteEntry(node); });
    remove->setShortcut(QKeySequence::Delete);
    remove->setEnabled(canDelete(node));
    if (uri.isEmpty())
        menu->addSection(tr("Opened from a saved scan: rescan to act on its entries"));
    else if (m_partial)
        menu->addSection(tr("Scanning: delete once the scan is finished"));
    menu->popup(globalPos);
}

QTreeWidgetItem *UsageView::itemOf(const UsageNode *node) const
{
    for (QTreeWidgetItemIterator it(m_list); *it; ++it)
        if (nodeOf(*it) == node)
            return *it;
    return nullptr;
}

void UsageView::fill(QTreeWidgetItem *parent, const UsageNode &node)
{
    const double total = double(std::max<std::uint64_t>(1, node.bytes));
    int shown = 0;
    QList<QTreeWidgetItem *> items;
    for (const auto &c : node.children) {
        if (++shown > kShownPerFolder) {
            items << new QTreeWidgetItem({tr("… %n more", nullptr, int(node.children.size()) - kShownPerFolder)});
            break;
        }
        auto *item = new QTreeWidgetItem({displayName(*c), sizeString(c->bytes), sizeString(c->allocated),
                                          QStringLiteral("%1%").arg(100.0 * double(c->bytes) / total, 0, 'f', 1),
                                          QLocale().toString(qulonglong(c->files)), changeText(c.get())});
        item->setData(0, Qt::UserRole, QVariant::fromValue<void *>(c.get()));
        item->setData(3, kShareRole, double(c->bytes) / total);
        for (int col = 1; col < 6; ++col)
            item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
        if (c->dir && !c->children.empty())
            item->addChild(new QTreeWidgetItem); // a placeholder: expandable, filled when opened
        items << item;
    }
    if (parent)
        parent->addChildren(items);
    else
        m_list->addTopLevelItems(items);
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
        b->setObjectName(QStringLiteral("crumb"));
        b->setAutoRaise(true);
        b->setText(literalText(n->parent ? n->name : m_rootLabel)
                   + (n == m_current ? QString() : QStringLiteral("  ›")));
        connect(b, &QToolButton::clicked, this, [this, n] { zoomTo(n); });
        m_crumbs->addWidget(b);
    }
    showImage(nullptr); // the selection goes with the picture
    m_map->setNode(m_current, m_tree);
    m_list->clear();
    if (m_current)
        fill(nullptr, *m_current);
}

const UsageNode *UsageView::selectedEntry() const
{
    if (const UsageNode *n = m_map->selected())
        return n;
    return nodeOf(m_list->currentItem());
}

bool UsageView::canDelete(const UsageNode *node) const
{
    return m_actions && m_where && m_tree && !m_partial && !m_oneFile && !scanning() && node && node->parent
        && node->kept == Kept::No; // older versions and uploads are not the object: not deleted with it
}

void UsageView::deleteEntry(const UsageNode *node)
{
    if (!canDelete(node))
        return;
    const QString relative = node->path();
    Entry entry;
    entry.name = node->name.toStdString();
    entry.path = pathOf(node);
    entry.kind = node->dir ? EntryKind::Directory : EntryKind::File;
    // Confined to the folder scanned, whatever the tree says: the Files tab's delete.
    const std::weak_ptr<UsageTree> tree = m_tree;
    m_actions->confirmRemove(*m_where, {entry}, [this, tree, relative](bool ok) {
        // Out of the tree once gone from the storage (and only from the tree it was in).
        // Tries again through a weak handle: only a pending retry keeps the attempt alive.
        const auto attempt = std::make_shared<std::function<void()>>();
        *attempt = [this, tree, relative, again = std::weak_ptr(attempt)] {
            const auto held = tree.lock();
            if (!held || held != m_tree)
                return;
            UsageNode *gone = held->find(relative);
            if (!gone) {
                Q_EMIT entryDeleted(true);
                return;
            }
            if (m_current && (m_current == gone || m_current->path().startsWith(relative + QLatin1Char('/'))))
                m_zoom = gone->parent->path();
            if (!held->remove(gone)) { // a drawing is reading the tree: shortly again
                QTimer::singleShot(20, this, [retry = again.lock()] {
                    if (retry)
                        (*retry)();
                });
                return;
            }
            showTree(held);
            m_status->setText(statusText());
            Q_EMIT entryDeleted(true);
        };
        if (ok)
            (*attempt)();
        else
            Q_EMIT entryDeleted(false);
    });
}

} // namespace strata

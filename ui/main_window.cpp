#include "ui/main_window.h"

#include "core/storage/path.h"
#include "core/transfer/folder_compare.h"
#include "ui/bench/bench_page.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/directory_model.h"
#include "ui/browser/file_actions.h"
#include "ui/browser/folder_sync.h"
#include "ui/browser/properties_dialog.h"
#include "ui/common/allocation_map.h"
#include "ui/common/io_pool.h"
#include "ui/common/plural_translator.h"
#include "ui/connections/connection_sidebar.h"
#include "ui/connections/secret_store.h"
#include "ui/transfers/transfer_dock.h"
#include "ui/transfers/transfer_queue_model.h"
#include "ui/transfers/transfer_starter.h"
#include "ui/usage/usage_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QGuiApplication>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QtConcurrent/QtConcurrentRun>

namespace strata {

MainWindow::MainWindow(Registry &registry, ConnectionDialog::RegistryMaker makeRegistry, QueueOptions queueOptions,
                       QWidget *parent)
    : QMainWindow(parent), m_registry(registry), m_makeRegistry(std::move(makeRegistry))
{
    static bool plurals = QCoreApplication::installTranslator(new PluralTranslator(QCoreApplication::instance()));
    (void)plurals;
    setWindowTitle(tr("Strata"));
    setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.strata.Strata"), QIcon(QStringLiteral(":/strata.svg"))));
    m_secrets = new SecretStore(this);
    m_queue = new TransferQueueModel(registry, std::move(queueOptions), this);
    m_starter = new TransferStarter(registry, m_queue, this);
    m_actions = new FileActions(this);

    m_sidebar = new ConnectionSidebar(this);
    m_left = new BrowserPane(registry, this);
    m_right = new BrowserPane(registry, this);
    m_active = m_left;
    auto *panes = new QSplitter(Qt::Horizontal, this);
    panes->addWidget(m_left);
    panes->addWidget(m_right);
    auto *browse = new QSplitter(Qt::Horizontal, this);
    browse->addWidget(m_sidebar);
    browse->addWidget(panes);
    browse->setStretchFactor(1, 1);
    browse->setSizes({190, 1000});
    browse->setContentsMargins(6, 6, 6, 0);
    m_bench = new BenchPage(registry, this);
    m_pages = new QTabWidget(this);
    m_pages->setDocumentMode(true);
    m_pages->addTab(browse, tr("&Files"));
    m_pages->addTab(m_bench, tr("&Benchmarks"));
    m_usage = new UsageView(this);
    m_usage->setRegistry(&registry);
    m_usage->setFileActions(m_actions);
    m_usage->setLocations(
        {QString::fromStdString(Uri::fromLocalPath(QDir::homePath().toStdString()).asFolder().toString()),
         QStringLiteral("memory://demo/")});
    m_pages->addTab(m_usage, tr("&Usage"));
    connect(m_usage, &UsageView::openRequested, this, [this](const QString &uri) {
        m_pages->setCurrentIndex(0);
        m_active->openUri(uri);
    });
    setCentralWidget(m_pages);
    connect(m_bench, &BenchPage::notify, this, &MainWindow::showMessage);
    m_dock = new TransferDock(m_queue, this);
    addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    resizeDocks({m_dock}, {190}, Qt::Vertical);

    for (BrowserPane *pane : {m_left, m_right}) {
        connect(pane, &BrowserPane::focused, this, [this, pane] { setActive(pane); });
        connect(pane, &BrowserPane::summaryChanged, this, &MainWindow::updateStatus);
        connect(pane, &BrowserPane::renameRequested, this, [this, pane] { m_actions->rename(pane); });
        pane->setDesktopExport([this](const Location &location, const std::vector<Entry> &entries) {
            return m_starter->exportForDesktop(location, entries);
        });
        connect(pane, &BrowserPane::transferRequested, m_starter, &TransferStarter::start);
        connect(pane, &BrowserPane::fileActivated, this, [this, pane](const QString &uri, const Entry &entry) {
            m_starter->openWithDesktop(uri, pane->location(), entry.path);
        });
    }
    connect(m_starter, &TransferStarter::notify, this, &MainWindow::showMessage);
    connect(m_actions, &FileActions::notify, this, &MainWindow::showMessage);
    connect(m_actions, &FileActions::changed, this, &MainWindow::refreshPanesShowing);
    connect(m_actions, &FileActions::propertiesOpened, this, [this](PropertiesDialog *dialog) {
        dialog->setRegistry(&m_registry);
        connect(dialog, &PropertiesDialog::notify, this, &MainWindow::showMessage);
        // An older version goes into the other pane's folder, or over the object itself.
        connect(dialog, &PropertiesDialog::downloadVersion, this, [this](const QString &uri) {
            BrowserPane *other = m_active == m_left ? m_right : m_left;
            if (other->location().op)
                m_starter->start({uri}, other->uriOf(other->location().path), false);
        });
        connect(dialog, &PropertiesDialog::restoreVersion, this, [this](const QString &version, const QString &object) {
            TransferSpec spec;
            spec.sources = {version.toStdString()};
            spec.destination = object.toStdString();
            spec.options.existing = ExistingPolicy::Overwrite;
            if (auto id = m_queue->enqueue(std::move(spec)); !id)
                showMessage(QString::fromStdString(id.error().message()), true);
            else
                showMessage(tr("Restoring the version: it becomes the newest"), false);
        });
    });
    connect(m_queue, &TransferQueueModel::jobFinished, this, [this](const QString &id, bool ok) {
        showMessage(ok ? tr("Transfer done") : tr("Transfer ended with problems: see the Transfers panel"), !ok);
        // The folders a finished job wrote to (and, for a move, took from) are listed again.
        const auto spec = m_queue->specOf(id.toStdString());
        if (!spec)
            return;
        QStringList folders{QString::fromStdString(spec->destination)};
        for (const auto &source : spec->sources)
            folders << QString::fromStdString(source);
        for (const QString &uri : std::as_const(folders)) {
            refreshPanesShowing(uri);
            if (auto parsed = Uri::parse(uri.toStdString())) {
                parsed->setPath(std::string(parentPath(parsed->path())));
                refreshPanesShowing(QString::fromStdString(parsed->toString()));
            }
        }
    });
    connect(m_dock, &TransferDock::currentJobChanged, this, &MainWindow::showJobImage);
    connect(m_sidebar, &ConnectionSidebar::openRequested, this, [this](const ConnectionProfile &p) { openProfile(p); });
    connect(m_sidebar, &ConnectionSidebar::addRequested, this, [this] { editConnection(std::nullopt); });
    connect(m_sidebar, &ConnectionSidebar::editRequested, this,
            [this](const ConnectionProfile &p) { editConnection(p); });
    connect(m_sidebar, &ConnectionSidebar::removeRequested, this, &MainWindow::removeConnection);

    buildMenus();
    m_profiles = ConnectionList::load();
    m_sidebar->setProfiles(m_profiles);

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1180, 720);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    // A first look that shows everything at once: the home folder and the demo store.
    m_left->openUri(QString::fromStdString(Uri::fromLocalPath(QDir::homePath().toStdString()).toString()));
    m_right->openUri(QStringLiteral("memory://demo/"));
    QTimer::singleShot(0, m_left->view(), qOverload<>(&QWidget::setFocus));
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    auto action = [this](QMenu *menu, const QString &text, const QKeySequence &key, QStyle::StandardPixmap icon,
                         auto &&slot) {
        auto *a = menu->addAction(style()->standardIcon(icon), text);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, std::forward<decltype(slot)>(slot));
        return a;
    };
    constexpr auto none = QStyle::SP_CustomBase;
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *newConnection = action(file, tr("&New Connection…"), QKeySequence::New, QStyle::SP_DriveNetIcon,
                                 [this] { editConnection(std::nullopt); });
    auto *newFolder = action(file, tr("New &Folder…"), Qt::Key_F7, QStyle::SP_FileDialogNewFolder,
                             [this] { m_actions->newFolder(m_active); });
    action(file, tr("&Open"), QKeySequence(), QStyle::SP_DialogOpenButton, [this] {
        if (auto index = m_active->view()->currentIndex(); index.isValid())
            Q_EMIT m_active->view()->activated(index);
    });
    auto *rename = action(file, tr("&Rename…"), Qt::Key_F2, none, [this] { m_actions->rename(m_active); });
    // Delete and Copy URI act on the page on show: the Files tab's pane or the Usage page's
    // selection, never on a page out of sight.
    auto *remove = action(file, tr("&Delete…"), QKeySequence::Delete, QStyle::SP_TrashIcon, [this] {
        if (m_pages->currentWidget() == m_usage)
            m_usage->deleteEntry(m_usage->selectedEntry());
        else if (m_pages->currentIndex() == 0)
            m_actions->remove(m_active);
    });
    auto *properties = action(file, tr("P&roperties"), QKeySequence(Qt::ALT | Qt::Key_Return),
                              QStyle::SP_FileDialogInfoView, [this] { m_actions->properties(m_active); });
    file->addSeparator();
    action(file, tr("&Quit"), QKeySequence::Quit, none, [this] { close(); });

    auto *edit = menuBar()->addMenu(tr("&Edit"));
    action(edit, tr("&Copy URI"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), none, [this] {
        if (m_pages->currentWidget() == m_usage)
            QGuiApplication::clipboard()->setText(m_usage->uriOf(m_usage->selectedEntry()));
        else if (m_pages->currentIndex() == 0)
            m_actions->copyUris(m_active);
    });
    auto *copy =
        action(edit, tr("Copy to &Other Pane"), Qt::Key_F6, QStyle::SP_ArrowRight, [this] { toOtherPane(false); });
    action(edit, tr("&Move to Other Pane"), QKeySequence(Qt::SHIFT | Qt::Key_F6), none, [this] { toOtherPane(true); });
    action(edit, tr("&Filter…"), QKeySequence::Find, none, [this] { m_active->focusFilter(); });
    action(edit, tr("Compare &Folders"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), none,
           [this] { compareFolders(false); });
    action(edit, tr("Compare Folders by C&ontent"), QKeySequence(), none, [this] { compareFolders(false, true); });
    action(edit, tr("S&ynchronize…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Y), none,
           [this] { compareFolders(true); });
    action(edit, tr("&Search Below…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F), none, [this] {
        m_pages->setCurrentIndex(0);
        m_active->startSearch();
    });

    auto *go = menuBar()->addMenu(tr("&Go"));
    auto *refresh =
        action(go, tr("&Refresh"), QKeySequence::Refresh, QStyle::SP_BrowserReload, [this] { m_active->refresh(); });
    action(go, tr("&Location…"), QKeySequence(Qt::CTRL | Qt::Key_L), none, [this] { m_active->editLocation(); });
    action(go, tr("&Back"), QKeySequence::Back, QStyle::SP_ArrowBack, [this] { m_active->goBack(); });
    action(go, tr("&Forward"), QKeySequence::Forward, QStyle::SP_ArrowForward, [this] { m_active->goForward(); });
    action(go, tr("&Up"), QKeySequence(Qt::ALT | Qt::Key_Up), QStyle::SP_ArrowUp, [this] { m_active->goUp(); });
    action(go, tr("Open &Containing Folder"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), none,
           [this] { m_active->openContainingFolder(); });
    action(go, tr("&Other Pane"), QKeySequence(Qt::Key_Tab), none, [this] {
        (m_active == m_left ? m_right : m_left)->view()->setFocus();
    })->setShortcutContext(Qt::WidgetWithChildrenShortcut);

    auto *view = menuBar()->addMenu(tr("&View"));
    action(view, tr("&Files"), QKeySequence(Qt::CTRL | Qt::Key_1), none, [this] { m_pages->setCurrentIndex(0); });
    action(view, tr("&Benchmarks"), QKeySequence(Qt::CTRL | Qt::Key_2), none, [this] { showBenchmarks(); });
    action(view, tr("&Usage of This Folder"), QKeySequence(Qt::CTRL | Qt::Key_U), none, [this] {
        if (m_active->location().op)
            showUsage(m_active->location());
    });
    // Space itself is the listing's key (BrowserPane): as a window shortcut it would take
    // the space from every text field.
    action(view, tr("&Preview\tSpace"), QKeySequence(), none, [this] {
        m_active->togglePreview();
        m_active->view()->setFocus();
    });
    view->addAction(m_dock->toggleViewAction());
    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Strata"), this, [this] {
        QMessageBox::about(this, tr("About Strata"),
                           tr("<h3>Strata %1</h3><p>Browse, move and measure storage: local disks, memory, S3, "
                              "WebDAV and NBD disk images.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    auto *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolbar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);
    for (auto *a : {newConnection, refresh, newFolder, copy, remove, properties})
        bar->addAction(a);
    (void)rename;
}

// The selected job copies one image (a file with an allocation map, an NBD export): its
// map is drawn in the dock, with the part already copied outlined.
void MainWindow::showJobImage(const QString &jobId)
{
    AllocationMap *map = m_dock->imageMap();
    map->clear();
    const auto spec = jobId.isEmpty() ? std::nullopt : m_queue->specOf(jobId.toStdString());
    if (!spec || spec->sources.size() != 1)
        return;
    QtConcurrent::run(
        ioPool(),
        [registry = m_registry.shared_from_this(), source = spec->sources.front()]() -> std::optional<Location> {
            auto at = registry->open(source);
            if (!at || !at->op->capabilities().has(Capability::Extents))
                return std::nullopt;
            auto entry = at->op->stat(at->path);
            if (!entry || !entry->isFile() || entry->size == 0)
                return std::nullopt;
            return *at;
        })
        .then(this, [this, jobId](const std::optional<Location> &image) {
            if (!image
                || m_dock->view()->selectionModel()->currentIndex().data(TransferQueueModel::JobIdRole).toString()
                    != jobId)
                return;
            m_dock->imageMap()->load(image->op, image->path);
        });
}

void MainWindow::showBenchmarks()
{
    m_pages->setCurrentWidget(m_bench);
}

void MainWindow::scanUsage(const QString &uri)
{
    m_pages->setCurrentWidget(m_usage);
    m_usage->locationBox()->setEditText(uri);
    m_usage->scanTyped();
}

void MainWindow::showUsage(const Location &location)
{
    m_pages->setCurrentWidget(m_usage);
    m_usage->scan(location);
}

void MainWindow::setActive(BrowserPane *pane)
{
    m_active = pane;
    updateStatus();
}

void MainWindow::updateStatus()
{
    statusBar()->showMessage(m_active->displayUri() + QStringLiteral("  —  ") + m_active->summary());
}

void MainWindow::showMessage(const QString &message, bool error)
{
    statusBar()->showMessage(message, error ? 15000 : 5000);
    if (error)
        qWarning("strata: %s", qPrintable(message));
}

void MainWindow::openProfile(const ConnectionProfile &profile, BrowserPane *pane)
{
    BrowserPane *target = pane ? pane : m_active;
    if (!profile.hasSecret) {
        target->openUri(profile.uri);
        return;
    }
    // The secret comes from the keychain asynchronously; the pane opens once it is there.
    m_secrets->read(profile.id, [this, profile, target](std::optional<QString> secret, QString) {
        if (!secret)
            showMessage(tr("The secret of %1 is missing from the keychain: edit the connection to enter it again")
                            .arg(profile.name),
                        true);
        else
            (void)m_registry.setSecret(profile.uri.toStdString(),
                                       {profile.user.toStdString(), secret->toStdString(), {}});
        target->openUri(profile.uri);
    });
}

void MainWindow::editConnection(const std::optional<ConnectionProfile> &existing)
{
    auto *dialog = new ConnectionDialog(m_makeRegistry, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (existing)
        dialog->setProfile(*existing);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { saveConnection(dialog->profile(), dialog->secret()); });
    dialog->open();
}

void MainWindow::saveConnection(const ConnectionProfile &profile, const QString &secret)
{
    auto it = std::find_if(m_profiles.begin(), m_profiles.end(), [&](const auto &p) { return p.id == profile.id; });
    if (it != m_profiles.end())
        *it = profile;
    else
        m_profiles << profile;
    ConnectionList::save(m_profiles);
    m_sidebar->setProfiles(m_profiles);
    if (secret.isEmpty()) {
        m_secrets->remove(profile.id);
        (void)m_registry.setSecret(profile.uri.toStdString(), {});
        openProfile(profile);
        return;
    }
    m_secrets->write(profile.id, secret, [this, profile](const QString &where, const QString &error) {
        if (!error.isEmpty())
            showMessage(error, true);
        else
            showMessage(tr("Saved %1; its secret is in %2").arg(profile.name, where), false);
        openProfile(profile);
    });
}

void MainWindow::removeConnection(const ConnectionProfile &profile)
{
    m_profiles.removeIf([&](const auto &p) { return p.id == profile.id; });
    ConnectionList::save(m_profiles);
    m_secrets->remove(profile.id);
    m_sidebar->setProfiles(m_profiles);
}

void MainWindow::toOtherPane(bool move)
{
    BrowserPane *other = m_active == m_left ? m_right : m_left;
    if (!other->location().op)
        return;
    QStringList sources;
    for (const auto &e : m_active->selectedEntries())
        sources << m_active->uriOf(e.path);
    if (!sources.isEmpty())
        m_starter->start(sources, other->uriOf(other->location().path), move);
}

void MainWindow::compareFolders(bool synchronize, bool byContent)
{
    const Location a = m_left->location(), b = m_right->location();
    if (!a.op || !b.op)
        return;
    m_pages->setCurrentIndex(0);
    for (BrowserPane *pane : {m_left, m_right})
        if (pane->searching())
            pane->closeSearch();
    if (m_comparing)
        m_comparing->request_stop();
    auto stop = std::make_shared<std::stop_source>();
    m_comparing = stop;
    statusBar()->showMessage(
        tr("Comparing %1 with %2…").arg(QString::fromStdString(a.display()), QString::fromStdString(b.display())));
    FolderCompareOptions options;
    options.checksum = byContent;
    QtConcurrent::run(ioPool(), [a, b, stop, options] {
        return std::make_shared<Result<FolderComparison>>(
            strata::compareFolders(*a.op, a.path, *b.op, b.path, options, stop->get_token()));
    }).then(this, [this, a, b, stop, synchronize](const std::shared_ptr<Result<FolderComparison>> &result) {
        if (m_comparing != stop)
            return; // asked again meanwhile
        m_comparing.reset();
        const auto same = [](const Location &x, const Location &y) { return x.op == y.op && x.path == y.path; };
        if (!same(m_left->location(), a) || !same(m_right->location(), b)) {
            showMessage(tr("The folders changed while they were compared; compare again"), true);
            return;
        }
        if (!*result) {
            showMessage(QString::fromStdString(result->error().message()), true);
            return;
        }
        const FolderComparison &cmp = **result;
        const PaneMarks marks = marksFor(cmp);
        m_left->model()->setMarks(marks.a);
        m_right->model()->setMarks(marks.b);
        // Selected: what either side would copy to the other (F6 copies it).
        for (BrowserPane *pane : {m_left, m_right})
            pane->selectMarked({int(DirectoryModel::Mark::OnlyHere), int(DirectoryModel::Mark::NewerHere)});
        std::uint64_t onlyA = 0, onlyB = 0, newerA = 0, newerB = 0, different = 0;
        for (const auto &d : cmp.differences)
            switch (d.kind) {
            case FolderDifference::Kind::OnlyA: ++onlyA; break;
            case FolderDifference::Kind::OnlyB: ++onlyB; break;
            case FolderDifference::Kind::NewerA: ++newerA; break;
            case FolderDifference::Kind::NewerB: ++newerB; break;
            case FolderDifference::Kind::Different:
            case FolderDifference::Kind::KindDiffers: ++different; break;
            }
        showMessage(cmp.differences.empty()
                        ? tr("The folders are alike (%n file(s))", nullptr, int(cmp.same))
                        : tr("%1 alike; only on the left %2, only on the right %3, newer on the left %4, newer "
                             "on the right %5, different %6")
                              .arg(cmp.same)
                              .arg(onlyA)
                              .arg(onlyB)
                              .arg(newerA)
                              .arg(newerB)
                              .arg(different),
                    false);
        if (!synchronize)
            return;
        const bool fromA = m_active == m_left;
        const Location &source = fromA ? a : b;
        const Location &target = fromA ? b : a;
        auto *dialog = new SyncDialog(syncActions(cmp, fromA), QString::fromStdString(source.display()),
                                      QString::fromStdString(target.display()), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &SyncDialog::synchronize, this,
                [this, source, target](const std::vector<SyncAction> &actions) { runSync(source, target, actions); });
        dialog->open();
    });
}

// The checked lines of the sync checklist: copies and replacements as transfer jobs (one
// per target folder), deletions through the Files tab's confined delete.
void MainWindow::runSync(const Location &source, const Location &target, const std::vector<SyncAction> &actions)
{
    std::map<std::string, std::vector<std::string>> byFolder; // target folder -> source URIs
    std::vector<Entry> doomed;
    for (const auto &a : actions) {
        if (a.kind == SyncAction::Kind::Delete) {
            Entry e;
            e.path = joinPath(target.path, a.path);
            e.name = std::string(baseName(e.path));
            e.kind = a.entryKind;
            doomed.push_back(std::move(e));
            continue;
        }
        const auto slash = a.path.rfind('/');
        const std::string folder =
            slash == std::string::npos ? target.path : joinPath(target.path, a.path.substr(0, slash));
        byFolder[folder].push_back(source.op->uriFor(joinPath(source.path, a.path)).toString());
    }
    for (auto &[folder, sources] : byFolder) {
        TransferSpec spec;
        spec.sources = std::move(sources);
        spec.destination = target.op->uriFor(folder).asFolder().toString();
        spec.options.mode = TransferMode::Copy;
        spec.options.recursive = true;
        spec.options.existing = ExistingPolicy::Overwrite;
        if (auto id = m_queue->enqueue(std::move(spec)); !id)
            showMessage(QString::fromStdString(id.error().message()), true);
    }
    if (!doomed.empty())
        m_actions->removeEntries(target, doomed);
}

void MainWindow::refreshPanesShowing(const QString &folderUri)
{
    // "memory://demo/dir/" and "memory://demo/dir" name the same folder.
    auto key = [](const QString &uri) {
        auto parsed = Uri::parse(uri.toStdString());
        if (!parsed)
            return uri;
        auto path = normalizePath(parsed->path());
        parsed->setPath(path ? *path : parsed->path());
        return QString::fromStdString(parsed->toString());
    };
    const QString wanted = key(folderUri);
    for (BrowserPane *pane : {m_left, m_right})
        if (pane->location().op && key(pane->uriOf(pane->location().path)) == wanted)
            pane->refresh();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

} // namespace strata

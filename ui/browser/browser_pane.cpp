#include "ui/browser/browser_pane.h"

#include "core/storage/path.h"
#include "core/walk/find.h"
#include "ui/browser/directory_model.h"
#include "ui/browser/path_bar.h"
#include "ui/browser/search_model.h"
#include "ui/common/entry_format.h"
#include "ui/common/io_pool.h"
#include "ui/preview/preview_panel.h"

#include <QApplication>
#include <QComboBox>
#include <QFocusEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>
#include <optional>

namespace strata {

namespace {

struct Opened {
    std::optional<Location> location;
    QString error;
};

QToolButton *toolButton(QWidget *parent, QStyle::StandardPixmap icon, const QString &tip)
{
    auto *b = new QToolButton(parent);
    b->setIcon(parent->style()->standardIcon(icon));
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

} // namespace

BrowserPane::BrowserPane(Registry &registry, QWidget *parent) : QWidget(parent), m_registry(registry)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    auto *bar = new QHBoxLayout;
    bar->setSpacing(2);
    m_back = toolButton(this, QStyle::SP_ArrowBack, tr("Back (Alt+Left)"));
    m_forward = toolButton(this, QStyle::SP_ArrowForward, tr("Forward (Alt+Right)"));
    m_up = toolButton(this, QStyle::SP_ArrowUp, tr("Up (Backspace)"));
    m_pathBar = new PathBar(this);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("filter"));
    m_filter->setPlaceholderText(tr("Filter"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(160);
    // The filter keeps room for a word at any width; the path bar gives way (PathBar).
    m_filter->setMinimumWidth(m_filter->fontMetrics().averageCharWidth() * 12);
    bar->addWidget(m_back);
    bar->addWidget(m_forward);
    bar->addWidget(m_up);
    bar->addWidget(m_pathBar, 1);
    bar->addWidget(m_filter);
    layout->addLayout(bar);

    // The search bar (Ctrl+Shift+F), hidden until asked for.
    m_searchBar = new QWidget(this);
    m_searchBar->setObjectName(QStringLiteral("searchBar"));
    auto *search = new QHBoxLayout(m_searchBar);
    search->setContentsMargins(0, 0, 0, 0);
    search->setSpacing(4);
    m_searchText = new QLineEdit(m_searchBar);
    m_searchText->setObjectName(QStringLiteral("searchText"));
    m_searchText->setPlaceholderText(tr("Search below this folder: part of a name, or a glob like *.jpg"));
    m_searchText->setClearButtonEnabled(true);
    m_searchSize = new QLineEdit(m_searchBar);
    m_searchSize->setObjectName(QStringLiteral("searchSize"));
    m_searchSize->setPlaceholderText(tr("Size: +10M"));
    m_searchSize->setToolTip(
        tr("+10M: more than 10 MiB; -4k: less than 4 KiB; 100: exactly 100 bytes (units c k M G)"));
    m_searchSize->setMaximumWidth(90);
    m_searchAge = new QComboBox(m_searchBar);
    m_searchAge->setObjectName(QStringLiteral("searchAge"));
    m_searchAge->addItem(tr("Any time"), 0);
    m_searchAge->addItem(tr("Past hour"), 3600);
    m_searchAge->addItem(tr("Past day"), 86400);
    m_searchAge->addItem(tr("Past week"), 7 * 86400);
    m_searchAge->addItem(tr("Past month"), 30 * 86400);
    m_searchAge->addItem(tr("Past year"), 365 * 86400);
    m_searchAge->setToolTip(tr("Modified within"));
    m_searchStop = toolButton(m_searchBar, QStyle::SP_BrowserStop, tr("Stop searching (Esc)"));
    auto *close = toolButton(m_searchBar, QStyle::SP_DialogCloseButton, tr("Close the search (Esc)"));
    search->addWidget(m_searchText, 1);
    search->addWidget(m_searchSize);
    search->addWidget(m_searchAge);
    search->addWidget(m_searchStop);
    search->addWidget(close);
    m_searchBar->hide();
    layout->addWidget(m_searchBar);
    for (QWidget *w : {static_cast<QWidget *>(m_searchText), static_cast<QWidget *>(m_searchSize),
                       static_cast<QWidget *>(m_searchAge)})
        w->installEventFilter(this);
    connect(m_searchText, &QLineEdit::returnPressed, this, &BrowserPane::runSearch);
    connect(m_searchSize, &QLineEdit::returnPressed, this, &BrowserPane::runSearch);
    connect(m_searchAge, &QComboBox::activated, this, [this] {
        if (searching())
            runSearch();
    });
    connect(m_searchStop, &QToolButton::clicked, this, &BrowserPane::stopSearch);
    connect(close, &QToolButton::clicked, this, &BrowserPane::closeSearch);

    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("paneBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::PlainText); // names and server text are never markup
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setContentsMargins(6, 4, 6, 4);
    m_banner->hide();
    layout->addWidget(m_banner);

    m_model = new DirectoryModel(this);
    m_search = new SearchModel(this);
    m_view = new BrowserView(this);
    m_view->setModel(m_model);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(DirectoryModel::Name, Qt::AscendingOrder);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setDragDropMode(QAbstractItemView::DragDrop);
    m_view->setDefaultDropAction(Qt::CopyAction);
    m_view->setDropIndicatorShown(true);
    m_view->setAlternatingRowColors(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->header()->setStretchLastSection(false);
    layoutColumns();
    m_view->installEventFilter(this);
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->setChildrenCollapsible(false);
    m_split->addWidget(m_view);
    m_preview = new PreviewPanel(m_split);
    m_preview->setObjectName(QStringLiteral("preview"));
    m_split->addWidget(m_preview);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    m_preview->hide();
    layout->addWidget(m_split, 1);

    connect(m_back, &QToolButton::clicked, this, &BrowserPane::goBack);
    connect(m_forward, &QToolButton::clicked, this, &BrowserPane::goForward);
    connect(m_up, &QToolButton::clicked, this, &BrowserPane::goUp);
    connect(m_pathBar, &PathBar::openRequested, this, &BrowserPane::openUri);
    connect(m_filter, &QLineEdit::textChanged, this, &BrowserPane::filter);
    connect(m_view, &QAbstractItemView::activated, this, &BrowserPane::activate);
    connect(m_model, &DirectoryModel::stateChanged, this, &BrowserPane::updateState);
    connect(m_model, &DirectoryModel::transferRequested, this, &BrowserPane::transferRequested);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &BrowserPane::summaryChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &BrowserPane::updatePreview);
    connect(m_search, &SearchModel::progress, this, &BrowserPane::updateState);
    connect(m_search, &SearchModel::finished, this, &BrowserPane::updateState);
    updateButtons();
}

// The model filters its rows itself (a big folder's on a worker thread); the selection and
// current row follow their entries.
void BrowserPane::filter(const QString &text)
{
    if (searching())
        return; // the box is hidden; closing the search applies it
    m_model->setNameFilter(text);
    Q_EMIT summaryChanged();
}

// Puts the listing (m_model) or the search results (m_search) in the view.
void BrowserPane::showModel(QAbstractItemModel *wanted)
{
    if (m_view->model() == wanted)
        return;
    QItemSelectionModel *old = m_view->selectionModel();
    m_view->setModel(wanted); // sorted by the header's column, as the view does
    old->deleteLater();       // the view made it and leaves it
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &BrowserPane::summaryChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &BrowserPane::updatePreview);
    m_view->setDragDropMode(wanted == m_search ? QAbstractItemView::DragOnly : QAbstractItemView::DragDrop);
    m_filter->setVisible(wanted != m_search);
    layoutColumns();
    Q_EMIT summaryChanged();
}

void BrowserPane::layoutColumns()
{
    QHeaderView *header = m_view->header();
    // Results: where a file is matters more than its kind; long folder paths lose their
    // middle, so the first and the last folders stay readable.
    m_view->setTextElideMode(searching() ? Qt::ElideMiddle : Qt::ElideRight);
    if (searching()) {
        header->setSectionResizeMode(SearchModel::Name, QHeaderView::Interactive);
        header->resizeSection(SearchModel::Name, 180);
        header->setSectionResizeMode(SearchModel::Folder, QHeaderView::Stretch);
        header->resizeSection(SearchModel::Size, 80);
        header->resizeSection(SearchModel::Modified, 130);
        header->setSectionHidden(SearchModel::Kind, true);
        return;
    }
    header->setSectionHidden(DirectoryModel::Kind, false);
    header->setSectionResizeMode(DirectoryModel::Name, QHeaderView::Stretch);
    header->resizeSection(DirectoryModel::Size, 90);
    header->resizeSection(DirectoryModel::Modified, 130);
    header->resizeSection(DirectoryModel::Kind, 110);
}

bool BrowserPane::searching() const
{
    return m_view->model() == m_search;
}

void BrowserPane::startSearch()
{
    if (!location().op)
        return;
    m_searchBar->show();
    m_searchText->setFocus();
    m_searchText->selectAll();
}

void BrowserPane::runSearch()
{
    if (!location().op)
        return;
    m_searchBar->show();
    FindCriteria criteria = searchTextCriteria(m_searchText->text().trimmed().toStdString());
    if (const QString size = m_searchSize->text().trimmed(); !size.isEmpty()) {
        criteria.size = parseSizeTest(size.toStdString());
        if (!criteria.size) {
            m_searchError = tr("A size reads like +10M (more than 10 MiB), -4k (less than 4 KiB) or 100c (exactly "
                               "100 bytes).");
            updateState();
            return;
        }
        criteria.size->roundUp = false; // "-1M" means less than a MiB here, not empty as in find
        if (!size.back().isLetter())
            criteria.size->unit = 1; // a bare number is bytes, not find's 512-byte blocks
    }
    if (const int seconds = m_searchAge->currentData().toInt(); seconds > 0)
        criteria.newerNs =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count()
            - std::int64_t(seconds) * 1'000'000'000;
    m_searchError.clear();
    showModel(m_search);
    m_search->start(location(), std::move(criteria));
    updateState();
}

void BrowserPane::stopSearch()
{
    m_search->stop();
    updateState();
}

void BrowserPane::closeSearch()
{
    const bool hadFocus = m_searchBar->isAncestorOf(QApplication::focusWidget());
    m_search->clear();
    m_searchError.clear();
    m_searchBar->hide();
    if (searching()) {
        showModel(m_model);
        filter(m_filter->text());
    }
    if (hadFocus || !m_view->hasFocus())
        m_view->setFocus();
    updateState();
}

void BrowserPane::openContainingFolder()
{
    if (!searching())
        return;
    std::optional<Entry> e = entryAt(m_view->currentIndex());
    if (const auto selected = m_view->selectionModel()->selectedRows(SearchModel::Name); !e && !selected.isEmpty())
        e = entryAt(selected.front());
    if (!e)
        return;
    m_selectName = e->name;
    openUri(uriOf(std::string(parentPath(e->path))));
}

void BrowserPane::selectMarked(std::initializer_list<int> marks)
{
    if (searching())
        return;
    QItemSelection selection;
    for (int row = 0; row < m_model->rowCount(); ++row)
        if (const ListedEntry *e = m_model->rowAt(row);
            e && std::find(marks.begin(), marks.end(), int(m_model->markOf(e->name()))) != marks.end())
            selection.select(m_model->index(row, 0), m_model->index(row, DirectoryModel::ColumnCount - 1));
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void BrowserPane::setDesktopExport(
    const std::function<QList<QUrl>(const Location &, const std::vector<Entry> &)> &exportFiles)
{
    m_model->setDesktopExport(exportFiles);
    m_search->setDesktopExport(exportFiles);
}

std::optional<Entry> BrowserPane::entryAt(const QModelIndex &viewIndex) const
{
    if (!viewIndex.isValid())
        return std::nullopt;
    if (viewIndex.model() == m_search) {
        const Entry *found = m_search->entryAt(viewIndex.row());
        return found ? std::optional(*found) : std::nullopt;
    }
    return m_model->entryAt(viewIndex.row());
}

// After Open Containing Folder: the entry is selected once the listing holds it.
void BrowserPane::selectPending()
{
    if (m_selectName.empty() || searching() || m_model->loading() || !m_opening.isEmpty())
        return;
    const std::string name = std::exchange(m_selectName, {});
    for (int row = 0; row < m_model->rowCount(); ++row) {
        if (const ListedEntry *e = m_model->rowAt(row); e && e->name() == name) {
            const QModelIndex index = m_model->index(row, DirectoryModel::Name);
            m_view->selectionModel()->setCurrentIndex(index,
                                                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_view->scrollTo(index);
            return;
        }
    }
}

void BrowserPane::openUri(const QString &uri)
{
    navigate(uri, true);
}

void BrowserPane::navigate(const QString &uri, bool remember)
{
    if (remember) {
        m_history.resize(m_historyAt + 1);
        m_history << uri;
        m_historyAt = m_history.size() - 1;
    }
    m_opening = uri;
    m_openError.clear();
    updateState();
    // Opening may connect to a server: never on the GUI thread.
    QtConcurrent::run(ioPool(), [registry = m_registry.shared_from_this(), text = uri.toStdString()] {
        Opened out;
        auto location = registry->open(text);
        if (location)
            out.location = std::move(*location);
        else
            out.error = QString::fromStdString(location.error().message());
        return out;
    }).then(this, [this, uri](const Opened &opened) {
        if (uri != m_opening)
            return; // the user went elsewhere meanwhile
        m_opening.clear();
        if (!opened.location) {
            m_openError = opened.error;
            updateState();
            return;
        }
        showLocation(*opened.location);
    });
    updateButtons();
}

void BrowserPane::showLocation(const Location &location)
{
    if (searching() || m_searchBar->isVisible()) {
        const std::string keep = std::exchange(m_selectName, {});
        closeSearch();
        m_selectName = keep;
    }
    m_filter->clear();
    m_model->setLocation(location);
    if (previewing())
        m_preview->clear();
    // Breadcrumbs: the root of the connection, then each folder down to this one.
    QList<QPair<QString, QString>> crumbs;
    Uri root = location.op->uriFor("/");
    const QString rootUri = QString::fromStdString(root.toString());
    crumbs.append({root.scheme() == "file" ? QStringLiteral("/") : locationName(rootUri), rootUri});
    std::string at;
    for (std::string_view rest = location.path; !rest.empty();) {
        const auto slash = rest.find('/', 1);
        const std::string_view segment = rest.substr(1, slash == std::string_view::npos ? rest.npos : slash - 1);
        if (segment.empty())
            break;
        at += "/";
        at += segment;
        crumbs.append({QString::fromStdString(std::string(segment)), m_model->uriOf(at)});
        rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    }
    m_pathBar->setLocation(m_model->uri(), crumbs);
    if (m_historyAt >= 0)
        m_history[m_historyAt] = m_model->uriOf(location.path); // canonical form
    updateButtons();
    Q_EMIT locationChanged();
}

void BrowserPane::refresh()
{
    if (searching()) {
        runSearch();
        return;
    }
    if (!m_opening.isEmpty() || !m_openError.isEmpty() || !location().op) {
        if (m_historyAt >= 0)
            navigate(m_history[m_historyAt], false);
        return;
    }
    m_model->refresh();
}

void BrowserPane::goUp()
{
    const Location &here = location();
    if (!here.op || here.path == "/")
        return;
    openUri(uriOf(std::string(parentPath(here.path))));
}

void BrowserPane::goBack()
{
    if (m_historyAt > 0)
        navigate(m_history[--m_historyAt], false);
}

void BrowserPane::goForward()
{
    if (m_historyAt + 1 < m_history.size())
        navigate(m_history[++m_historyAt], false);
}

void BrowserPane::editLocation()
{
    m_pathBar->startEditing();
}

void BrowserPane::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

const Location &BrowserPane::location() const
{
    return m_model->location();
}

QString BrowserPane::displayUri() const
{
    return m_model->uri();
}

QString BrowserPane::uriOf(const std::string &path) const
{
    return m_model->uriOf(path);
}

std::vector<Entry> BrowserPane::selectedEntries() const
{
    std::vector<Entry> out;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows(0))
        if (auto e = entryAt(index))
            out.push_back(std::move(*e));
    return out;
}

QString BrowserPane::summary() const
{
    const auto selected = selectedEntries();
    QString text = tr("%n item(s)", nullptr, m_view->model()->rowCount());
    if (!selected.empty()) {
        std::uint64_t bytes = 0;
        for (const auto &e : selected)
            bytes += e.isDir() ? 0 : e.size;
        text += tr(", %n selected (%1)", nullptr, int(selected.size())).arg(sizeString(bytes));
    }
    return text;
}

void BrowserPane::activate(const QModelIndex &viewIndex)
{
    const std::optional<Entry> found = entryAt(viewIndex);
    if (!found)
        return;
    const Entry &e = *found; // a copy: opening a folder closes the search and its rows
    if (e.isDir())
        openUri(uriOf(e.path));
    else
        Q_EMIT fileActivated(uriOf(e.path), e);
}

void BrowserPane::togglePreview()
{
    m_preview->setVisible(!m_preview->isVisible());
    if (m_preview->isVisible())
        updatePreview();
    else
        m_preview->clear(); // a load still running is dropped
}

bool BrowserPane::previewing() const
{
    return m_preview->isVisibleTo(this);
}

void BrowserPane::updatePreview()
{
    if (!previewing())
        return;
    const std::optional<Entry> entry = entryAt(m_view->currentIndex());
    const Location &where = searching() ? m_search->location() : location();
    if (!entry || !where.op)
        m_preview->clear();
    else
        m_preview->preview(where.op, *entry);
}

void BrowserPane::updateState()
{
    QString banner;
    QString style = QStringLiteral("background: palette(alternate-base); border-radius: 3px;");
    const QString below = QString::fromStdString(m_search->location().op ? m_search->location().display() : "");
    if (!m_searchError.isEmpty()) {
        banner = m_searchError;
        style = QStringLiteral("background: #fdecea; color: #8a1c12; border-radius: 3px;");
    } else if (searching() && !m_search->error().isEmpty()) {
        banner = m_search->error();
        style = QStringLiteral("background: #fdecea; color: #8a1c12; border-radius: 3px;");
    } else if (searching() && m_search->running()) {
        banner = tr("Searching below %1… %L2 found among %L3 entries (Esc stops)")
                     .arg(below)
                     .arg(m_search->rowCount())
                     .arg(m_search->looked());
    } else if (searching()) {
        banner = tr("%n found below %1", nullptr, m_search->rowCount()).arg(below);
        if (m_search->truncated())
            banner += tr(": the first %L1; narrow the search to see the rest").arg(SearchModel::kMaxResults);
        else if (m_search->stopped())
            banner += tr(" (stopped among %L1 entries)").arg(m_search->looked());
        if (m_search->unreadable() > 0)
            banner += tr("; %n folder(s) could not be read", nullptr, m_search->unreadable());
    } else if (!m_opening.isEmpty()) {
        banner = tr("Opening %1…").arg(m_opening);
    } else if (!m_openError.isEmpty()) {
        banner = m_openError;
        style = QStringLiteral("background: #fdecea; color: #8a1c12; border-radius: 3px;");
    } else if (!m_model->error().isEmpty()) {
        banner = m_model->error();
        style = QStringLiteral("background: #fdecea; color: #8a1c12; border-radius: 3px;");
    } else if (!m_model->warning().isEmpty()) {
        banner = m_model->warning();
        style = QStringLiteral("background: #fff4e5; color: #663c00; border-radius: 3px;");
    } else if (m_model->loading() && m_model->rowCount() > 0) {
        banner = tr("Listing… %L1 entries so far").arg(m_model->rowCount());
    } else if (m_model->loading()) {
        banner = tr("Listing…");
    } else if (m_model->sorting()) {
        banner = tr("Sorting…");
    } else if (m_model->filtering()) {
        banner = tr("Filtering…");
    }
    m_banner->setText(banner);
    m_banner->setStyleSheet(style);
    m_banner->setVisible(!banner.isEmpty());
    m_searchStop->setEnabled(m_search->running());
    selectPending();
    Q_EMIT summaryChanged();
}

void BrowserPane::updateButtons()
{
    m_back->setEnabled(m_historyAt > 0);
    m_forward->setEnabled(m_historyAt + 1 < m_history.size());
    m_up->setEnabled(location().op && location().path != "/");
}

bool BrowserPane::eventFilter(QObject *watched, QEvent *event)
{
    // Esc stops a running search, else closes it (from the bar or the results).
    if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape
        && (watched != m_view || searching()) && m_searchBar->isVisible()) {
        if (m_search->running())
            stopSearch();
        else
            closeSearch();
        return true;
    }
    if (watched == m_view) {
        if (event->type() == QEvent::FocusIn)
            Q_EMIT focused();
        if (event->type() == QEvent::KeyPress) {
            auto *key = static_cast<QKeyEvent *>(event);
            // The view claims F2 for in-place editing; here it renames through the dialog.
            if (key->key() == Qt::Key_F2 && key->modifiers() == Qt::NoModifier) {
                Q_EMIT renameRequested();
                return true;
            }
            if (key->key() == Qt::Key_Space && key->modifiers() == Qt::NoModifier) {
                togglePreview();
                return true;
            }
            if (key->key() == Qt::Key_Escape && key->modifiers() == Qt::NoModifier && previewing()) {
                togglePreview();
                return true;
            }
            if (key->key() == Qt::Key_Backspace && key->modifiers() == Qt::NoModifier) {
                goUp();
                return true;
            }
            if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) && m_view->currentIndex().isValid()) {
                activate(m_view->currentIndex());
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace strata

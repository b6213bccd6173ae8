#include "ui/browser_pane.h"

#include "core/storage/path.h"
#include "ui/browser_view.h"
#include "ui/directory_filter_proxy.h"
#include "ui/directory_model.h"
#include "ui/entry_format.h"
#include "ui/io_pool.h"
#include "ui/path_bar.h"

#include <QFocusEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QStyle>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

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
    m_filter->setPlaceholderText(tr("Filter"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(160);
    bar->addWidget(m_back);
    bar->addWidget(m_forward);
    bar->addWidget(m_up);
    bar->addWidget(m_pathBar, 1);
    bar->addWidget(m_filter);
    layout->addLayout(bar);

    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("paneBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::PlainText); // names and server text are never markup
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setContentsMargins(6, 4, 6, 4);
    m_banner->hide();
    layout->addWidget(m_banner);

    m_model = new DirectoryModel(this);
    m_proxy = new DirectoryFilterProxy(this);
    m_view = new BrowserView(this);
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true); // a 100 000-row folder lays out in no time
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(DirectoryModel::Name, Qt::AscendingOrder);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setDragDropMode(QAbstractItemView::DragDrop);
    m_view->setDefaultDropAction(Qt::CopyAction);
    m_view->setDropIndicatorShown(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->setAlternatingRowColors(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(DirectoryModel::Name, QHeaderView::Stretch);
    m_view->header()->resizeSection(DirectoryModel::Size, 90);
    m_view->header()->resizeSection(DirectoryModel::Modified, 130);
    m_view->header()->resizeSection(DirectoryModel::Kind, 110);
    m_view->installEventFilter(this);
    layout->addWidget(m_view, 1);

    connect(m_back, &QToolButton::clicked, this, &BrowserPane::goBack);
    connect(m_forward, &QToolButton::clicked, this, &BrowserPane::goForward);
    connect(m_up, &QToolButton::clicked, this, &BrowserPane::goUp);
    connect(m_pathBar, &PathBar::openRequested, this, &BrowserPane::openUri);
    connect(m_filter, &QLineEdit::textChanged, this, &BrowserPane::filter);
    connect(m_view, &QTreeView::activated, this, &BrowserPane::activate);
    connect(m_model, &DirectoryModel::stateChanged, this, &BrowserPane::updateState);
    connect(m_model, &DirectoryModel::transferRequested, this, &BrowserPane::transferRequested);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &BrowserPane::summaryChanged);
    updateButtons();
}

// The view shows the model itself unless a filter is typed: through a proxy, a million
// rows lay out twice as slowly (each row's index, parent and flags are mapped), and the
// proxy would map every row arriving. The selection and current row follow their entries.
void BrowserPane::filter(const QString &text)
{
    QAbstractItemModel *wanted = m_model;
    if (!text.isEmpty()) {
        if (!m_proxy->sourceModel())
            m_proxy->setSourceModel(m_model);
        m_proxy->setNameFilter(text);
        wanted = m_proxy;
    }
    if (m_view->model() == wanted)
        return;
    // In the model's terms: the model does not change meanwhile, so no persistent indexes.
    QItemSelection selected = m_view->selectionModel()->selection();
    if (m_view->model() == m_proxy)
        selected = m_proxy->mapSelectionToSource(selected);
    const QModelIndex current = toModel(m_view->currentIndex());
    QItemSelectionModel *old = m_view->selectionModel();
    m_view->setModel(wanted); // the header keeps its sections: the columns are the same
    old->deleteLater();       // the view made it and leaves it
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &BrowserPane::summaryChanged);
    if (wanted == m_model) { // detached first: no rows to add back one interval at a time
        m_proxy->setSourceModel(nullptr);
        m_proxy->setNameFilter({});
    }
    if (wanted == m_proxy)
        selected = m_proxy->mapSelectionFromSource(selected);
    m_view->selectionModel()->select(selected, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    if (const QModelIndex shown = fromModel(current); shown.isValid()) {
        m_view->selectionModel()->setCurrentIndex(shown, QItemSelectionModel::NoUpdate);
        m_view->scrollTo(shown);
    }
    Q_EMIT summaryChanged();
}

QModelIndex BrowserPane::toModel(const QModelIndex &viewIndex) const
{
    return viewIndex.model() == m_proxy ? m_proxy->mapToSource(viewIndex) : viewIndex;
}

QModelIndex BrowserPane::fromModel(const QModelIndex &modelIndex) const
{
    return m_view->model() == m_proxy ? m_proxy->mapFromSource(modelIndex) : modelIndex;
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
    Registry *registry = &m_registry;
    QtConcurrent::run(ioPool(), [registry, text = uri.toStdString()] {
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
    m_filter->clear();
    m_model->setLocation(location);
    // Breadcrumbs: the root of the connection, then each folder down to this one.
    QList<QPair<QString, QString>> crumbs;
    Uri root = location.op->uriFor("/");
    crumbs.append({QString::fromStdString(root.scheme() == "file" ? std::string("/") : location.op->display("/")),
                   QString::fromStdString(root.toString())});
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
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows(DirectoryModel::Name))
        if (const Entry *e = m_model->entryAt(toModel(index).row()))
            out.push_back(*e);
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
    const Entry *e = m_model->entryAt(toModel(viewIndex).row());
    if (!e)
        return;
    if (e->isDir())
        openUri(uriOf(e->path));
    else
        Q_EMIT fileActivated(uriOf(e->path), *e);
}

void BrowserPane::updateState()
{
    QString banner;
    QString style = QStringLiteral("background: palette(alternate-base); border-radius: 3px;");
    if (!m_opening.isEmpty()) {
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
    }
    m_banner->setText(banner);
    m_banner->setStyleSheet(style);
    m_banner->setVisible(!banner.isEmpty());
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

#include "ui/directory_model.h"

#include "core/storage/path.h"
#include "ui/drag_mime_data.h"
#include "ui/entry_format.h"
#include "ui/io_pool.h"

#include <QApplication>
#include <QMimeData>
#include <QPromise>
#include <QStyle>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>

#include <unordered_map>

namespace strata {

namespace {

constexpr std::size_t kPageSize = 1000;

// Whether dropping `source` into the directory `destination` changes nothing (already
// there) or makes no sense (a folder into itself or its own subfolder).
bool droppedInPlace(const QString &source, const QString &destination)
{
    auto s = Uri::parse(source.toStdString());
    auto d = Uri::parse(destination.toStdString());
    if (!s || !d)
        return false;
    const std::string sp = s->path(), dp = d->path();
    s->setPath("/");
    d->setPath("/");
    if (s->toString() != d->toString())
        return false; // another storage
    return parentPath(sp) == dp || dp == sp || dp.starts_with(sp + "/");
}

// Runs on a storage thread: each page becomes a result as soon as it is listed.
void listAllPages(QPromise<ListingChunk> &promise, std::shared_ptr<Operator> op, std::string path)
{
    ListOptions options;
    options.pageSize = kPageSize;
    do {
        if (promise.isCanceled())
            return;
        auto page = op->list(path, options);
        if (!page) {
            promise.addResult(ListingChunk{{}, QString::fromStdString(page.error().message())});
            return;
        }
        options.pageToken = std::move(page->nextPageToken);
        promise.addResult(ListingChunk{std::move(page->entries), {}});
    } while (!options.pageToken.empty());
}

} // namespace

DirectoryModel::DirectoryModel(QObject *parent) : QAbstractTableModel(parent) {}

DirectoryModel::~DirectoryModel()
{
    stopListing();
}

void DirectoryModel::setLocation(const Location &location)
{
    stopListing();
    m_refreshing = false;
    beginResetModel();
    m_location = location;
    m_entries.clear();
    m_error.clear();
    endResetModel();
    startListing();
}

// Lists again and applies the differences when the new listing is complete: rows that
// stayed keep their place (and the view its selection and scroll position), gone ones
// are removed, changed ones updated, new ones appended.
void DirectoryModel::refresh()
{
    if (!m_location.op)
        return;
    if (m_watcher && !m_refreshing) {
        setLocation(m_location); // still on the first listing: start it again
        return;
    }
    stopListing();
    m_refreshing = true;
    m_incoming.clear();
    m_incomingError.clear();
    startListing();
}

void DirectoryModel::applyRefresh()
{
    m_refreshing = false;
    if (!m_incomingError.isEmpty()) {
        m_error = m_incomingError; // the old rows stay, under the reason
        return;
    }
    m_error.clear();
    std::unordered_map<std::string_view, std::size_t> fresh;
    fresh.reserve(m_incoming.size());
    for (std::size_t i = 0; i < m_incoming.size(); ++i)
        fresh.emplace(m_incoming[i].name, i);
    for (int row = int(m_entries.size()) - 1; row >= 0; --row) {
        if (fresh.contains(m_entries[std::size_t(row)].name))
            continue;
        // A run of vanished rows goes in one removal.
        int first = row;
        while (first > 0 && !fresh.contains(m_entries[std::size_t(first - 1)].name))
            --first;
        beginRemoveRows({}, first, row);
        m_entries.erase(m_entries.begin() + first, m_entries.begin() + row + 1);
        endRemoveRows();
        row = first;
    }
    // Matched first, moved after: the map's keys view the incoming names.
    std::vector<bool> known(m_incoming.size(), false);
    std::vector<std::size_t> match(m_entries.size());
    for (std::size_t row = 0; row < m_entries.size(); ++row) {
        match[row] = fresh.at(m_entries[row].name);
        known[match[row]] = true;
    }
    fresh.clear();
    for (std::size_t row = 0; row < m_entries.size(); ++row) {
        Entry &now = m_incoming[match[row]];
        Entry &was = m_entries[row];
        if (now.kind != was.kind || now.size != was.size || now.mtimeNs != was.mtimeNs || now.etag != was.etag) {
            was = std::move(now);
            Q_EMIT dataChanged(index(int(row), 0), index(int(row), ColumnCount - 1));
        }
    }
    std::vector<Entry> added;
    for (std::size_t i = 0; i < m_incoming.size(); ++i)
        if (!known[i])
            added.push_back(std::move(m_incoming[i]));
    if (!added.empty()) {
        const int first = int(m_entries.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_entries.insert(m_entries.end(), std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
        endInsertRows();
    }
    m_incoming.clear();
}

QString DirectoryModel::uri() const
{
    return m_location.op ? QString::fromStdString(m_location.display()) : QString();
}

QString DirectoryModel::uriOf(const std::string &path) const
{
    return m_location.op ? QString::fromStdString(m_location.op->uriFor(path).toString()) : QString();
}

void DirectoryModel::startListing()
{
    if (!m_location.op)
        return;
    m_watcher = new QFutureWatcher<ListingChunk>(this);
    connect(m_watcher, &QFutureWatcher<ListingChunk>::resultsReadyAt, this, [this](int begin, int end) {
        for (int i = begin; i < end; ++i)
            appendPage(i);
    });
    connect(m_watcher, &QFutureWatcher<ListingChunk>::finished, this, &DirectoryModel::listingFinished);
    m_watcher->setFuture(QtConcurrent::run(ioPool(), listAllPages, m_location.op, m_location.path));
    Q_EMIT stateChanged();
}

// The storage thread notices the cancel between pages; nothing waits for it here.
void DirectoryModel::stopListing()
{
    if (!m_watcher)
        return;
    m_watcher->disconnect(this);
    m_watcher->cancel();
    m_watcher->deleteLater();
    m_watcher = nullptr;
}

void DirectoryModel::appendPage(int index)
{
    ListingChunk chunk = m_watcher->resultAt(index);
    if (m_refreshing) { // gathered until the listing is complete
        if (!chunk.error.isEmpty())
            m_incomingError = chunk.error;
        m_incoming.insert(m_incoming.end(), std::make_move_iterator(chunk.entries.begin()),
                          std::make_move_iterator(chunk.entries.end()));
        return;
    }
    if (!chunk.error.isEmpty())
        m_error = chunk.error;
    if (chunk.entries.empty())
        return;
    const int first = int(m_entries.size());
    beginInsertRows({}, first, first + int(chunk.entries.size()) - 1);
    m_entries.insert(m_entries.end(), std::make_move_iterator(chunk.entries.begin()),
                     std::make_move_iterator(chunk.entries.end()));
    endInsertRows();
    Q_EMIT stateChanged();
}

void DirectoryModel::listingFinished()
{
    m_watcher->deleteLater();
    m_watcher = nullptr;
    if (m_refreshing)
        applyRefresh();
    Q_EMIT stateChanged();
}

const Entry *DirectoryModel::entryAt(int row) const
{
    return row >= 0 && row < int(m_entries.size()) ? &m_entries[std::size_t(row)] : nullptr;
}

int DirectoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int DirectoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DirectoryModel::data(const QModelIndex &index, int role) const
{
    const Entry *e = index.isValid() ? entryAt(index.row()) : nullptr;
    if (!e)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name: return QString::fromStdString(e->name);
        case Size: return e->isDir() ? QString() : formatSize(e->size);
        case Modified: return e->mtimeNs ? formatTime(*e->mtimeNs) : QString();
        case Kind: return kindText(*e);
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == Name)
            return iconFor(*e);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Size)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        if (index.column() == Name)
            return QString::fromStdString(m_location.op->display(e->path));
        if (index.column() == Size && !e->isDir())
            return tr("%L1 bytes").arg(e->size);
        break;
    case EntryPathRole: return QString::fromStdString(e->path);
    case IsDirRole: return e->isDir();
    case UriRole: return uriOf(e->path);
    case SortRole:
        switch (index.column()) {
        case Name: return QString::fromStdString(e->name);
        case Size: return QVariant::fromValue<qulonglong>(e->isDir() ? 0 : e->size);
        case Modified: return QVariant::fromValue<qlonglong>(e->mtimeNs.value_or(0));
        case Kind: return kindText(*e);
        }
        break;
    }
    return {};
}

QVariant DirectoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name: return tr("Name");
    case Size: return tr("Size");
    case Modified: return tr("Modified");
    case Kind: return tr("Kind");
    }
    return {};
}

Qt::ItemFlags DirectoryModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::ItemIsDropEnabled; // onto the directory itself
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
    if (const Entry *e = entryAt(index.row()); e && e->isDir())
        f |= Qt::ItemIsDropEnabled;
    return f;
}

bool DirectoryModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_watcher != nullptr;
}

// Pages stream in on their own; a view asking for more just waits for the next one.
void DirectoryModel::fetchMore(const QModelIndex &) {}

QStringList DirectoryModel::mimeTypes() const
{
    return {QString::fromLatin1(UriListMime), QStringLiteral("text/uri-list")};
}

QMimeData *DirectoryModel::mimeData(const QModelIndexList &indexes) const
{
    QStringList uris;
    QList<QUrl> urls;
    std::vector<Entry> remote;
    for (const auto &index : indexes) {
        if (index.column() != Name)
            continue;
        if (const Entry *e = entryAt(index.row())) {
            uris << uriOf(e->path);
            // The desktop understands local files only.
            if (auto local = m_location.op->localPath(e->path))
                urls << QUrl::fromLocalFile(QString::fromStdString(*local));
            else
                remote.push_back(*e);
        }
    }
    if (uris.isEmpty())
        return nullptr;
    DragMimeData::Export exportRemote;
    if (!remote.empty() && m_desktopExport)
        exportRemote = [exportFiles = m_desktopExport, location = m_location, remote] { return exportFiles(location, remote); };
    auto *data = new DragMimeData(urls, std::move(exportRemote));
    data->setData(QString::fromLatin1(UriListMime), uris.join(QLatin1Char('\n')).toUtf8());
    return data;
}

QStringList DirectoryModel::urisIn(const QMimeData *data)
{
    if (!data)
        return {};
    if (data->hasFormat(QString::fromLatin1(UriListMime)))
        return QString::fromUtf8(data->data(QString::fromLatin1(UriListMime))).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList uris;
    for (const QUrl &url : data->urls()) {
        if (url.isLocalFile())
            uris << QString::fromStdString(Uri::fromLocalPath(url.toLocalFile().toStdString()).toString());
        else if (!url.scheme().isEmpty())
            uris << url.toString();
    }
    return uris;
}

bool DirectoryModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int, int,
                                     const QModelIndex &parent) const
{
    if (!m_location.op || (action != Qt::CopyAction && action != Qt::MoveAction))
        return false;
    if (parent.isValid()) {
        const Entry *e = entryAt(parent.row());
        if (!e || !e->isDir())
            return false;
    }
    return !urisIn(data).isEmpty();
}

bool DirectoryModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                                  const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    std::string dir = m_location.path;
    if (parent.isValid())
        dir = entryAt(parent.row())->path;
    const QStringList sources = urisIn(data);
    const QString destination = uriOf(dir);
    // A drop back into the folder the items came from, or of a folder into itself, is
    // nothing to do.
    QStringList moving;
    for (const auto &source : sources)
        if (!droppedInPlace(source, destination))
            moving << source;
    if (moving.isEmpty())
        return false;
    Q_EMIT transferRequested(moving, destination, action == Qt::MoveAction);
    // The transfer engine does the work (and removes moved sources itself): the view
    // must not delete the dragged rows.
    return false;
}

} // namespace strata

// How DirectoryModel's rows look: each cell of an entry (shared with the search results),
// the column titles, and the marks Compare Folders gives rows.
#include "ui/browser/directory_model.h"

#include "ui/common/entry_format.h"

#include <QColor>

namespace strata {

QVariant DirectoryModel::data(const QModelIndex &index, int role) const
{
    const std::optional<Entry> e = index.isValid() ? entryAt(index.row()) : std::nullopt;
    if (!e)
        return {};
    if (m_marked) {
        const Mark mark = markOf(*e);
        switch (role) {
        case CompareMarkRole: return int(mark);
        case Qt::BackgroundRole:
            switch (mark) {
            case Mark::OnlyHere: return QColor(0xd6, 0xe8, 0xfb);  // blue: only on this side
            case Mark::NewerHere: return QColor(0xd8, 0xf0, 0xd2); // green: this copy is newer
            case Mark::OlderHere: return QColor(0xfb, 0xe9, 0xd0); // orange: the other is newer
            case Mark::Different: return QColor(0xf8, 0xd7, 0xd7); // red: differ, times say nothing
            case Mark::DiffersInside: return QColor(0xf1, 0xec, 0xd0);
            case Mark::None:
            case Mark::Same: break;
            }
            break;
        case Qt::ToolTipRole:
            if (index.column() == Name)
                return QString(entryData(*e, Name, role, *m_location.op).toString() + QLatin1Char(0x0a)
                               + markText(mark));
            break;
        default: break;
        }
    }
    return entryData(*e, index.column(), role, *m_location.op);
}

void DirectoryModel::setMarks(Marks marks)
{
    m_marks = std::move(marks);
    m_marked = true;
    if (!shown().empty())
        Q_EMIT dataChanged(index(0, 0), index(int(shown().size()) - 1, ColumnCount - 1));
}

void DirectoryModel::clearMarks()
{
    if (!m_marked)
        return;
    m_marks.clear();
    m_marked = false;
    if (!shown().empty())
        Q_EMIT dataChanged(index(0, 0), index(int(shown().size()) - 1, ColumnCount - 1));
}

DirectoryModel::Mark DirectoryModel::markOf(std::string_view name) const
{
    if (!m_marked)
        return Mark::None;
    const auto it = m_marks.find(std::string(name));
    return it == m_marks.end() ? Mark::Same : it->second;
}

QString DirectoryModel::markText(Mark mark)
{
    switch (mark) {
    case Mark::None: break;
    case Mark::Same: return tr("The same in the other pane");
    case Mark::OnlyHere: return tr("Only here, not in the other pane");
    case Mark::NewerHere: return tr("Newer here than in the other pane");
    case Mark::OlderHere: return tr("Older here than in the other pane");
    case Mark::Different: return tr("Different in the other pane (size or content)");
    case Mark::DiffersInside: return tr("Something inside differs from the other pane");
    }
    return {};
}

QVariant DirectoryModel::entryData(const Entry &entry, int column, int role, const Operator &op)
{
    const Entry *e = &entry;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Name: return QString::fromStdString(e->name);
        case Size: return e->isDir() ? QString() : sizeString(e->size);
        case Modified: return e->mtimeNs ? formatTime(*e->mtimeNs) : QString();
        case Kind: return kindText(*e);
        }
        break;
    case Qt::DecorationRole:
        if (column == Name)
            return iconFor(*e);
        break;
    case Qt::TextAlignmentRole:
        if (column == Size)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        if (column == Name)
            return QString::fromStdString(op.display(e->path));
        if (column == Size && !e->isDir())
            return tr("%L1 bytes").arg(e->size);
        break;
    case EntryPathRole: return QString::fromStdString(e->path);
    case IsDirRole: return e->isDir();
    case UriRole: return QString::fromStdString(op.uriFor(e->path).toString());
    case SortRole:
        switch (column) {
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
    return columnTitle(section);
}

QString DirectoryModel::columnTitle(int column)
{
    switch (column) {
    case Name: return tr("Name");
    case Size: return tr("Size");
    case Modified: return tr("Modified");
    case Kind: return tr("Kind");
    }
    return {};
}

} // namespace strata

#include "ui/browser/folder_sync.h"

#include "ui/common/entry_format.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace strata {

namespace {

using Mark = DirectoryModel::Mark;
using Kind = FolderDifference::Kind;

// A mark is only ever made stronger: a direct difference wins over "differs inside".
void mark(DirectoryModel::Marks &marks, const std::string &name, Mark value)
{
    auto [it, added] = marks.emplace(name, value);
    if (!added && it->second == Mark::DiffersInside)
        it->second = value;
}

enum Column { Action, Path, Bytes };

} // namespace

PaneMarks marksFor(const FolderComparison &comparison)
{
    PaneMarks out;
    for (const auto &d : comparison.differences) {
        const auto slash = d.path.find('/');
        if (slash != std::string::npos) {
            const std::string top = d.path.substr(0, slash);
            mark(out.a, top, Mark::DiffersInside);
            mark(out.b, top, Mark::DiffersInside);
            continue;
        }
        switch (d.kind) {
        case Kind::OnlyA: mark(out.a, d.path, Mark::OnlyHere); break;
        case Kind::OnlyB: mark(out.b, d.path, Mark::OnlyHere); break;
        case Kind::NewerA:
            mark(out.a, d.path, Mark::NewerHere);
            mark(out.b, d.path, Mark::OlderHere);
            break;
        case Kind::NewerB:
            mark(out.a, d.path, Mark::OlderHere);
            mark(out.b, d.path, Mark::NewerHere);
            break;
        case Kind::Different:
        case Kind::KindDiffers:
            mark(out.a, d.path, Mark::Different);
            mark(out.b, d.path, Mark::Different);
            break;
        }
    }
    return out;
}

std::vector<SyncAction> syncActions(const FolderComparison &comparison, bool fromA)
{
    std::vector<SyncAction> out;
    for (const auto &d : comparison.differences) {
        const auto &source = fromA ? d.a : d.b;
        const auto &target = fromA ? d.b : d.a;
        const bool onlySource = d.kind == (fromA ? Kind::OnlyA : Kind::OnlyB);
        const bool onlyTarget = d.kind == (fromA ? Kind::OnlyB : Kind::OnlyA);
        if (onlySource)
            out.push_back({SyncAction::Kind::Copy, d.path, source.kind, source.size});
        else if (onlyTarget)
            out.push_back({SyncAction::Kind::Delete, d.path, target.kind, target.size});
        else if (d.kind != Kind::KindDiffers) // a file against a folder is left to the user
            out.push_back({SyncAction::Kind::Replace, d.path, source.kind, source.size,
                           d.kind == (fromA ? Kind::NewerB : Kind::NewerA)});
    }
    return out;
}

SyncDialog::SyncDialog(std::vector<SyncAction> actions, const QString &source, const QString &target, QWidget *parent)
    : QDialog(parent), m_actions(std::move(actions))
{
    setObjectName(QStringLiteral("syncDialog"));
    setWindowTitle(tr("Synchronize"));
    resize(720, 480);
    auto *layout = new QVBoxLayout(this);
    auto *what = new QLabel(tr("Make %1 like %2:").arg(target, source), this);
    what->setTextFormat(Qt::PlainText);
    what->setWordWrap(true);
    layout->addWidget(what);

    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("syncList"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setHeaderLabels({tr("Action"), tr("Path"), tr("Size")});
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(Path, QHeaderView::Stretch);
    m_list->header()->resizeSection(Action, 110);
    m_list->header()->resizeSection(Bytes, 90);
    for (std::size_t i = 0; i < m_actions.size(); ++i) {
        const SyncAction &a = m_actions[i];
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(Action,
                      a.kind == SyncAction::Kind::Copy          ? tr("Copy")
                          : a.targetNewer                       ? tr("Replace newer")
                          : a.kind == SyncAction::Kind::Replace ? tr("Replace")
                                                                : tr("Delete"));
        if (a.targetNewer)
            item->setToolTip(Action, tr("The copy in %1 is newer than this one: unchecked, it stays").arg(target));
        item->setText(Path,
                      QString::fromStdString(a.path)
                          + (a.entryKind == EntryKind::Directory ? QStringLiteral("/") : QString()));
        item->setText(Bytes, a.entryKind == EntryKind::File ? sizeString(a.bytes) : QString());
        item->setTextAlignment(Bytes, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(Action, Qt::UserRole, qulonglong(i));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        item->setCheckState(Action, a.kind == SyncAction::Kind::Delete || a.targetNewer ? Qt::Unchecked : Qt::Checked);
        if (a.kind == SyncAction::Kind::Delete || a.targetNewer)
            item->setForeground(Action, QColor(0x8a, 0x1c, 0x12));
    }
    layout->addWidget(m_list, 1);

    m_delete = new QCheckBox(tr("Also &delete what only %1 has").arg(target), this);
    m_delete->setObjectName(QStringLiteral("syncDelete"));
    layout->addWidget(m_delete);
    m_totals = new QLabel(this);
    m_totals->setObjectName(QStringLiteral("syncTotals"));
    layout->addWidget(m_totals);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_run = buttons->addButton(tr("&Synchronize"), QDialogButtonBox::AcceptRole);
    m_run->setObjectName(QStringLiteral("syncRun"));
    m_run->setDefault(true);
    layout->addWidget(buttons);

    connect(m_delete, &QCheckBox::toggled, this, [this](bool on) {
        for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
            QTreeWidgetItem *item = m_list->topLevelItem(i);
            if (m_actions[item->data(Action, Qt::UserRole).toULongLong()].kind == SyncAction::Kind::Delete)
                item->setCheckState(Action, on ? Qt::Checked : Qt::Unchecked);
        }
    });
    connect(m_list, &QTreeWidget::itemChanged, this, &SyncDialog::updateTotals);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        Q_EMIT synchronize(checkedActions());
        accept();
    });
    updateTotals();
}

std::vector<SyncAction> SyncDialog::checkedActions() const
{
    std::vector<SyncAction> out;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = m_list->topLevelItem(i);
        if (item->checkState(Action) == Qt::Checked)
            out.push_back(m_actions[item->data(Action, Qt::UserRole).toULongLong()]);
    }
    return out;
}

void SyncDialog::updateTotals()
{
    std::uint64_t copies = 0, copyBytes = 0, replaces = 0, replaceBytes = 0, deletes = 0;
    for (const auto &a : checkedActions()) {
        switch (a.kind) {
        case SyncAction::Kind::Copy:
            ++copies;
            copyBytes += a.bytes;
            break;
        case SyncAction::Kind::Replace:
            ++replaces;
            replaceBytes += a.bytes;
            break;
        case SyncAction::Kind::Delete: ++deletes; break;
        }
    }
    if (m_actions.empty())
        m_totals->setText(tr("Nothing to do: the folders are alike."));
    else
        m_totals->setText(tr("%1 to copy (%2), %3 to replace (%4), %5 to delete")
                              .arg(copies)
                              .arg(sizeString(copyBytes))
                              .arg(replaces)
                              .arg(sizeString(replaceBytes))
                              .arg(deletes));
    m_run->setEnabled(copies + replaces + deletes > 0);
}

} // namespace strata

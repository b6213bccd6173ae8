#pragma once

// Compare Folders and Synchronize… in the browser: what a comparison of the two panes'
// folders (core/transfer/folder_compare, as `strata diff`) means for each pane's rows, and
// the checklist of what a sync from one pane to the other would do, each line uncheckable.
#include "core/transfer/folder_compare.h"
#include "ui/browser/directory_model.h"

#include <QDialog>

#include <vector>

class QCheckBox;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace strata {

// Marks for the rows of pane A and pane B: differences directly in the folders mark their
// entries; one deeper marks the top folder it is in as DiffersInside on both sides.
struct PaneMarks {
    DirectoryModel::Marks a, b;
};
PaneMarks marksFor(const FolderComparison &comparison);

// One line of a sync from a source folder to a target folder.
struct SyncAction {
    enum class Kind : std::uint8_t { Copy, Replace, Delete };
    Kind kind = Kind::Copy;
    std::string path; // relative to both folders
    EntryKind entryKind = EntryKind::File;
    std::uint64_t bytes = 0;  // to copy (the source's size), or the target's size to delete
    bool targetNewer = false; // a replacement of a newer copy with an older one
};
// What making the target like the source takes: copy what only the source has, replace what
// differs (either newer), delete what only the target has (listed; done only if checked).
std::vector<SyncAction> syncActions(const FolderComparison &comparison, bool fromA);

// The checklist: copy and replace lines checked; deletions, and replacements of a newer copy
// by an older one, listed unchecked (deletions until "Also delete…" is ticked); totals
// follow the checks. synchronize() hands over the checked lines.
class SyncDialog : public QDialog {
    Q_OBJECT
public:
    SyncDialog(std::vector<SyncAction> actions, const QString &source, const QString &target,
               QWidget *parent = nullptr);
    std::vector<SyncAction> checkedActions() const;
    QTreeWidget *list() const { return m_list; }

Q_SIGNALS:
    void synchronize(const std::vector<strata::SyncAction> &actions);

private:
    void updateTotals();

    std::vector<SyncAction> m_actions;
    QTreeWidget *m_list;
    QCheckBox *m_delete;
    QLabel *m_totals;
    QPushButton *m_run;
};

} // namespace strata

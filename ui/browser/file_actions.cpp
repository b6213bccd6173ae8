#include "ui/browser/file_actions.h"

#include "core/storage/path.h"
#include "ui/browser/browser_pane.h"
#include "ui/browser/properties_dialog.h"
#include "ui/common/io_pool.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

namespace strata {

namespace {

QString folderUri(const Location &dir)
{
    return QString::fromStdString(dir.op->uriFor(dir.path).toString());
}

} // namespace

FileActions::FileActions(QWidget *window) : QObject(window), m_window(window) {}

// Runs `work` (returns an error sentence, empty on success) on the I/O pool.
void FileActions::run(const Location &dir, std::function<QString()> work, const QString &done,
                      std::function<void(bool)> after)
{
    const QString folder = folderUri(dir);
    QtConcurrent::run(ioPool(), std::move(work))
        .then(this, [this, folder, done, after = std::move(after)](const QString &error) {
            Q_EMIT notify(error.isEmpty() ? done : error, !error.isEmpty());
            Q_EMIT changed(folder);
            if (after)
                after(error.isEmpty());
        });
}

void FileActions::newFolder(BrowserPane *pane)
{
    const Location dir = pane->location();
    if (!dir.op)
        return;
    auto *ask = new QInputDialog(m_window);
    ask->setAttribute(Qt::WA_DeleteOnClose);
    ask->setWindowTitle(tr("New Folder"));
    ask->setLabelText(tr("Name of the new folder in %1:").arg(QString::fromStdString(dir.display())));
    ask->setTextValue(tr("New folder"));
    ask->setObjectName(QStringLiteral("newFolderDialog"));
    connect(ask, &QInputDialog::textValueSelected, this, [this, dir](const QString &name) { createFolder(dir, name); });
    ask->open();
}

void FileActions::createFolder(const Location &dir, const QString &name)
{
    const std::string n = name.trimmed().toStdString();
    if (!isValidName(n)) {
        Q_EMIT notify(tr("'%1' cannot be a folder name (no '/', not '.' or '..')").arg(name), true);
        return;
    }
    run(
        dir,
        [dir, n] {
            const Status st = dir.op->createDir(joinPath(dir.path, n));
            return st ? QString() : QString::fromStdString(st.error().message());
        },
        tr("Created folder %1").arg(name.trimmed()));
}

void FileActions::rename(BrowserPane *pane)
{
    const auto selected = pane->selectedEntries();
    if (selected.size() != 1)
        return;
    const Location dir = pane->location();
    const Entry entry = selected.front();
    auto *ask = new QInputDialog(m_window);
    ask->setAttribute(Qt::WA_DeleteOnClose);
    ask->setWindowTitle(tr("Rename"));
    ask->setLabelText(tr("New name for %1:").arg(QString::fromStdString(entry.name)));
    ask->setTextValue(QString::fromStdString(entry.name));
    ask->setObjectName(QStringLiteral("renameDialog"));
    connect(ask, &QInputDialog::textValueSelected, this,
            [this, dir, entry](const QString &name) { renameEntry(dir, entry, name); });
    ask->open();
}

void FileActions::renameEntry(const Location &dir, const Entry &entry, const QString &newName)
{
    const std::string n = newName.trimmed().toStdString();
    if (n == entry.name)
        return;
    if (!isValidName(n)) {
        Q_EMIT notify(tr("'%1' cannot be a name (no '/', not '.' or '..')").arg(newName), true);
        return;
    }
    run(
        dir,
        [dir, entry, n] {
            const std::string to = joinPath(parentPath(entry.path), n);
            // Renaming never replaces something else (the storage refuses where it can).
            const Status st = dir.op->rename(entry.path, to);
            if (!st && st.error().kind() == ErrorKind::AlreadyExists)
                return QObject::tr("%1 already exists").arg(QString::fromStdString(dir.op->display(to)));
            return st ? QString() : QString::fromStdString(st.error().message());
        },
        tr("Renamed %1 to %2").arg(QString::fromStdString(entry.name), newName.trimmed()));
}

void FileActions::remove(BrowserPane *pane)
{
    const auto selected = pane->selectedEntries();
    if (selected.empty())
        return;
    confirmRemove(pane->location(), selected);
}

void FileActions::confirmRemove(const Location &dir, const std::vector<Entry> &selected,
                                std::function<void(bool)> after)
{
    if (selected.empty() || !dir.op)
        return;
    // The question names what goes, folders with everything in them.
    QStringList names;
    for (const auto &e : selected)
        if (names.size() < 8)
            names << (e.isDir() ? tr("%1 (folder, with everything in it)").arg(QString::fromStdString(e.name))
                                : QString::fromStdString(e.name));
    if (selected.size() > 8)
        names << tr("… and %n more", nullptr, int(selected.size() - 8));
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete"),
                                tr("Delete %n item(s) from %1? This cannot be undone.", nullptr, int(selected.size()))
                                    .arg(QString::fromStdString(dir.display())),
                                QMessageBox::Cancel, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("deleteDialog"));
    box->setInformativeText(names.join(QLatin1Char('\n')));
    auto *yes = box->addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::buttonClicked, this,
            [this, yes, dir, selected, after = std::move(after)](QAbstractButton *clicked) {
                if (clicked == yes)
                    removeEntries(dir, selected, after);
            });
    box->open();
}

void FileActions::removeEntries(const Location &dir, const std::vector<Entry> &entries, std::function<void(bool)> after)
{
    run(
        dir,
        [dir, entries] {
            for (const auto &e : entries) {
                // Only ever something inside the folder shown, whatever its listing held.
                if (!isStrictlyBelow(e.path, dir.path))
                    return tr("Not deleted: %1 is not inside %2")
                        .arg(QString::fromStdString(dir.op->display(e.path)), QString::fromStdString(dir.display()));
                const Status st = e.isDir() ? dir.op->removeAll(e.path) : dir.op->remove(e.path);
                if (!st)
                    return QString::fromStdString(st.error().message());
            }
            return QString();
        },
        tr("Deleted %n item(s)", nullptr, int(entries.size())), std::move(after));
}

void FileActions::copyUris(BrowserPane *pane)
{
    QStringList uris;
    for (const auto &e : pane->selectedEntries())
        uris << pane->uriOf(e.path);
    if (uris.isEmpty() && pane->location().op)
        uris << pane->uriOf(pane->location().path);
    QGuiApplication::clipboard()->setText(uris.join(QLatin1Char('\n')));
    Q_EMIT notify(tr("Copied %n URI(s)", nullptr, int(uris.size())), false);
}

void FileActions::properties(BrowserPane *pane)
{
    auto selected = pane->selectedEntries();
    if (selected.empty() || !pane->location().op)
        return;
    auto *dialog = new PropertiesDialog(pane->location().op, selected.front().path, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    Q_EMIT propertiesOpened(dialog);
    dialog->open();
}

} // namespace strata

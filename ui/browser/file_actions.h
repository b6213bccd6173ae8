#pragma once

#include "core/storage/entry.h"
#include "core/storage/registry.h"

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

class QWidget;

namespace strata {

class BrowserPane;
class PropertiesDialog;

// What the user does to entries of a pane: new folder, rename, delete, copy URI,
// properties. Questions are window-modal dialogs opened without a nested event loop;
// the storage calls run on the I/O pool and report back here. Every outcome (done or
// the one-sentence error) goes to `notify` for the status bar, and the panes showing
// the changed folder are refreshed through `changed`.
class FileActions : public QObject {
    Q_OBJECT
public:
    explicit FileActions(QWidget *window);

    void newFolder(BrowserPane *pane);
    void rename(BrowserPane *pane);
    void remove(BrowserPane *pane);
    void copyUris(BrowserPane *pane);
    void properties(BrowserPane *pane);

    // Storage work for tests and scripts: the same calls the dialogs end in.
    void createFolder(const Location &dir, const QString &name);
    void renameEntry(const Location &dir, const Entry &entry, const QString &newName);
    // `after(true)` once every entry went, `after(false)` on the first failure (reported).
    void removeEntries(const Location &dir, const std::vector<Entry> &entries, std::function<void(bool)> after = {});
    // Asks before deleting entries of dir (folders with everything in them); the Files tab
    // and the Usage page both come here, so a delete is confined the same way everywhere.
    void confirmRemove(const Location &dir, const std::vector<Entry> &entries, std::function<void(bool)> after = {});

Q_SIGNALS:
    void notify(const QString &message, bool error);
    // Something in this folder changed: panes showing it list it again.
    void changed(const QString &folderUri);
    // A properties dialog opened: the window connects what it asks for (version transfers).
    void propertiesOpened(strata::PropertiesDialog *dialog);

private:
    void run(const Location &dir, std::function<QString()> work, const QString &done,
             std::function<void(bool)> after = {});

    QWidget *m_window;
};

} // namespace strata

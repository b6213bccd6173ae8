#pragma once

#include "core/storage/operator.h"
#include "core/storage/registry.h"

#include <QDialog>

#include <memory>
#include <optional>
#include <string>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTreeWidget;

namespace strata {

// Everything the storage says about one entry: size, allocation, times, version tag,
// hash, mode; for files with an allocation map, how much is data, zeros and holes. On an
// object store also an Object tab (content type, cache control, user metadata and tags,
// editable and saved together; class, ETag, version, retention, legal hold), a Versions
// tab (download, restore or delete a stored version) and Copy Share Link (a presigned GET
// for an hour, a day or a week). Everything is fetched and changed off the GUI thread.
class PropertiesDialog : public QDialog {
    Q_OBJECT
public:
    PropertiesDialog(std::shared_ptr<Operator> op, std::string path, QWidget *parent = nullptr);
    // Deleting a version opens the object's URI pinned to it (?versionId=) here.
    void setRegistry(Registry *registry) { m_registry = registry; }
    // The URI of one stored version of the object.
    QString versionUri(const std::string &versionId) const;

Q_SIGNALS:
    void loaded(); // for tests: every answer is in
    void saved();  // a change of details went through (or failed: see the status line)
    // Asks the window to copy a version somewhere (the other pane's folder), or over the
    // object itself (a restore: the old bytes become the newest version).
    void downloadVersion(const QString &versionUri);
    void restoreVersion(const QString &versionUri, const QString &objectUri);
    void notify(const QString &message, bool error);

private:
    void addRow(const QString &label, const QString &value);
    void load();
    void showDetails(const ObjectDetails &details);
    void showVersions(const std::vector<StoredVersion> &versions);
    void save();
    void copyShareLink();
    void deleteVersion();
    std::optional<StoredVersion> selectedVersion() const;

    std::shared_ptr<Operator> m_op;
    std::string m_path;
    Registry *m_registry = nullptr;
    QTabWidget *m_tabs;
    QFormLayout *m_form;
    QLabel *m_status;
    // Object tab
    QWidget *m_object = nullptr;
    QLineEdit *m_contentType = nullptr, *m_cacheControl = nullptr;
    QTableWidget *m_metadata = nullptr, *m_tags = nullptr;
    QFormLayout *m_objectForm = nullptr;
    QPushButton *m_save = nullptr;
    ObjectDetails m_loaded;
    // Versions tab
    QTreeWidget *m_versions = nullptr;
    std::vector<StoredVersion> m_versionList;
    QPushButton *m_download = nullptr, *m_restore = nullptr, *m_deleteVersion = nullptr;
    QComboBox *m_linkLifetime = nullptr;
};

} // namespace strata

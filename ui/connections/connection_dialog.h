#pragma once

#include "core/storage/registry.h"
#include "ui/connections/connection_profile.h"

#include <QDialog>

#include <functional>
#include <memory>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace strata {

// Adds or edits a connection: one form per kind of storage (local folder, memory store,
// S3, WebDAV, NBD image), checked as the user types (OK stays off while a field is
// wrong, and the label says which), and a Test button that connects off the GUI thread
// and reports in one sentence. The secret is returned separately, never in the URI.
class ConnectionDialog : public QDialog {
    Q_OBJECT
public:
    enum Kind { LocalFolder, MemoryStore, S3, WebDav, Nbd, Sftp, Ftp };
    using RegistryMaker = std::function<std::shared_ptr<Registry>()>;

    ConnectionDialog(RegistryMaker makeRegistry, QWidget *parent = nullptr);

    void setProfile(const ConnectionProfile &profile); // to edit one
    ConnectionProfile profile() const;
    QString secret() const;

    // The URI the fields describe, or why they do not describe one.
    struct Built {
        QString uri;
        QString problem;
    };
    Built build() const;
    QString testResult() const;

    // For tests: the form's widgets by field name ("bucket", "endpoint", …).
    QWidget *field(const QString &name) const;
    void setKind(Kind kind);

Q_SIGNALS:
    void testFinished(bool ok, const QString &message);

private:
    void validate();
    void runTest();
    QLineEdit *addLine(QWidget *page, const QString &name, const QString &label, const QString &placeholder);

    RegistryMaker m_makeRegistry;
    QString m_id;
    QComboBox *m_kind;
    QLineEdit *m_name;
    QStackedWidget *m_pages;
    QLabel *m_problem;
    QLabel *m_result;
    QPushButton *m_test;
    QDialogButtonBox *m_buttons;
    bool m_nameEdited = false;
    int m_testGeneration = 0;
};

} // namespace strata

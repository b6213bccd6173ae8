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

// Adds or edits a connection: one form per kind of storage, as each registered backend
// describes it (BackendDescription::form; the backend also turns the answers into a URI
// and a saved URI back into answers: BackendFactory::fromForm, toForm). The dialog names
// no backend. Checked as the user types (OK stays off while a field is wrong, and the
// label says which), and a Test button that connects off the GUI thread and reports in one
// sentence. The secret is returned separately, never in the URI.
class ConnectionDialog : public QDialog {
    Q_OBJECT
public:
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

    // For tests: the current form's widgets by field name ("bucket", "endpoint", …).
    QWidget *field(const QString &name) const;
    // Shows the form of the backend that handles URIs of `scheme`; false when none has one.
    bool setKind(const QString &scheme);
    // The kinds offered, as the backends call themselves.
    QStringList kinds() const;

Q_SIGNALS:
    void testFinished(bool ok, const QString &message);

private:
    struct Form {
        BackendFactory *factory;
        BackendDescription description;
    };
    void validate();
    void runTest();
    void addField(QWidget *page, const FormField &field);
    FormAnswers answers() const;
    Result<FormConnection> connection() const;
    const Form &current() const;

    RegistryMaker m_makeRegistry;
    std::shared_ptr<Registry> m_registry; // whose factories draw and read the forms
    std::vector<Form> m_forms;
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

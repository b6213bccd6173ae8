#include "ui/connections/connection_dialog.h"

#include "ui/common/entry_format.h"
#include "ui/common/io_pool.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace strata {

namespace {

QString q(const std::string &text)
{
    return QString::fromStdString(text);
}

struct TestOutcome {
    bool ok = false;
    QString message;
};

} // namespace

ConnectionDialog::ConnectionDialog(RegistryMaker makeRegistry, QWidget *parent)
    : QDialog(parent), m_makeRegistry(std::move(makeRegistry)), m_registry(m_makeRegistry()),
      m_id(ConnectionList::newId())
{
    setWindowTitle(tr("Connection"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QFormLayout;
    m_kind = new QComboBox(this);
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("A name for the sidebar"));
    top->addRow(tr("&Kind:"), m_kind);
    top->addRow(tr("&Name:"), m_name);
    layout->addLayout(top);

    // One page per backend that has a form, in the order they were registered.
    m_pages = new QStackedWidget(this);
    for (BackendFactory *factory : m_registry->backends()) {
        BackendDescription description = factory->describe();
        if (description.form.empty())
            continue;
        auto *page = new QWidget(m_pages);
        auto *form = new QFormLayout(page);
        form->setContentsMargins(0, 0, 0, 0);
        m_pages->addWidget(page);
        for (const FormField &field : description.form)
            addField(page, field);
        m_kind->addItem(q(description.title));
        m_forms.push_back({factory, std::move(description)});
    }
    layout->addWidget(m_pages);

    m_problem = new QLabel(this);
    m_problem->setStyleSheet(QStringLiteral("color: #8a1c12;"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    auto *testRow = new QHBoxLayout;
    m_test = new QPushButton(tr("&Test"), this);
    m_result = new QLabel(this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    testRow->addWidget(m_test);
    testRow->addWidget(m_result, 1);
    layout->addLayout(testRow);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);

    connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_pages->setCurrentIndex(index);
        validate();
    });
    connect(m_name, &QLineEdit::textEdited, this, [this] {
        m_nameEdited = true;
        validate();
    });
    connect(m_test, &QPushButton::clicked, this, &ConnectionDialog::runTest);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // A new connection opens on the first kind that logs in with a secret (a server): a
    // local folder or a memory store seldom needs a saved connection.
    const auto server = std::find_if(m_forms.begin(), m_forms.end(), [](const Form &f) {
        return std::any_of(f.description.form.begin(), f.description.form.end(),
                           [](const FormField &field) { return field.kind == FormField::Kind::Secret; });
    });
    const int first = server == m_forms.end() ? 0 : int(server - m_forms.begin());
    m_kind->setCurrentIndex(first);
    m_pages->setCurrentIndex(first);
    validate();
    resize(520, sizeHint().height());
}

void ConnectionDialog::addField(QWidget *page, const FormField &field)
{
    auto *form = static_cast<QFormLayout *>(page->layout());
    if (field.kind == FormField::Kind::Flag) {
        auto *box = new QCheckBox(q(field.label), page);
        box->setObjectName(q(field.name));
        box->setChecked(!field.initial.empty());
        form->addRow(QString(), box);
        connect(box, &QCheckBox::toggled, this, &ConnectionDialog::validate);
        return;
    }
    auto *edit = new QLineEdit(page);
    edit->setObjectName(q(field.name));
    edit->setPlaceholderText(q(field.hint));
    edit->setText(q(field.initial));
    if (field.kind == FormField::Kind::Secret)
        edit->setEchoMode(QLineEdit::Password);
    form->addRow(q(field.label), edit);
    connect(edit, &QLineEdit::textChanged, this, &ConnectionDialog::validate);
    if (field.kind == FormField::Kind::Folder) {
        auto *browse = new QPushButton(tr("&Browse…"), page);
        form->addRow(QString(), browse);
        connect(browse, &QPushButton::clicked, this, [this, edit] {
            const QString dir = QFileDialog::getExistingDirectory(
                this, tr("Folder"), edit->text().isEmpty() ? QDir::homePath() : edit->text());
            if (!dir.isEmpty())
                edit->setText(dir);
        });
    }
}

QWidget *ConnectionDialog::field(const QString &name) const
{
    if (QWidget *page = m_pages->currentWidget())
        if (auto *w = page->findChild<QWidget *>(name))
            return w;
    return m_pages->findChild<QWidget *>(name);
}

bool ConnectionDialog::setKind(const QString &scheme)
{
    BackendFactory *factory = m_registry->factory(scheme.toStdString());
    if (!factory)
        return false;
    const std::string title = factory->describe().title;
    for (std::size_t i = 0; i < m_forms.size(); ++i) {
        if (m_forms[i].description.title == title) {
            m_kind->setCurrentIndex(int(i));
            m_pages->setCurrentIndex(int(i));
            validate();
            return true;
        }
    }
    return false;
}

QStringList ConnectionDialog::kinds() const
{
    QStringList out;
    for (const Form &f : m_forms)
        out << q(f.description.title);
    return out;
}

const ConnectionDialog::Form &ConnectionDialog::current() const
{
    return m_forms.at(std::size_t(std::max(0, m_kind->currentIndex())));
}

FormAnswers ConnectionDialog::answers() const
{
    FormAnswers out;
    QWidget *page = m_pages->currentWidget();
    for (const FormField &f : current().description.form) {
        auto *w = page ? page->findChild<QWidget *>(q(f.name)) : nullptr;
        if (auto *edit = qobject_cast<QLineEdit *>(w))
            out[f.name] = edit->text().toStdString();
        else if (auto *box = qobject_cast<QCheckBox *>(w); box && box->isChecked())
            out.emplace(f.name, std::string(1, '1'));
    }
    return out;
}

Result<FormConnection> ConnectionDialog::connection() const
{
    if (m_forms.empty())
        return Error(ErrorKind::InvalidInput, tr("Choose a kind of storage").toStdString());
    // No resolve(): some read configuration files (~/.ssh/config), not for the GUI thread.
    return current().factory->fromForm(answers());
}

ConnectionDialog::Built ConnectionDialog::build() const
{
    auto made = connection();
    if (!made)
        return {{}, q(made.error().cause().empty() ? made.error().message() : made.error().cause())};
    return {q(made->uri.toString()), {}};
}

void ConnectionDialog::validate()
{
    const Built built = build();
    QString problem = built.problem;
    if (problem.isEmpty() && m_name->text().trimmed().isEmpty() && m_nameEdited)
        problem = tr("Give the connection a name");
    if (!m_nameEdited && built.problem.isEmpty())
        m_name->setText(locationName(built.uri));
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    m_test->setEnabled(built.problem.isEmpty());
}

void ConnectionDialog::setProfile(const ConnectionProfile &profile)
{
    m_id = profile.id;
    m_name->setText(profile.name);
    m_nameEdited = true;
    auto uri = Uri::parse(profile.uri.toStdString());
    if (!uri || !setKind(q(uri->scheme())))
        return;
    QWidget *page = m_pages->currentWidget();
    const FormAnswers answers = current().factory->toForm(*uri);
    for (const FormField &f : current().description.form) {
        auto *w = page->findChild<QWidget *>(q(f.name));
        auto it = answers.find(f.name);
        std::string value = it == answers.end() ? std::string() : it->second;
        if (f.user && !profile.user.isEmpty())
            value = profile.user.toStdString();
        if (auto *edit = qobject_cast<QLineEdit *>(w); edit && (it != answers.end() || f.user))
            edit->setText(q(value));
        else if (auto *box = qobject_cast<QCheckBox *>(w); box && it != answers.end())
            box->setChecked(!value.empty());
    }
    validate();
}

ConnectionProfile ConnectionDialog::profile() const
{
    ConnectionProfile p;
    p.id = m_id;
    p.name = m_name->text().trimmed();
    auto made = connection();
    p.uri = made ? q(made->uri.toString()) : QString();
    p.user = made ? q(made->user) : QString();
    p.hasSecret = !secret().isEmpty();
    return p;
}

QString ConnectionDialog::secret() const
{
    auto made = connection();
    return made ? q(made->secret) : QString();
}

QString ConnectionDialog::testResult() const
{
    return m_result->text();
}

void ConnectionDialog::runTest()
{
    const Built built = build();
    if (!built.problem.isEmpty())
        return;
    const int generation = ++m_testGeneration;
    m_result->setText(tr("Connecting…"));
    ConnectionSecret secret{profile().user.toStdString(), this->secret().toStdString(), {}};
    // A registry of its own: a test leaves nothing behind in the app's connections.
    QtConcurrent::run(
        ioPool(),
        [registry = m_makeRegistry(), uri = built.uri.toStdString(), secret = std::move(secret)] {
            if (!secret.user.empty() || !secret.secret.empty())
                (void)registry->setSecret(uri, secret);
            auto location = registry->open(uri);
            if (!location)
                return TestOutcome{false, QString::fromStdString(location.error().message())};
            auto entry = location->op->stat(location->path);
            if (!entry)
                return TestOutcome{false, QString::fromStdString(entry.error().message())};
            QString what = entry->isDir() ? tr("a folder") : tr("an object of %L1 bytes").arg(entry->size);
            if (entry->isDir()) {
                ListOptions options;
                options.pageSize = 100;
                auto page = location->op->list(location->path, options);
                if (!page)
                    return TestOutcome{false, QString::fromStdString(page.error().message())};
                what = page->nextPageToken.empty()
                    ? tr("a folder of %n entry(s)", nullptr, int(page->entries.size()))
                    : tr("a folder of more than %n entry(s)", nullptr, int(page->entries.size()));
            }
            return TestOutcome{true, tr("Connected: %1 is %2.").arg(QString::fromStdString(location->display()), what)};
        })
        .then(this, [this, generation](const TestOutcome &outcome) {
            if (generation != m_testGeneration)
                return;
            m_result->setText((outcome.ok ? QStringLiteral("✔ ") : QStringLiteral("✘ ")) + outcome.message);
            m_result->setStyleSheet(outcome.ok ? QStringLiteral("color: #1d6b2a;") : QStringLiteral("color: #8a1c12;"));
            Q_EMIT testFinished(outcome.ok, outcome.message);
        });
}

} // namespace strata

#include "ui/browser/properties_dialog.h"

#include "core/io/extent.h"
#include "core/walk/scan.h"
#include "ui/common/allocation_map.h"
#include "ui/common/entry_format.h"
#include "ui/common/io_pool.h"

#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <optional>

namespace strata {

namespace {

struct Facts {
    std::optional<Entry> entry;
    std::optional<std::vector<Extent>> extents;
    QString error;
};

struct ObjectFacts {
    std::optional<ObjectDetails> details;
    std::optional<std::vector<StoredVersion>> versions;
    QString error;
};

QTableWidget *pairTable(QWidget *parent, const QString &name, const QString &first)
{
    auto *table = new QTableWidget(0, 2, parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels({first, QObject::tr("Value")});
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setMinimumHeight(90);
    return table;
}

void fillTable(QTableWidget *table, const std::map<std::string, std::string> &pairs)
{
    table->setRowCount(0);
    for (const auto &[key, value] : pairs) {
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(key)));
        table->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(value)));
    }
}

// The table's pairs; a row whose name was cleared is gone.
std::map<std::string, std::string> tableValues(const QTableWidget *table)
{
    std::map<std::string, std::string> out;
    for (int row = 0; row < table->rowCount(); ++row) {
        const auto *key = table->item(row, 0);
        const auto *value = table->item(row, 1);
        const QString name = key ? key->text().trimmed() : QString();
        if (!name.isEmpty())
            out[name.toStdString()] = value ? value->text().toStdString() : std::string();
    }
    return out;
}

} // namespace

PropertiesDialog::PropertiesDialog(std::shared_ptr<Operator> op, std::string path, QWidget *parent)
    : QDialog(parent), m_op(std::move(op)), m_path(std::move(path))
{
    setWindowTitle(tr("Properties"));
    setObjectName(QStringLiteral("propertiesDialog"));
    auto *layout = new QVBoxLayout(this);
    m_tabs = new QTabWidget(this);
    auto *general = new QWidget(m_tabs);
    m_form = new QFormLayout(general);
    m_tabs->addTab(general, tr("&General"));
    layout->addWidget(m_tabs, 1);
    m_status = new QLabel(tr("Asking the storage…"), this);
    m_status->setObjectName(QStringLiteral("propertiesStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    layout->addWidget(m_status);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    addRow(tr("Location:"), QString::fromStdString(m_op->display(m_path)));

    const auto caps = m_op->capabilities();
    if (caps.has(Capability::Details)) {
        // Copy Share Link, with how long the link works.
        auto *row = new QHBoxLayout;
        m_linkLifetime = new QComboBox(general);
        m_linkLifetime->setObjectName(QStringLiteral("linkLifetime"));
        m_linkLifetime->addItem(tr("for an hour"), 3600);
        m_linkLifetime->addItem(tr("for a day"), 86400);
        m_linkLifetime->addItem(tr("for a week"), 7 * 86400);
        auto *copy = new QPushButton(tr("Copy Share &Link"), general);
        copy->setObjectName(QStringLiteral("copyShareLink"));
        copy->setToolTip(tr("A link anyone can download this object with, no credentials, until it expires"));
        row->addWidget(copy);
        row->addWidget(m_linkLifetime);
        row->addStretch();
        m_form->addRow(tr("Share:"), row);
        connect(copy, &QPushButton::clicked, this, &PropertiesDialog::copyShareLink);

        m_object = new QWidget(m_tabs);
        auto *objectLayout = new QVBoxLayout(m_object);
        m_objectForm = new QFormLayout;
        m_contentType = new QLineEdit(m_object);
        m_contentType->setObjectName(QStringLiteral("contentType"));
        m_cacheControl = new QLineEdit(m_object);
        m_cacheControl->setObjectName(QStringLiteral("cacheControl"));
        m_objectForm->addRow(tr("Content type:"), m_contentType);
        m_objectForm->addRow(tr("Cache control:"), m_cacheControl);
        objectLayout->addLayout(m_objectForm);
        m_metadata = pairTable(m_object, QStringLiteral("metadata"), tr("Metadata"));
        m_tags = pairTable(m_object, QStringLiteral("tags"), tr("Tag"));
        objectLayout->addWidget(m_metadata);
        objectLayout->addWidget(m_tags);
        auto *edits = new QHBoxLayout;
        auto *addMeta = new QPushButton(tr("Add &Metadata"), m_object);
        auto *addTag = new QPushButton(tr("Add &Tag"), m_object);
        m_save = new QPushButton(tr("&Save Changes"), m_object);
        m_save->setObjectName(QStringLiteral("saveDetails"));
        m_save->setToolTip(
            tr("Changing metadata copies the object onto itself (a new version where versions are kept); "
               "clear a name to remove its row"));
        edits->addWidget(addMeta);
        edits->addWidget(addTag);
        edits->addStretch();
        edits->addWidget(m_save);
        objectLayout->addLayout(edits);
        m_tabs->addTab(m_object, tr("&Object"));
        m_object->setEnabled(false);
        const auto addRowTo = [](QTableWidget *table) {
            table->insertRow(table->rowCount());
            table->setCurrentCell(table->rowCount() - 1, 0);
            table->editItem(table->item(table->rowCount() - 1, 0));
        };
        connect(addMeta, &QPushButton::clicked, this, [this, addRowTo] { addRowTo(m_metadata); });
        connect(addTag, &QPushButton::clicked, this, [this, addRowTo] { addRowTo(m_tags); });
        connect(m_save, &QPushButton::clicked, this, &PropertiesDialog::save);
    }
    if (caps.has(Capability::Versions)) {
        auto *tab = new QWidget(m_tabs);
        auto *v = new QVBoxLayout(tab);
        m_versions = new QTreeWidget(tab);
        m_versions->setObjectName(QStringLiteral("versions"));
        m_versions->setRootIsDecorated(false);
        m_versions->setHeaderLabels({tr("Version"), tr("Size"), tr("Modified"), QString()});
        v->addWidget(m_versions);
        auto *row = new QHBoxLayout;
        m_download = new QPushButton(tr("&Download to Other Pane"), tab);
        m_download->setObjectName(QStringLiteral("downloadVersion"));
        m_restore = new QPushButton(tr("&Restore"), tab);
        m_restore->setObjectName(QStringLiteral("restoreVersion"));
        m_restore->setToolTip(tr("Copies this version over the object: it becomes the newest version"));
        m_deleteVersion = new QPushButton(tr("D&elete Version…"), tab);
        m_deleteVersion->setObjectName(QStringLiteral("deleteVersion"));
        row->addWidget(m_download);
        row->addWidget(m_restore);
        row->addStretch();
        row->addWidget(m_deleteVersion);
        v->addLayout(row);
        m_tabs->addTab(tab, tr("&Versions"));
        const auto update = [this] {
            const auto version = selectedVersion();
            m_download->setEnabled(version && !version->deleteMarker);
            m_restore->setEnabled(version && !version->deleteMarker && !version->latest);
            m_deleteVersion->setEnabled(version.has_value());
        };
        connect(m_versions, &QTreeWidget::itemSelectionChanged, this, update);
        update();
        connect(m_download, &QPushButton::clicked, this, [this] {
            if (const auto version = selectedVersion())
                Q_EMIT downloadVersion(versionUri(version->versionId));
        });
        connect(m_restore, &QPushButton::clicked, this, [this] {
            if (const auto version = selectedVersion())
                Q_EMIT restoreVersion(versionUri(version->versionId),
                                      QString::fromStdString(m_op->uriFor(m_path).toString()));
        });
        connect(m_deleteVersion, &QPushButton::clicked, this, &PropertiesDialog::deleteVersion);
    }

    QtConcurrent::run(ioPool(), [op = m_op, path = m_path] {
        Facts facts;
        auto entry = op->stat(path);
        if (!entry) {
            facts.error = QString::fromStdString(entry.error().message());
            return facts;
        }
        if (entry->isFile() && op->capabilities().has(Capability::Extents))
            if (auto map = op->extents(path))
                facts.extents = std::move(*map);
        facts.entry = std::move(*entry);
        return facts;
    }).then(this, [this](const Facts &facts) {
        m_status->setText(facts.error);
        m_status->setVisible(!facts.error.isEmpty());
        if (const auto &e = facts.entry) {
            addRow(tr("Kind:"), kindText(*e));
            if (!e->isDir())
                addRow(tr("Size:"), tr("%1 (%L2 bytes)").arg(sizeString(e->size)).arg(e->size));
            if (e->allocated)
                addRow(tr("On disk:"), sizeString(*e->allocated));
            if (e->mtimeNs)
                addRow(tr("Modified:"), formatTime(*e->mtimeNs));
            if (!e->etag.empty())
                addRow(tr("Version tag (ETag):"), QString::fromStdString(e->etag));
            if (!e->storageClass.empty())
                addRow(tr("Storage class:"), QString::fromStdString(e->storageClass));
            if (!e->contentHash.empty())
                addRow(tr("Hash:"), QString::fromStdString(e->contentHash));
            if (e->mode)
                addRow(tr("Permissions:"), QStringLiteral("%1").arg(*e->mode, 4, 8, QLatin1Char('0')));
            if (!e->symlinkTarget.empty())
                addRow(tr("Link to:"), QString::fromStdString(e->symlinkTarget));
            if (e->isDir()) { // a folder of an object store: no object to detail
                if (m_object)
                    m_tabs->removeTab(m_tabs->indexOf(m_object));
                if (m_versions)
                    m_tabs->removeTab(m_tabs->indexOf(m_versions->parentWidget()));
                m_object = nullptr;
                m_versions = nullptr;
            }
        }
        if (const auto &map = facts.extents) {
            // Where the data is, drawn, with the totals beside it.
            auto *picture = new AllocationMap(this);
            picture->setObjectName(QStringLiteral("allocationMap"));
            picture->setExtents(*map);
            addRow(tr("Allocation:"), picture->summary() + tr(" in %n extent(s)", nullptr, int(map->size())));
            m_form->addRow(picture);
        }
        if (facts.entry && !facts.entry->isDir() && (m_object || m_versions))
            load();
        else
            Q_EMIT loaded();
    });
}

QString PropertiesDialog::versionUri(const std::string &versionId) const
{
    Uri uri = m_op->uriFor(m_path);
    auto query = uri.query();
    query.emplace_back("versionId", versionId);
    uri.setQuery(std::move(query));
    return QString::fromStdString(uri.toString());
}

// The object's details and versions, (again) off the GUI thread.
void PropertiesDialog::load()
{
    const bool details = m_object != nullptr, versions = m_versions != nullptr;
    QtConcurrent::run(ioPool(), [op = m_op, path = m_path, details, versions] {
        ObjectFacts facts;
        if (details) {
            if (auto d = op->details(path))
                facts.details = std::move(*d);
            else
                facts.error = QString::fromStdString(d.error().message());
        }
        if (versions) {
            if (auto v = objectVersions(*op, path))
                facts.versions = std::move(*v);
            else if (v.error().kind() != ErrorKind::Unsupported)
                facts.error = QString::fromStdString(v.error().message());
        }
        return facts;
    }).then(this, [this](const ObjectFacts &facts) {
        if (!facts.error.isEmpty()) {
            m_status->setText(facts.error);
            m_status->show();
        }
        if (facts.details)
            showDetails(*facts.details);
        if (facts.versions)
            showVersions(*facts.versions);
        Q_EMIT loaded();
    });
}

void PropertiesDialog::showDetails(const ObjectDetails &details)
{
    m_loaded = details;
    m_object->setEnabled(true);
    m_contentType->setText(QString::fromStdString(details.contentType));
    m_cacheControl->setText(QString::fromStdString(details.cacheControl));
    fillTable(m_metadata, details.metadata);
    fillTable(m_tags, details.tags.value_or(std::map<std::string, std::string>{}));
    m_tags->setEnabled(details.tags.has_value());
    if (!details.tags)
        m_tags->setToolTip(tr("This server keeps no tags"));
    // The facts only the server sets, below the editable ones (shown once).
    while (m_objectForm->rowCount() > 2)
        m_objectForm->removeRow(2);
    const auto fact = [this](const QString &label, const QString &value) {
        if (value.isEmpty())
            return;
        auto *v = new QLabel(value, m_object);
        v->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->setTextFormat(Qt::PlainText);
        m_objectForm->addRow(label, v);
    };
    fact(tr("Storage class:"), QString::fromStdString(details.storageClass));
    fact(tr("ETag:"), QString::fromStdString(details.etag));
    fact(tr("Version:"), QString::fromStdString(details.versionId));
    fact(tr("Disposition:"), QString::fromStdString(details.contentDisposition));
    fact(tr("Encoding:"), QString::fromStdString(details.contentEncoding));
    if (!details.retentionMode.empty())
        fact(tr("Retention:"),
             details.retainUntilNs
                 ? tr("%1 until %2")
                       .arg(QString::fromStdString(details.retentionMode), formatTime(*details.retainUntilNs))
                 : QString::fromStdString(details.retentionMode));
    if (details.legalHold)
        fact(tr("Legal hold:"), *details.legalHold ? tr("on") : tr("off"));
}

void PropertiesDialog::showVersions(const std::vector<StoredVersion> &versions)
{
    m_versionList = versions;
    m_versions->clear();
    for (std::size_t i = 0; i < versions.size(); ++i) {
        const auto &v = versions[i];
        auto *item = new QTreeWidgetItem(m_versions);
        item->setText(0, QString::fromStdString(v.versionId));
        item->setText(1, v.deleteMarker ? QString() : sizeString(v.size));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(2, v.mtimeNs ? formatTime(v.mtimeNs) : QString());
        item->setText(3, v.deleteMarker ? tr("delete marker") : v.latest ? tr("latest") : QString());
        item->setData(0, Qt::UserRole, qulonglong(i));
    }
    for (int column = 0; column < 3; ++column)
        m_versions->resizeColumnToContents(column);
}

std::optional<StoredVersion> PropertiesDialog::selectedVersion() const
{
    if (!m_versions || m_versions->selectedItems().isEmpty())
        return std::nullopt;
    const auto i = m_versions->selectedItems().front()->data(0, Qt::UserRole).toULongLong();
    return i < m_versionList.size() ? std::optional(m_versionList[i]) : std::nullopt;
}

void PropertiesDialog::save()
{
    DetailsChange change;
    const std::string type = m_contentType->text().trimmed().toStdString();
    const std::string cache = m_cacheControl->text().trimmed().toStdString();
    const auto metadata = tableValues(m_metadata);
    if (type != m_loaded.contentType)
        change.contentType = type;
    if (cache != m_loaded.cacheControl)
        change.cacheControl = cache;
    if (metadata != m_loaded.metadata)
        change.metadata = metadata;
    if (m_loaded.tags) {
        const auto tags = tableValues(m_tags);
        if (tags != *m_loaded.tags)
            change.tags = tags;
    }
    if (!change.contentType && !change.cacheControl && !change.metadata && !change.tags) {
        m_status->setText(tr("Nothing changed"));
        m_status->show();
        Q_EMIT saved();
        return;
    }
    m_save->setEnabled(false);
    m_status->setText(tr("Saving…"));
    m_status->show();
    QtConcurrent::run(ioPool(), [op = m_op, path = m_path, change] {
        const Status st = op->changeDetails(path, change);
        return st ? QString() : QString::fromStdString(st.error().message());
    }).then(this, [this](const QString &error) {
        m_save->setEnabled(true);
        m_status->setText(error.isEmpty() ? tr("Saved") : error);
        if (!error.isEmpty())
            Q_EMIT notify(error, true);
        load(); // what the server keeps now (a new ETag, a new version)
        Q_EMIT saved();
    });
}

void PropertiesDialog::copyShareLink()
{
    const auto lifetime = std::chrono::seconds(m_linkLifetime->currentData().toInt());
    auto link = m_op->shareLink(m_path, lifetime); // a signature: no I/O
    if (!link) {
        m_status->setText(QString::fromStdString(link.error().message()));
        m_status->show();
        return;
    }
    QGuiApplication::clipboard()->setText(QString::fromStdString(*link));
    m_status->setText(tr("A link that works %1 is on the clipboard").arg(m_linkLifetime->currentText()));
    m_status->show();
}

void PropertiesDialog::deleteVersion()
{
    const auto version = selectedVersion();
    if (!version || !m_registry)
        return;
    auto *box = new QMessageBox(
        QMessageBox::Warning, tr("Delete Version"),
        tr("Delete version %1 of %2 for good? This cannot be undone.")
            .arg(QString::fromStdString(version->versionId), QString::fromStdString(m_op->display(m_path))),
        QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("deleteVersionDialog"));
    auto *yes = box->addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::buttonClicked, this, [this, yes, uri = versionUri(version->versionId)](auto *clicked) {
        if (clicked != yes)
            return;
        m_status->setText(tr("Deleting the version…"));
        m_status->show();
        QtConcurrent::run(ioPool(), [registry = m_registry->shared_from_this(), uri] {
            auto pinned = registry->open(uri.toStdString());
            if (!pinned)
                return QString::fromStdString(pinned.error().message());
            const Status st = pinned->op->remove(pinned->path); // that version, nothing else
            return st ? QString() : QString::fromStdString(st.error().message());
        }).then(this, [this](const QString &error) {
            m_status->setText(error.isEmpty() ? tr("Version deleted") : error);
            if (!error.isEmpty())
                Q_EMIT notify(error, true);
            load();
        });
    });
    box->open();
}

void PropertiesDialog::addRow(const QString &label, const QString &value)
{
    auto *v = new QLabel(value, this);
    v->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->setWordWrap(true);
    m_form->addRow(label, v);
}

} // namespace strata

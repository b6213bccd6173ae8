#include "ui/properties_dialog.h"

#include "core/io/extent.h"
#include "ui/allocation_map.h"
#include "ui/entry_format.h"
#include "ui/io_pool.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
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

} // namespace

PropertiesDialog::PropertiesDialog(std::shared_ptr<Operator> op, std::string path, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Properties"));
    setObjectName(QStringLiteral("propertiesDialog"));
    auto *layout = new QVBoxLayout(this);
    m_form = new QFormLayout;
    layout->addLayout(m_form);
    m_status = new QLabel(tr("Asking the storage…"), this);
    layout->addWidget(m_status);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    addRow(tr("Location:"), QString::fromStdString(op->display(path)));

    QtConcurrent::run(ioPool(), [op, path] {
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
        }
        if (const auto &map = facts.extents) {
            // Where the data is, drawn, with the totals beside it.
            auto *picture = new AllocationMap(this);
            picture->setObjectName(QStringLiteral("allocationMap"));
            picture->setExtents(*map);
            addRow(tr("Allocation:"), picture->summary() + tr(" in %n extent(s)", nullptr, int(map->size())));
            m_form->addRow(picture);
        }
        Q_EMIT loaded();
    });
}

void PropertiesDialog::addRow(const QString &label, const QString &value)
{
    auto *v = new QLabel(value, this);
    v->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->setWordWrap(true);
    m_form->addRow(label, v);
}

} // namespace strata

#include "ui/connections/connection_sidebar.h"

#include "core/storage/uri.h"
#include "ui/common/entry_format.h"

#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace strata {

namespace {

constexpr int kProfileIndexRole = Qt::UserRole + 1; // >= 0: saved; < 0: built in (-1 - index)

QIcon iconForUri(const QWidget *w, const QString &uri)
{
    if (uri.startsWith(QLatin1String("file:")))
        return QIcon::fromTheme(QStringLiteral("folder-home"), w->style()->standardIcon(QStyle::SP_DirHomeIcon));
    if (uri.startsWith(QLatin1String("memory:")))
        return QIcon::fromTheme(QStringLiteral("media-flash"), w->style()->standardIcon(QStyle::SP_DriveFDIcon));
    if (uri.startsWith(QLatin1String("nbd")))
        return QIcon::fromTheme(QStringLiteral("drive-harddisk"), w->style()->standardIcon(QStyle::SP_DriveHDIcon));
    return QIcon::fromTheme(QStringLiteral("network-server"), w->style()->standardIcon(QStyle::SP_DriveNetIcon));
}

} // namespace

ConnectionSidebar::ConnectionSidebar(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *title = new QLabel(tr("Connections"), this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    title->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(title);
    m_list = new QListWidget(this);
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    m_list->setIconSize(QSize(20, 20));
    m_list->setSpacing(1);
    layout->addWidget(m_list, 1);
    auto *add = new QPushButton(style()->standardIcon(QStyle::SP_FileDialogNewFolder), tr("&Add connection…"), this);
    add->setToolTip(tr("New connection (Ctrl+N)"));
    layout->addWidget(add);

    const QString home = QString::fromStdString(Uri::fromLocalPath(QDir::homePath().toStdString()).toString());
    m_builtin = {{QStringLiteral("home"), tr("Home"), home, {}, false},
                 {QStringLiteral("demo"), tr("Demo store (in memory)"), QStringLiteral("memory://demo/"), {}, false}};
    setProfiles({});

    connect(add, &QPushButton::clicked, this, &ConnectionSidebar::addRequested);
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        if (auto p = profileOf(item))
            Q_EMIT openRequested(*p);
    });
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        if (auto p = profileOf(item))
            Q_EMIT openRequested(*p);
    });
    connect(m_list, &QWidget::customContextMenuRequested, this, &ConnectionSidebar::showMenu);
}

void ConnectionSidebar::setProfiles(const QList<ConnectionProfile> &saved)
{
    m_saved = saved;
    m_list->clear();
    auto add = [this](const ConnectionProfile &p, int index) {
        // Connections saved before names were made readable carry their URI as the name.
        const bool uriAsName = p.name == p.uri || p.name == redactedUri(p.uri);
        auto *item = new QListWidgetItem(iconForUri(this, p.uri), uriAsName ? locationName(p.uri) : p.name, m_list);
        item->setToolTip(redactedUri(p.uri));
        item->setData(kProfileIndexRole, index);
    };
    for (int i = 0; i < m_builtin.size(); ++i)
        add(m_builtin[i], -1 - i);
    for (int i = 0; i < m_saved.size(); ++i)
        add(m_saved[i], i);
}

std::optional<ConnectionProfile> ConnectionSidebar::profileOf(const QListWidgetItem *item) const
{
    if (!item)
        return std::nullopt;
    const int index = item->data(kProfileIndexRole).toInt();
    if (index < 0)
        return m_builtin.value(-1 - index);
    return index < m_saved.size() ? std::optional(m_saved[index]) : std::nullopt;
}

void ConnectionSidebar::showMenu(const QPoint &pos)
{
    QListWidgetItem *item = m_list->itemAt(pos);
    const auto profile = profileOf(item);
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    if (profile) {
        menu->addAction(tr("&Open"), this, [this, p = *profile] { Q_EMIT openRequested(p); });
        if (item->data(kProfileIndexRole).toInt() >= 0) {
            menu->addAction(tr("&Edit…"), this, [this, p = *profile] { Q_EMIT editRequested(p); });
            menu->addAction(tr("&Remove"), this, [this, p = *profile] { Q_EMIT removeRequested(p); });
        }
        menu->addSeparator();
    }
    menu->addAction(tr("&Add connection…"), this, &ConnectionSidebar::addRequested);
    menu->popup(m_list->viewport()->mapToGlobal(pos));
}

} // namespace strata

#include "ui/connections/connection_profile.h"

#include <QSettings>
#include <QUuid>

namespace strata {

QList<ConnectionProfile> ConnectionList::load()
{
    QSettings settings;
    QList<ConnectionProfile> out;
    const int n = settings.beginReadArray(QStringLiteral("connections"));
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        ConnectionProfile p;
        p.id = settings.value(QStringLiteral("id")).toString();
        p.name = settings.value(QStringLiteral("name")).toString();
        p.uri = settings.value(QStringLiteral("uri")).toString();
        p.user = settings.value(QStringLiteral("user")).toString();
        p.hasSecret = settings.value(QStringLiteral("hasSecret")).toBool();
        if (!p.id.isEmpty() && !p.uri.isEmpty())
            out << p;
    }
    settings.endArray();
    return out;
}

void ConnectionList::save(const QList<ConnectionProfile> &profiles)
{
    QSettings settings;
    settings.remove(QStringLiteral("connections"));
    settings.beginWriteArray(QStringLiteral("connections"), int(profiles.size()));
    for (int i = 0; i < profiles.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("id"), profiles[i].id);
        settings.setValue(QStringLiteral("name"), profiles[i].name);
        settings.setValue(QStringLiteral("uri"), profiles[i].uri);
        settings.setValue(QStringLiteral("user"), profiles[i].user);
        settings.setValue(QStringLiteral("hasSecret"), profiles[i].hasSecret);
    }
    settings.endArray();
}

QString ConnectionList::newId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

} // namespace strata

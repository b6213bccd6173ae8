#pragma once

#include <QList>
#include <QString>

namespace strata {

// A saved connection: a name, the URI it opens (never with a secret in it) and, where
// the storage wants one, a user; the secret itself lives in the SecretStore.
struct ConnectionProfile {
    QString id; // stable key of the profile and of its secret
    QString name;
    QString uri;
    QString user;
    bool hasSecret = false;
};

// Saved connections in the application's settings (QSettings), in the order added.
class ConnectionList {
public:
    static QList<ConnectionProfile> load();
    static void save(const QList<ConnectionProfile> &profiles);
    static QString newId();
};

} // namespace strata

#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace strata {

// Secrets of saved connections: in the system keychain (QtKeychain: Secret Service,
// KWallet) when one answers; otherwise in a file only the user can read (mode 0600), and
// the user is told so. STRATA_SECRETS=file picks the file (headless machines, tests).
// Calls complete asynchronously on the GUI thread; nothing blocks it.
class SecretStore : public QObject {
    Q_OBJECT
public:
    explicit SecretStore(QObject *parent = nullptr);

    // done(where, error): `where` says where it went, in the user's words.
    void write(const QString &id, const QString &secret, std::function<void(QString where, QString error)> done);
    void read(const QString &id, std::function<void(std::optional<QString> secret, QString error)> done);
    void remove(const QString &id);
    QString filePath() const { return m_file; }
    static QString fileLabel();

private:
    bool keychainWanted() const;
    bool writeFile(const QString &id, const std::optional<QString> &secret, QString *error) const;
    std::optional<QString> readFile(const QString &id) const;

    QString m_file;
};

} // namespace strata

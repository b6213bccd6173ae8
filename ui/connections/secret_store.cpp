#include "ui/connections/secret_store.h"

#include <qt6keychain/keychain.h>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

namespace strata {

namespace {

const QString kService = QStringLiteral("io.github.strata.Strata");

} // namespace

SecretStore::SecretStore(QObject *parent) : QObject(parent)
{
    m_file = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/secrets.json");
}

QString SecretStore::fileLabel()
{
    return tr("a file only you can read (no keychain service is running)");
}

bool SecretStore::keychainWanted() const
{
    return qEnvironmentVariable("STRATA_SECRETS") != QLatin1String("file");
}

void SecretStore::write(const QString &id, const QString &secret, std::function<void(QString, QString)> done)
{
    auto toFile = [this, id, secret, done](const QString &why) {
        QString error;
        if (!writeFile(id, secret, &error))
            done({}, error);
        else
            done(fileLabel() + (why.isEmpty() ? QString() : QStringLiteral(": ") + why), {});
    };
    if (!keychainWanted()) {
        toFile({});
        return;
    }
    auto *job = new QKeychain::WritePasswordJob(kService, this);
    job->setKey(id);
    job->setTextData(secret);
    connect(job, &QKeychain::Job::finished, this, [this, id, done, toFile](QKeychain::Job *j) {
        if (j->error() == QKeychain::NoError) {
            writeFile(id, std::nullopt, nullptr); // no stale copy in the file
            done(tr("the system keychain"), {});
        } else {
            toFile(j->errorString());
        }
    });
    job->start();
}

void SecretStore::read(const QString &id, std::function<void(std::optional<QString>, QString)> done)
{
    if (!keychainWanted()) {
        done(readFile(id), {});
        return;
    }
    auto *job = new QKeychain::ReadPasswordJob(kService, this);
    job->setKey(id);
    connect(job, &QKeychain::Job::finished, this, [this, id, done](QKeychain::Job *j) {
        if (j->error() == QKeychain::NoError)
            done(static_cast<QKeychain::ReadPasswordJob *>(j)->textData(), {});
        else
            done(readFile(id), {}); // kept in the file when no keychain answered
    });
    job->start();
}

void SecretStore::remove(const QString &id)
{
    writeFile(id, std::nullopt, nullptr);
    if (!keychainWanted())
        return;
    auto *job = new QKeychain::DeletePasswordJob(kService, this);
    job->setKey(id);
    job->start();
}

std::optional<QString> SecretStore::readFile(const QString &id) const
{
    QFile f(m_file);
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonObject all = QJsonDocument::fromJson(f.readAll()).object();
    if (!all.contains(id))
        return std::nullopt;
    return all.value(id).toString();
}

// Rewritten whole through a temporary file created with mode 0600: the secrets are never
// readable by others, not even for a moment.
bool SecretStore::writeFile(const QString &id, const std::optional<QString> &secret, QString *error) const
{
    QJsonObject all;
    if (QFile f(m_file); f.open(QIODevice::ReadOnly))
        all = QJsonDocument::fromJson(f.readAll()).object();
    if (!secret && !all.contains(id))
        return true;
    if (secret)
        all.insert(id, *secret);
    else
        all.remove(id);
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    QSaveFile out(m_file);
    if (!out.open(QIODevice::WriteOnly) || !out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || out.write(QJsonDocument(all).toJson(QJsonDocument::Compact)) < 0 || !out.commit()) {
        if (error)
            *error = tr("cannot save the secret in %1: %2").arg(m_file, out.errorString());
        return false;
    }
    return true;
}

} // namespace strata

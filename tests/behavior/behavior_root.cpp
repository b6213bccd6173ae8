#include "tests/behavior/behavior_root.h"

#include "backends/builtin_backends.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstdlib>
#include <random>

namespace strata {

namespace {

std::string randomName()
{
    std::random_device rd;
    return "strata-behavior-" + std::to_string(rd()) + std::to_string(rd() % 10000);
}

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

} // namespace

void loadEnvFile(const std::string &path)
{
    if (path.empty())
        return;
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        const auto eq = line.indexOf('=');
        if (eq > 0 && !line.startsWith('#'))
            qputenv(line.left(eq).constData(), line.mid(eq + 1));
    }
}

std::string fixtureServerUri(const std::string &backend)
{
    // Servers started by CTest fixtures publish their address in an env file at run time.
    loadEnvFile(env("STRATA_S3_ENVFILE"));
    loadEnvFile(env("STRATA_WEBDAV_ENVFILE"));
    loadEnvFile(env("STRATA_SFTP_ENVFILE"));
    loadEnvFile(env("STRATA_FTP_ENVFILE"));
    if (backend == "s3" && !env("STRATA_S3_ENDPOINT").empty())
        return "s3://" + env("STRATA_S3_BUCKET") + "/?endpoint=" + env("STRATA_S3_ENDPOINT");
    if (backend == "webdav" && env("STRATA_WEBDAV_ENDPOINT").starts_with("http://"))
        return "webdav://" + env("STRATA_WEBDAV_ENDPOINT").substr(7) + "/auth/";
    if (backend == "sftp" && !env("STRATA_SFTP_URI").empty())
        return env("STRATA_SFTP_URI") + "/?identity=" + env("STRATA_SFTP_KEY")
            + "&known-hosts=" + env("STRATA_SFTP_KNOWN_HOSTS");
    // Pure-FTPd's user: STRATA_FTP_HOST and STRATA_FTP_PASSWORD from the same file.
    if (backend == "ftp" && !env("STRATA_FTP_URI").empty())
        return env("STRATA_FTP_URI") + "/";
    if (backend == "ftps" && !env("STRATA_FTPS_URI").empty())
        return env("STRATA_FTPS_URI") + "/?ca=" + env("STRATA_FTP_CA");
    return {};
}

BehaviorRoot::BehaviorRoot()
{
    registerBuiltinBackends(m_registry);
    m_backend = env("STRATA_TEST_BACKEND");
    if (m_backend.empty())
        m_backend = "memory";
    std::string base = env("STRATA_TEST_URI");
    if (base.empty())
        base = fixtureServerUri(m_backend);
    if (base.empty()) {
        if (m_backend == "memory") {
            base = "memory://" + randomName() + "/";
        } else if (m_backend == "file") {
            QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/strata-behavior-XXXXXX"));
            dir.setAutoRemove(false);
            m_localDir = dir.path().toStdString();
            base = "file://" + m_localDir;
        } else {
            m_problem = "STRATA_TEST_URI must name where the " + m_backend + " run may write";
            return;
        }
    } else if (m_backend == "nbd") {
        // An export is one fixed object: the runs work on the image itself.
    } else {
        // A fresh random directory below the given place.
        if (!base.empty() && base.back() != '/' && base.find('?') == std::string::npos)
            base += '/';
        auto q = base.find('?');
        base = q == std::string::npos ? base + randomName() : base.substr(0, q) + randomName() + base.substr(q);
    }
    auto location = m_registry.open(base);
    if (!location) {
        m_problem = location.error().message();
        return;
    }
    if (location->op->capabilities().has(Capability::CreateDir)) {
        if (auto st = location->op->createDir(location->path, true); !st) {
            m_problem = st.error().message();
            return;
        }
    }
    m_location = std::move(*location);
}

BehaviorRoot::~BehaviorRoot()
{
    // A server of the run's own is thrown away with its data when the run ends (CTest's
    // fixture): nothing to clean. s3rver takes time that grows with a folder's size for
    // every removal, and cleaning up after listTenThousandPaged took it 95 s.
    const bool throwaway = qEnvironmentVariableIsSet("STRATA_TEST_THROWAWAY_SERVER");
    if (m_location.op && !caps().has(Capability::SingleObject) && !throwaway)
        (void)m_location.op->removeAll(m_location.path);
    if (!m_localDir.empty())
        QDir(QString::fromStdString(m_localDir)).removeRecursively();
}

std::string BehaviorRoot::path(std::string_view relative) const
{
    std::string out = m_location.path;
    if (caps().has(Capability::SingleObject))
        return out; // the image: there are no other names
    if (out.back() != '/')
        out += '/';
    out += relative;
    return out;
}

} // namespace strata

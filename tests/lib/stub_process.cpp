#include "tests/lib/stub_process.h"

#include <QFile>
#include <QJsonDocument>

namespace strata {

StubProcess::StubProcess(const QString &script, const QString &mode, const QStringList &args)
{
    m_log = m_dir.filePath(QStringLiteral("requests.jsonl"));
    m_process.start(QStringLiteral("node"), QStringList{script, mode, m_log} + args);
    if (m_process.waitForReadyRead(10000))
        m_port = m_process.readLine().trimmed().toInt();
}

StubProcess::~StubProcess()
{
    m_process.kill();
    m_process.waitForFinished(5000);
}

std::vector<QJsonObject> StubProcess::log() const
{
    std::vector<QJsonObject> out;
    QFile file(m_log);
    if (!file.open(QIODevice::ReadOnly))
        return out;
    while (!file.atEnd())
        out.push_back(QJsonDocument::fromJson(file.readLine()).object());
    return out;
}

} // namespace strata

#pragma once

#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <string>
#include <vector>

namespace strata {

// One stub server of the fault tests (node SCRIPT MODE LOG [ARGS...]): it prints its
// kernel-picked port first and appends a JSON line per request to LOG. Stopped by its PID
// (the QProcess) when the object goes.
class StubProcess {
public:
    StubProcess(const QString &script, const QString &mode, const QStringList &args = {});
    ~StubProcess();
    StubProcess(const StubProcess &) = delete;
    StubProcess &operator=(const StubProcess &) = delete;

    bool ok() const { return m_port > 0; }
    int port() const { return m_port; }
    std::string hostPort() const { return "127.0.0.1:" + std::to_string(m_port); }
    std::string endpoint() const { return "http://" + hostPort(); }
    // The requests logged so far, one object a line.
    std::vector<QJsonObject> log() const;

private:
    QTemporaryDir m_dir;
    QString m_log;
    QProcess m_process;
    int m_port = 0;
};

} // namespace strata

#include "app/cli/cli.h"
#include "app/version.h"
#include "backends/builtin_backends.h"
#include "core/storage/registry.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QCoreApplication>

#include <csignal>

int main(int argc, char **argv)
{
    // A file size limit (ulimit -f) becomes a clean "no space" error, not a crash.
    std::signal(SIGXFSZ, SIG_IGN);

    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (strata::cli::wantsCommandLine(arguments)) {
        QCoreApplication app(argc, argv);
        return strata::cli::run(arguments);
    }

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Strata"));
    QApplication::setOrganizationName(QStringLiteral("Strata"));
    QApplication::setApplicationVersion(QStringLiteral(STRATA_VERSION));
    strata::Registry registry;
    strata::registerBuiltinBackends(registry);
    strata::MainWindow window(registry);
    window.show();
    return app.exec();
}

#include "app/cli/cli.h"
#include "app/version.h"
#include "backends/builtin_backends.h"
#include "core/storage/registry.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QCoreApplication>
#include <QTimer>

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
    // STRATA_SCREENSHOT=file.png: save a picture of the window once it is drawn, then quit
    // (for checking the GUI headless and for the AppStream screenshots).
    if (const QString shot = qEnvironmentVariable("STRATA_SCREENSHOT"); !shot.isEmpty()) {
        QTimer::singleShot(800, &window, [&window, shot] {
            const bool saved = window.grab().save(shot);
            QApplication::exit(saved ? 0 : 1);
        });
    }
    return app.exec();
}

// The desktop app's entry point, built as a module (strata-gui.so) that the strata
// executable loads only when it opens a window: the command line never pays for loading
// Qt Widgets, Charts and the graphics stack.
#include "app/version.h"
#include "backends/builtin_backends.h"
#include "core/storage/registry.h"
#include "core/transfer/transfer_journal.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QTimer>

extern "C" __attribute__((visibility("default"))) int strata_gui_main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Strata"));
    QApplication::setOrganizationName(QStringLiteral("Strata"));
    QApplication::setApplicationVersion(QStringLiteral(STRATA_VERSION));
    strata::Registry registry;
    strata::registerBuiltinBackends(registry);
    // The connection dialog's Test opens its own registry: nothing it tries stays open.
    auto makeRegistry = [] {
        auto r = std::make_unique<strata::Registry>();
        strata::registerBuiltinBackends(*r);
        return r;
    };
    // The same journals as the command line: a transfer interrupted in either comes back.
    strata::MainWindow window(registry, makeRegistry, strata::QueueOptions{strata::defaultJournalDir(), 2});
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

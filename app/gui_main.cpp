// The desktop app's entry point, built as a module (strata-gui.so) that the strata
// executable loads only when it opens a window: the command line never pays for loading
// Qt Widgets, Charts and the graphics stack.
#include "app/version.h"
#include "backends/builtin_backends.h"
#include "core/storage/registry.h"
#include "core/transfer/transfer_journal.h"
#include "ui/bench/bench_page.h"
#include "ui/browser/browser_pane.h"
#include "ui/connections/connection_prompts.h"
#include "ui/launch_argument.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

namespace {

// Go benchmark results: by name (*.bench) or by their first bytes, whatever the name.
bool isBenchmarkFile(const QString &path)
{
    if (path.endsWith(QLatin1String(".bench")))
        return true;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(16);
    return head.startsWith("goos: ") || head.startsWith("Benchmark");
}

QString localUri(const QString &path)
{
    return QString::fromStdString(
        strata::Uri::fromLocalPath(QFileInfo(path).absoluteFilePath().toStdString()).toString());
}

// `strata open [--benchmarks] [--usage [PATH|URI]] [PATH|URI…]` (the desktop entry): --usage
// scans the location after it (the home folder without one) on the Usage page; folders and storage
// URIs open in the left pane, benchmark files on the Benchmarks page, any other file (a disk image) in the
// left pane's view of its folder.
void openArguments(strata::MainWindow &window, const QStringList &arguments)
{
    if (arguments.size() < 2 || arguments[1] != QLatin1String("open"))
        return;
    QStringList benchFiles;
    bool usage = false; // --usage: the next location is scanned on the Usage page
    const auto scan = [&](const QString &uri) {
        usage = false;
        window.scanUsage(uri); // opened off the GUI thread; a wrong one shows its error there
    };
    for (const QString &a : arguments.mid(2)) {
        if (a == QLatin1String("--benchmarks")) {
            window.showBenchmarks();
        } else if (a == QLatin1String("--usage")) {
            usage = true;
        } else if (const auto file = strata::localPathOf(a); usage) {
            scan(!file && strata::writtenAsUri(a) ? a : localUri(file.value_or(a)));
        } else if (!file && strata::writtenAsUri(a)) {
            // A storage URI (s3://, webdav://, nbd://, memory://): opened as given, off the GUI
            // thread; a wrong one shows its error in the pane.
            window.pane(0)->openUri(a);
        } else {
            // A path, or a file:// URI (as file managers pass them).
            const QString path = file.value_or(a);
            if (QFileInfo(path).isDir())
                window.pane(0)->openUri(localUri(path));
            else if (isBenchmarkFile(path))
                benchFiles << QFileInfo(path).absoluteFilePath();
            else
                window.pane(0)->openUri(localUri(QFileInfo(path).absolutePath()));
        }
    }
    if (usage) // --usage alone: the home folder
        scan(localUri(QDir::homePath()));
    if (!benchFiles.isEmpty()) {
        window.benchPage()->openFiles(benchFiles);
        window.showBenchmarks();
    }
}

} // namespace

extern "C" __attribute__((visibility("default"))) int strata_gui_main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Strata"));
    QApplication::setOrganizationName(QStringLiteral("Strata"));
    QApplication::setApplicationVersion(QStringLiteral(STRATA_VERSION));
    // Ties the window to its desktop entry (icon and name in Wayland docks and task bars).
    QApplication::setDesktopFileName(QStringLiteral("io.github.strata.Strata"));
    // Shared: a task still opening a URI when the window closes keeps it (Registry).
    const auto registry = std::make_shared<strata::Registry>();
    strata::registerBuiltinBackends(*registry);
    // The connection dialog's Test opens its own registry: nothing it tries stays open.
    // Both ask the window about SSH servers never seen.
    QWidget *promptParent = nullptr;
    auto makeRegistry = [&promptParent] {
        auto r = std::make_shared<strata::Registry>();
        strata::registerBuiltinBackends(*r);
        r->setPrompts(strata::windowPrompts(promptParent));
        return r;
    };
    // The same journals as the command line: a transfer interrupted in either comes back.
    strata::MainWindow window(*registry, makeRegistry, strata::QueueOptions{strata::defaultJournalDir(), 2});
    promptParent = &window;
    registry->setPrompts(strata::windowPrompts(&window));
    window.show();
    openArguments(window, QApplication::arguments());
    // STRATA_SCREENSHOT=file.png: save a picture of the window once it is drawn, then quit
    // (for checking the GUI headless and for the AppStream screenshots), 800 ms after the
    // start or STRATA_SCREENSHOT_DELAY_MS (a distant storage's first rows come later).
    if (const QString shot = qEnvironmentVariable("STRATA_SCREENSHOT"); !shot.isEmpty()) {
        bool given = false;
        const int delay = qEnvironmentVariableIntValue("STRATA_SCREENSHOT_DELAY_MS", &given);
        QTimer::singleShot(given ? delay : 800, &window, [&window, shot] {
            const bool saved = window.grab().save(shot);
            QApplication::exit(saved ? 0 : 1);
        });
    }
    return app.exec();
}

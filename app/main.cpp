#include "app/cli/cli.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLibrary>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace {

// The desktop app lives in strata-gui.so: next to the executable in a build tree, in
// ../lib/strata once installed.
int runDesktopApp(int argc, char **argv)
{
    const QString exeDir = QFileInfo(QString::fromLocal8Bit(argv[0])).absolutePath();
    QString self = QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath();
    const QString dir = self.isEmpty() ? exeDir : QFileInfo(self).absolutePath();
    const QString candidates[] = {dir + QStringLiteral("/strata-gui.so"), dir + QStringLiteral("/../lib/strata/strata-gui.so")};
    QString problem;
    for (const auto &path : candidates) {
        if (!QFileInfo::exists(path))
            continue;
        QLibrary module(path);
        using Entry = int (*)(int, char **);
        if (auto entry = reinterpret_cast<Entry>(module.resolve("strata_gui_main")))
            return entry(argc, argv);
        problem = module.errorString();
    }
    std::fprintf(stderr, "strata: cannot open the desktop app: %s\n"
                         "The command line works without it: strata --help\n",
                 problem.isEmpty() ? "strata-gui.so is not installed next to this strata" : qPrintable(problem));
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    // A file size limit (ulimit -f) becomes a clean "no space" error, not a crash.
    std::signal(SIGXFSZ, SIG_IGN);

    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (strata::cli::wantsCommandLine(arguments)) {
        int rc;
        {
            QCoreApplication app(argc, argv);
            rc = strata::cli::run(arguments);
        }
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
        // The command is over: its storage connections are closed, its files written and
        // closed (all inside run()). What remains is tearing down thirty libraries' global
        // state, about a millisecond that a 10 ms image copy would feel; the kernel frees
        // the rest. (Sanitizer builds exit normally, for their leak checks.)
        std::fflush(nullptr);
        std::_Exit(rc);
#endif
        return rc;
    }
    return runDesktopApp(argc, argv);
}

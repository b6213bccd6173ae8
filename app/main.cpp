// The strata executable: the command line, and the desktop app (strata-gui.so) when it
// opens a window. It links no Qt: Qt is loaded with the module, only for a window.
#include "app/cli/cli.h"
#include "app/modules.h"
#include "backends/builtin_backends.h"
#include "core/io/memory_tuning.h"

#include <dlfcn.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace {

int runDesktopApp(int argc, char **argv)
{
    std::string problem;
    if (void *module = strata::app::openModule("strata-gui.so", problem)) {
        using Entry = int (*)(int, char **);
        if (auto entry = reinterpret_cast<Entry>(::dlsym(module, "strata_gui_main")))
            return entry(argc, argv);
        problem = "strata-gui.so has no strata_gui_main";
    }
    std::fprintf(stderr,
                 "strata: cannot open the desktop app: %s\n"
                 "The command line works without it: strata --help\n",
                 problem.c_str());
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    // A file size limit (ulimit -f) becomes a clean "no space" error, not a crash.
    std::signal(SIGXFSZ, SIG_IGN);
    strata::keepFreedMemory(); // see there why

    const std::vector<std::string> arguments(argv, argv + argc);
    if (!strata::cli::wantsCommandLine(arguments))
        return runDesktopApp(argc, argv);
    const int rc = strata::cli::run(arguments, &strata::registerBuiltinBackends);
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

#include "app/modules.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

namespace strata::app {

namespace {

std::string executableDir()
{
    char path[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return ".";
    const std::string exe(path, std::size_t(n));
    const auto slash = exe.rfind('/');
    return slash == std::string::npos ? "." : exe.substr(0, slash);
}

} // namespace

void *openModule(const char *fileName, std::string &problem)
{
    const std::string dir = executableDir();
    for (const std::string &path : {dir + "/" + fileName, dir + "/../lib/strata/" + fileName}) {
        if (::access(path.c_str(), F_OK) != 0)
            continue;
        if (void *module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
            return module;
        const char *why = ::dlerror();
        problem = why ? why : "cannot load " + path;
        return nullptr;
    }
    problem = std::string(fileName) + " is not installed next to this strata";
    return nullptr;
}

} // namespace strata::app

#include "app/command_line_backends.h"

#include "app/modules.h"
#include "backends/fs/file_factory.h"
#include "backends/memory/memory_factory.h"
#include "backends/nbd/nbd_factory.h"
#include "backends/null/null_backend.h"
#include "backends/sftp/sftp_factory.h"

#include <dlfcn.h>

#include <mutex>

namespace strata {

namespace {

// Stands for a factory of strata-http.so until a URI of its scheme is resolved, then loads
// the module (once per process; it is never unloaded) and hands everything to the real one.
class ModuleFactory final : public BackendFactory {
public:
    ModuleFactory(std::string scheme, std::string example) : m_scheme(std::move(scheme)), m_example(std::move(example))
    {
    }

    std::string scheme() const override { return m_scheme; }
    std::string example() const override { return m_example; }
    Result<Target> resolve(const Uri &uri) override
    {
        if (auto st = load(); !st)
            return std::move(st).error();
        return m_real->resolve(uri);
    }
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target) override
    {
        if (auto st = load(); !st)
            return std::move(st).error();
        return m_real->create(uri, target);
    }
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override
    {
        if (auto st = load(); !st)
            return std::move(st).error();
        return m_real->create(uri, target, secret);
    }

private:
    Status load()
    {
        std::call_once(m_once, [this] {
            std::string problem;
            void *module = app::openModule("strata-http.so", problem);
            using Make = BackendFactory *(*)(const char *);
            auto make = module ? reinterpret_cast<Make>(::dlsym(module, "strata_http_factory")) : nullptr;
            if (module && !make)
                problem = "strata-http.so has no strata_http_factory";
            if (make)
                m_real.reset(make(m_scheme.c_str()));
            if (!m_real)
                m_problem = m_scheme + ":// needs strata-http.so, which could not be loaded: "
                    + (problem.empty() ? "it does not know " + m_scheme : problem);
        });
        if (!m_real)
            return Error(ErrorKind::Unsupported, m_problem).setOperation("open");
        return {};
    }

    std::string m_scheme;
    std::string m_example;
    std::once_flag m_once;
    std::unique_ptr<BackendFactory> m_real;
    std::string m_problem;
};

} // namespace

void registerCommandLineBackends(Registry &registry)
{
    registry.add(std::make_unique<FileFactory>());
    registry.add(std::make_unique<MemoryFactory>());
    registry.add(std::make_unique<ModuleFactory>("s3", "s3://bucket/key?endpoint=http://host:port"));
    for (const char *scheme : {"webdav", "webdavs"})
        registry.add(std::make_unique<ModuleFactory>(scheme, std::string(scheme) + "://host:port/path"));
    for (const char *scheme : {"nbd", "nbds", "nbd+unix", "nbds+unix"})
        registry.add(std::make_unique<nbd::NbdFactory>(scheme));
    registry.add(std::make_unique<sftp::SftpFactory>());
    for (const char *scheme : {"ftp", "ftps"})
        registry.add(std::make_unique<ModuleFactory>(scheme, std::string(scheme) + "://user@host[:port]/path"));
    registry.add(std::make_unique<NullFactory>());
}

} // namespace strata

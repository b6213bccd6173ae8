#include "backends/nbd/nbd_factory.h"

#include "backends/nbd/nbd_backend.h"

namespace strata::nbd {

Result<Target> NbdFactory::resolve(const Uri &uri)
{
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    // The export is the whole backend: its image is the root object.
    return Target{uri.toString(), "/"};
}

Result<std::shared_ptr<Backend>> NbdFactory::create(const Uri &uri, const Target &)
{
    auto config = parseConfig(uri);
    if (!config)
        return std::move(config).error();
    auto backend = NbdBackend::open(std::move(*config));
    if (!backend)
        return std::move(backend).error();
    return std::shared_ptr<Backend>(std::move(*backend));
}

} // namespace strata::nbd

#include "backends/nbd/nbd_factory.h"

#include "backends/nbd/nbd_backend.h"

namespace strata::nbd {

BackendDescription NbdFactory::describe() const
{
    return {
        "NBD disk image",
        {"nbd://HOST[:PORT]/EXPORT", "nbd+unix:///EXPORT?socket=PATH", "nbds://, nbds+unix:// (TLS)"},
        "An NBD export: one object, the image.",
        {{"socket", "PATH", "The server's Unix socket (nbd+unix://)."},
         {"tls-*", "VALUE", "libnbd's TLS settings (tls-certificates, tls-verify-peer, tls-username, tls-psk-file)."},
         {"connections", "N", "Connections to the server (1 to 16)."},
         {"requests", "N", "Requests in flight per connection (1 to 1024; default 64)."},
         {"request-size", "SIZE", "The largest request (4K to 32M; default 256K)."}}};
}

Result<Target> NbdFactory::resolve(const Uri &uri)
{
    if (auto known = checkOptions(uri, describe()); !known)
        return std::move(known).error();
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

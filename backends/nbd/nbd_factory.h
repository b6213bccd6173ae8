#pragma once

#include "backends/nbd/nbd_backend.h"
#include "core/storage/configured_factory.h"

namespace strata::nbd {

// nbd://host[:port]/export, nbds://…, nbd+unix:///export?socket=PATH (the NBD URI standard),
// plus our keys connections=, requests=, request-size=. One factory per scheme.
class NbdFactory final : public ConfiguredFactory<Config> {
public:
    using ConfiguredFactory::ConfiguredFactory;
    std::string example() const override
    {
        return scheme().ends_with("+unix") ? scheme() + ":///export?socket=/path/to.sock"
                                           : scheme() + "://host[:port]/export";
    }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;

private:
    Result<Config> parse(const Uri &uri) const override { return parseConfig(uri); }
    // The export is the whole backend: its image is the root object.
    Target target(const Config &, const Uri &uri) const override { return Target{uri.toString(), "/"}; }
    Result<std::shared_ptr<Backend>> open(Config config, const Uri &, const ConnectionSecret &) override
    {
        return sharedBackend(NbdBackend::open(std::move(config)));
    }
};

} // namespace strata::nbd

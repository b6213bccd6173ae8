#pragma once

#include "backends/webdav/webdav_config.h"
#include "core/storage/configured_factory.h"

namespace strata::webdav {

// webdav://[user@]host[:port]/path (HTTP) and webdavs://… (HTTPS, certificates verified
// unless ?insecure=1); option ?timeout=SECONDS. One backend per server and user.
class WebDavFactory final : public ConfiguredFactory<Config> {
public:
    using ConfiguredFactory::ConfiguredFactory;
    std::string example() const override { return scheme() + "://host:port/path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;

private:
    Result<Config> parse(const Uri &uri) const override { return parseConfig(uri); }
    Target target(const Config &config, const Uri &uri) const override;
    // The user and password of a connection profile win over the environment.
    Result<std::shared_ptr<Backend>> open(Config config, const Uri &uri, const ConnectionSecret &secret) override;
};

} // namespace strata::webdav

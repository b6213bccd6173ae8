#pragma once

#include "backends/ftp/ftp_config.h"
#include "core/storage/configured_factory.h"

namespace strata::ftp {

// ftp://[user@]host[:port]/path and ftps:// (explicit TLS); the path is below the folder the
// login starts in. See parseConfig() for the query keys.
class FtpFactory final : public ConfiguredFactory<Config> {
public:
    using ConfiguredFactory::ConfiguredFactory;
    std::string example() const override { return scheme() + "://user@host[:port]/path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;

private:
    Result<Config> parse(const Uri &uri) const override { return parseConfig(uri); }
    Target target(const Config &config, const Uri &uri) const override;
    Result<std::shared_ptr<Backend>> open(Config config, const Uri &uri, const ConnectionSecret &secret) override;
};

} // namespace strata::ftp

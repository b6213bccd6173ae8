#pragma once

#include "backends/s3/s3_config.h"
#include "core/storage/configured_factory.h"

namespace strata::s3 {

// s3://bucket/key?endpoint=…&region=…&style=path|virtual&profile=…&anonymous=1&insecure=1
class S3Factory final : public ConfiguredFactory<Config> {
public:
    S3Factory() : ConfiguredFactory("s3") {}
    std::string example() const override { return "s3://bucket/key?endpoint=http://host:port"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;

private:
    Result<Config> parse(const Uri &uri) const override { return parseConfig(uri); }
    Target target(const Config &config, const Uri &uri) const override;
    // Keys a connection profile gives win over the environment and ~/.aws.
    Result<std::shared_ptr<Backend>> open(Config config, const Uri &uri, const ConnectionSecret &secret) override;
};

} // namespace strata::s3

#pragma once

#include "core/storage/registry.h"

namespace strata::s3 {

// s3://bucket/key?endpoint=…&region=…&style=path|virtual&profile=…&anonymous=1&insecure=1
class S3Factory final : public BackendFactory {
public:
    std::string scheme() const override { return "s3"; }
    std::string example() const override { return "s3://bucket/key?endpoint=http://host:port"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    Result<Target> resolve(const Uri &uri) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override;
};

} // namespace strata::s3

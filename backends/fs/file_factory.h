#pragma once

#include "core/storage/registry.h"

namespace strata {

// file:///absolute/path (or a bare absolute path): the local file system, rooted at "/".
class FileFactory final : public BackendFactory {
public:
    std::string scheme() const override { return "file"; }
    std::string example() const override { return "file:///path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override;

private:
    Result<Target> locate(const Uri &uri) override;
};

} // namespace strata

#pragma once

#include "core/storage/registry.h"

namespace strata::nbd {

// nbd://host[:port]/export, nbds://…, nbd+unix:///export?socket=PATH (the NBD URI standard),
// plus our keys connections=, requests=, request-size=. One factory per scheme.
class NbdFactory final : public BackendFactory {
public:
    explicit NbdFactory(std::string scheme) : m_scheme(std::move(scheme)) {}

    std::string scheme() const override { return m_scheme; }
    std::string example() const override
    {
        return m_scheme.ends_with("+unix") ? m_scheme + ":///export?socket=/path/to.sock"
                                           : m_scheme + "://host[:port]/export";
    }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    Result<Target> resolve(const Uri &uri) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target) override;

private:
    std::string m_scheme;
};

} // namespace strata::nbd

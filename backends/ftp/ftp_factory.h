#pragma once

#include "core/storage/registry.h"

namespace strata::ftp {

// ftp://[user@]host[:port]/path and ftps:// (explicit TLS); the path is below the folder the
// login starts in. See parseConfig() for the query keys.
class FtpFactory final : public BackendFactory {
public:
    explicit FtpFactory(std::string scheme) : m_scheme(std::move(scheme)) {}
    std::string scheme() const override { return m_scheme; }
    std::string example() const override { return m_scheme + "://user@host[:port]/path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    Result<Target> resolve(const Uri &uri) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override;

private:
    std::string m_scheme;
};

} // namespace strata::ftp

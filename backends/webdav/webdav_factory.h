#pragma once

#include "core/storage/registry.h"

namespace strata::webdav {

// webdav://[user@]host[:port]/path (HTTP) and webdavs://… (HTTPS, certificates verified
// unless ?insecure=1); option ?timeout=SECONDS. One backend per server and user.
class WebDavFactory final : public BackendFactory {
public:
    explicit WebDavFactory(std::string scheme) : m_scheme(std::move(scheme)) {}
    std::string scheme() const override { return m_scheme; }
    std::string example() const override { return m_scheme + "://host:port/path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    Result<Target> resolve(const Uri &uri) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target) override;
    // The user and password of a connection profile win over the environment.
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override;

private:
    std::string m_scheme;
};

} // namespace strata::webdav

#pragma once

#include "core/storage/registry.h"

#include <mutex>

namespace strata::sftp {

// sftp://[user@]host[:port]/path, sftp://host/~/path for a path below the login folder;
// the host may be a ~/.ssh/config alias. See parseConfig() for the query keys.
class SftpFactory final : public BackendFactory {
public:
    std::string scheme() const override { return "sftp"; }
    std::string example() const override { return "sftp://user@host[:port]/path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    Result<Target> resolve(const Uri &uri) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target) override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override;
    void setPrompts(const ConnectionPrompts &prompts) override;

private:
    std::mutex m_mutex;
    ConnectionPrompts m_prompts;
};

} // namespace strata::sftp

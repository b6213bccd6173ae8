#pragma once

#include "backends/sftp/sftp_config.h"
#include "core/storage/configured_factory.h"

#include <mutex>

namespace strata::sftp {

// sftp://[user@]host[:port]/path, sftp://host/~/path for a path below the login folder;
// the host may be a ~/.ssh/config alias. See parseConfig() for the query keys.
class SftpFactory final : public ConfiguredFactory<Config> {
public:
    SftpFactory() : ConfiguredFactory("sftp") {}
    std::string example() const override { return "sftp://user@host[:port]/path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    void setPrompts(const ConnectionPrompts &prompts) override;

private:
    Result<Config> parse(const Uri &uri) const override { return parseConfig(uri); }
    Target target(const Config &config, const Uri &uri) const override;
    Result<std::shared_ptr<Backend>> open(Config config, const Uri &uri, const ConnectionSecret &secret) override;

    std::mutex m_mutex;
    ConnectionPrompts m_prompts;
};

} // namespace strata::sftp

#pragma once

// The factory of a backend whose URI reads into a configuration (the server, the login, the
// options), as every network backend's does: resolve() and create() both read the URI
// that way, so a backend gives only how (parse), which instance and path the result names
// (target) and how it opens (open). The scheme is the one it was made for (ftp or ftps).
#include "core/storage/registry.h"

#include <memory>
#include <string>
#include <utility>

namespace strata {

template <class Config>
class ConfiguredFactory : public BackendFactory {
public:
    explicit ConfiguredFactory(std::string scheme) : m_scheme(std::move(scheme)) {}

    std::string scheme() const final { return m_scheme; }

    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &, const ConnectionSecret &secret) final
    {
        auto config = parse(uri);
        if (!config)
            return std::move(config).error();
        return open(std::move(*config), uri, secret);
    }

protected:
    // The URI read (no I/O beyond configuration files such as ~/.ssh/config), or what is
    // wrong with it.
    virtual Result<Config> parse(const Uri &uri) const = 0;
    // The instance key and path a parsed URI names.
    virtual Target target(const Config &config, const Uri &uri) const = 0;
    // The instance, with the caller's secret (empty when none) winning over the
    // environment and configuration files.
    virtual Result<std::shared_ptr<Backend>> open(Config config, const Uri &uri, const ConnectionSecret &secret) = 0;

private:
    Result<Target> locate(const Uri &uri) final
    {
        auto config = parse(uri);
        if (!config)
            return std::move(config).error();
        return target(*config, uri);
    }

    std::string m_scheme;
};

// Warnings a factory prints as it opens a connection that is not safe (to stderr, where the
// command line shows them).
// ?insecure: the certificates of `hostPort` are not verified.
void warnUnverifiedTls(const std::string &hostPort);
// A password for `hostPort` goes over `how` ("FTP (ftp://)"), without TLS: "strata: warning:
// the password for HOST goes over plain HOW; RISK".
void warnPlainPassword(const std::string &hostPort, const std::string &how, const std::string &risk);

} // namespace strata

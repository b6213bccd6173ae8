#include "core/storage/registry.h"

#include "core/storage/path.h"

namespace strata {

Registry::Registry(OperatorOptions options) : m_options(std::move(options)) {}

void Registry::add(std::unique_ptr<BackendFactory> factory)
{
    std::lock_guard lock(m_mutex);
    auto scheme = factory->scheme();
    m_factories[scheme] = std::move(factory);
}

std::vector<std::string> Registry::schemes() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    for (const auto &[scheme, factory] : m_factories)
        out.push_back(scheme);
    return out;
}

Result<Location> Registry::open(std::string_view uriText)
{
    auto uri = Uri::parse(uriText);
    if (!uri)
        return std::move(uri).error();
    return open(*uri);
}

Result<Location> Registry::open(const Uri &uri)
{
    std::lock_guard lock(m_mutex);
    auto factory = m_factories.find(uri.scheme());
    if (factory == m_factories.end()) {
        std::string known;
        for (const auto &[scheme, f] : m_factories)
            known += (known.empty() ? "" : ", ") + f->example();
        return Error(ErrorKind::InvalidInput, "unknown scheme '" + uri.scheme() + "'; Strata knows " + known)
            .setOperation("open")
            .setUri(uri.redacted());
    }
    auto target = factory->second->resolve(uri);
    if (!target)
        return std::move(target.error()).withContext("open", uri.redacted());
    auto path = normalizePath(target->path);
    if (!path)
        return std::move(path.error()).withContext("open", uri.redacted());
    auto cached = m_operators.find(target->key);
    if (cached == m_operators.end()) {
        auto secret = m_secrets.find(target->key);
        auto backend = secret == m_secrets.end() ? factory->second->create(uri, *target)
                                                 : factory->second->create(uri, *target, secret->second);
        if (!backend)
            return std::move(backend.error()).withContext("open", uri.redacted());
        cached = m_operators.emplace(target->key, std::make_shared<Operator>(std::move(*backend), m_options)).first;
    }
    return Location{cached->second, std::move(*path)};
}

Status Registry::setSecret(std::string_view uriText, ConnectionSecret secret)
{
    auto uri = Uri::parse(uriText);
    if (!uri)
        return std::move(uri).error();
    std::lock_guard lock(m_mutex);
    auto factory = m_factories.find(uri->scheme());
    if (factory == m_factories.end())
        return Error(ErrorKind::InvalidInput, "unknown scheme '" + uri->scheme() + "'").setUri(uri->redacted());
    auto target = factory->second->resolve(*uri);
    if (!target)
        return std::move(target).error();
    m_operators.erase(target->key);
    if (secret.user.empty() && secret.secret.empty())
        m_secrets.erase(target->key);
    else
        m_secrets[target->key] = std::move(secret);
    return {};
}

} // namespace strata

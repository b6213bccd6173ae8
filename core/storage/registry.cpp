#include "core/storage/registry.h"

#include "core/storage/path.h"

#include <algorithm>

namespace strata {

Result<Target> BackendFactory::resolve(const Uri &uri)
{
    if (auto known = checkOptions(uri, describe()); !known)
        return std::move(known).error();
    return locate(uri);
}

Registry::Registry(OperatorOptions options) : m_options(std::move(options)) {}

void Registry::add(std::unique_ptr<BackendFactory> factory)
{
    std::lock_guard lock(m_mutex);
    auto scheme = factory->scheme();
    factory->setPrompts(m_prompts);
    if (!m_factories.count(scheme))
        m_added.push_back(scheme);
    m_factories[scheme] = std::move(factory);
}

std::vector<BackendFactory *> Registry::backends() const
{
    std::lock_guard lock(m_mutex);
    std::vector<BackendFactory *> out;
    std::vector<std::string> titles;
    for (const std::string &scheme : m_added) {
        BackendFactory *f = m_factories.find(scheme)->second.get();
        std::string title = f->describe().title;
        if (std::find(titles.begin(), titles.end(), title) == titles.end()) {
            titles.push_back(std::move(title));
            out.push_back(f);
        }
    }
    return out;
}

std::vector<BackendDescription> Registry::descriptions() const
{
    std::vector<BackendDescription> out;
    for (BackendFactory *f : backends())
        out.push_back(f->describe());
    return out;
}

BackendFactory *Registry::factory(std::string_view scheme) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_factories.find(scheme);
    return it == m_factories.end() ? nullptr : it->second.get();
}

void Registry::setPrompts(const ConnectionPrompts &prompts)
{
    std::lock_guard lock(m_mutex);
    m_prompts = prompts;
    for (auto &[scheme, factory] : m_factories)
        factory->setPrompts(prompts);
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
    std::unique_lock lock(m_mutex);
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
    if (auto cached = m_operators.find(target->key); cached != m_operators.end())
        return Location{cached->second, std::move(*path)};
    // Creating a backend may connect to a server: not under the lock, so other threads
    // (the desktop app's GUI thread setting a secret, say) never wait for the network.
    BackendFactory *maker = factory->second.get(); // factories are never removed
    ConnectionSecret secret;
    if (auto s = m_secrets.find(target->secretKey.empty() ? target->key : target->secretKey); s != m_secrets.end())
        secret = s->second;
    lock.unlock();
    auto backend = maker->create(uri, *target, secret);
    if (!backend)
        return std::move(backend.error()).withContext("open", uri.redacted());
    auto made = std::make_shared<Operator>(std::move(*backend), m_options);
    lock.lock();
    if (m_hungUp)
        made->hangUp(); // opened while the process ends: no request waits on it either
    // Opened meanwhile by another thread: theirs is kept, ours dropped.
    auto cached = m_operators.try_emplace(target->key, std::move(made)).first;
    return Location{cached->second, std::move(*path)};
}

void Registry::hangUp()
{
    std::vector<std::shared_ptr<Operator>> open;
    {
        std::lock_guard lock(m_mutex);
        m_hungUp = true;
        for (const auto &[key, op] : m_operators)
            open.push_back(op);
    }
    for (const auto &op : open)
        op->hangUp();
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

#pragma once

#include "core/storage/registry.h"

#include <map>
#include <memory>
#include <mutex>

namespace strata {

class MemoryBackend;

// memory://NAME/path: named stores living as long as the factory (the registry). The
// store "demo" starts with sample folders and files so there is something to try at once
// (filled when first used).
class MemoryFactory final : public BackendFactory {
public:
    MemoryFactory();

    std::string scheme() const override { return "memory"; }
    std::string example() const override { return "memory://STORE/path"; }
    BackendDescription describe() const override;
    Result<FormConnection> fromForm(const FormAnswers &answers) const override;
    FormAnswers toForm(const Uri &uri) const override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override;

    // The store of that name, created empty on first use.
    std::shared_ptr<MemoryBackend> store(const std::string &name);

private:
    Result<Target> locate(const Uri &uri) override;

    std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<MemoryBackend>> m_stores;
};

// Fills a store with the demo content (folders, text, a small PNG, a sparse image).
void seedDemoStore(MemoryBackend &store);

} // namespace strata

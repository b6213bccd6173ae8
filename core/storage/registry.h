#pragma once

#include "core/storage/operator.h"
#include "core/storage/uri.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace strata {

// Which backend instance a URI names, and the path inside it.
struct Target {
    std::string key;  // identifies the instance ("memory://demo"); equal keys share one
    std::string path; // the URI's path inside that backend
};

// Makes backends for one URI scheme.
class BackendFactory {
public:
    virtual ~BackendFactory() = default;
    virtual std::string scheme() const = 0;
    // A one-line hint for messages, like "memory://STORE/path".
    virtual std::string example() const = 0;
    // Checks the URI and splits it into instance key and path; no I/O.
    virtual Result<Target> resolve(const Uri &uri) = 0;
    // Creates the instance for a key resolve() returned (called once per key).
    virtual Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target) = 0;
};

// Where a URI points: the operator of its backend and the path inside it.
struct Location {
    std::shared_ptr<Operator> op;
    std::string path;

    std::string display() const { return op->display(path); }
    // Whether two locations are on the same backend instance (server-side copy possible).
    bool sameBackend(const Location &other) const { return op == other.op; }
};

// Scheme -> factory. Backends are opened once per key and shared, so two URIs on the
// same store or server reuse one operator (and its connections).
class Registry {
public:
    explicit Registry(OperatorOptions options = {});

    void add(std::unique_ptr<BackendFactory> factory);
    std::vector<std::string> schemes() const;

    Result<Location> open(std::string_view uriText);
    Result<Location> open(const Uri &uri);

private:
    OperatorOptions m_options;
    mutable std::mutex m_mutex;
    std::map<std::string, std::unique_ptr<BackendFactory>, std::less<>> m_factories;
    std::map<std::string, std::shared_ptr<Operator>, std::less<>> m_operators;
};

} // namespace strata

#pragma once

#include "core/storage/registry.h"

namespace strata {

// null: — a destination that discards everything written to it (like nbdcopy's null:),
// for measuring how fast a source reads. Nothing is ever found there.
class NullFactory final : public BackendFactory {
public:
    std::string scheme() const override { return "null"; }
    std::string example() const override { return "null:"; }
    BackendDescription describe() const override;
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &target,
                                            const ConnectionSecret &secret) override;

private:
    Result<Target> locate(const Uri &uri) override;
};

} // namespace strata

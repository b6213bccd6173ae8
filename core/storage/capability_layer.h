#pragma once

#include "core/storage/layer.h"

namespace strata {

// Refuses an operation the backend does not declare, with Unsupported, before any I/O.
class CapabilityLayer final : public Layer {
public:
    using Layer::Layer;

protected:
    Outcome around(const Call &call, Next next) override;
};

} // namespace strata

#pragma once

namespace strata {

class Registry;

// Adds a factory for every backend compiled in (file, memory, …).
void registerBuiltinBackends(Registry &registry);

} // namespace strata

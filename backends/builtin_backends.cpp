#include "backends/builtin_backends.h"

#include "backends/fs/file_factory.h"
#include "backends/memory/memory_factory.h"
#include "backends/s3/s3_factory.h"

namespace strata {

void registerBuiltinBackends(Registry &registry)
{
    registry.add(std::make_unique<FileFactory>());
    registry.add(std::make_unique<MemoryFactory>());
    registry.add(std::make_unique<s3::S3Factory>());
}

} // namespace strata

#include "core/storage/capabilities.h"

namespace strata {

std::string_view toString(Capability cap)
{
    switch (cap) {
    case Capability::Stat: return "stat";
    case Capability::List: return "list";
    case Capability::Read: return "read";
    case Capability::Write: return "write";
    case Capability::Remove: return "remove";
    case Capability::CreateDir: return "create-dir";
    case Capability::Rename: return "rename";
    case Capability::Copy: return "copy";
    case Capability::Extents: return "extents";
    case Capability::RangedRead: return "ranged-read";
    case Capability::PositionalWrite: return "positional-write";
    case Capability::ListRecursive: return "list-recursive";
    case Capability::Symlinks: return "symlinks";
    case Capability::RealDirectories: return "real-directories";
    case Capability::KeepsModifiedTime: return "keeps-modified-time";
    case Capability::VersionedRead: return "versioned-read";
    case Capability::SingleObject: return "single-object";
    case Capability::Queue: return "queue";
    case Capability::Versions: return "versions";
    case Capability::Uploads: return "uploads";
    case Capability::Details: return "details";
    }
    return "unknown";
}

std::string Capabilities::names() const
{
    std::string out;
    for (std::uint32_t bit = 1; bit != 0 && bit <= m_bits; bit <<= 1) {
        if (!(m_bits & bit))
            continue;
        if (!out.empty())
            out += ',';
        out += toString(static_cast<Capability>(bit));
    }
    return out;
}

} // namespace strata

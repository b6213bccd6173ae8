#include "core/storage/capability_layer.h"

namespace strata {

namespace {

// The capabilities an operation needs; none for those every backend answers (a missing
// optional operation fails with Unsupported in the backend itself).
Capabilities needs(const Call &call)
{
    switch (call.op) {
    case Operation::Stat: return {Capability::Stat};
    case Operation::List:
        if (call.recursive)
            return {Capability::List, Capability::ListRecursive};
        return {Capability::List};
    case Operation::Read:
    case Operation::ReadVersion:
    case Operation::ReaderRead:
        if (call.offset != 0)
            return {Capability::Read, Capability::RangedRead};
        return {Capability::Read};
    case Operation::ReadQueue: return {Capability::Read, Capability::RangedRead};
    case Operation::OpenReader:
    case Operation::ReaderStat:
    case Operation::WillRead: return {Capability::Read};
    case Operation::OpenWriter:
    case Operation::Put:
    case Operation::WriterWrite:
    case Operation::WriterCommit: return {Capability::Write};
    case Operation::WriterWriteAt:
    case Operation::WriterSetLength:
    case Operation::WriterZero:
    case Operation::WriterWriteQueue: return {Capability::Write, Capability::PositionalWrite};
    case Operation::Remove:
    case Operation::RemoveMany: return {Capability::Remove};
    case Operation::CreateDir: return {Capability::CreateDir};
    case Operation::Rename: return {Capability::Rename};
    case Operation::Copy: return {Capability::Copy};
    case Operation::Extents: return {Capability::Extents};
    case Operation::ListVersions: return {Capability::Versions};
    case Operation::ListUploads: return {Capability::Uploads};
    case Operation::Details:
    case Operation::ChangeDetails: return {Capability::Details};
    case Operation::CopyRange:
    case Operation::ReaderCopyRange: return {Capability::Read, Capability::Write};
    case Operation::SetPermissions:
    case Operation::DiscardPending:
    case Operation::WriterAbort:
    case Operation::WriterSuspend:
    case Operation::Count_: break;
    }
    return {};
}

} // namespace

Outcome CapabilityLayer::around(const Call &call, Next next)
{
    const Capabilities have = capabilities();
    const Capabilities need = needs(call);
    for (std::uint32_t bit = 1; bit != 0 && bit <= need.bits(); bit <<= 1) {
        const auto cap = Capability(bit);
        if (need.has(cap) && !have.has(cap))
            return {Error(ErrorKind::Unsupported, "this storage does not offer '" + std::string(toString(cap)) + "'")};
    }
    return next();
}

} // namespace strata

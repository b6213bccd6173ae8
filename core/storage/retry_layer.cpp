#include "core/storage/retry_layer.h"

namespace strata {

RetryLayer::RetryLayer(std::shared_ptr<Backend> inner, RetryPolicy policy)
    : Layer(std::move(inner)), m_retrier(std::move(policy))
{
}

namespace {

// Whether running the operation again after a failure does what running it once would.
bool retriable(Operation op)
{
    switch (op) {
    case Operation::Stat:
    case Operation::List:
    case Operation::Read:
    case Operation::ReadVersion:
    case Operation::OpenWriter:
    case Operation::Put:    // the bytes are all in memory: sent again
    case Operation::Remove: // removing a missing path succeeds
    case Operation::RemoveMany:
    case Operation::CreateDir: // an AlreadyExists after a retry counts as done (below)
    case Operation::SetPermissions:
    case Operation::OpenReader:
    case Operation::Copy:
    case Operation::Extents:
    case Operation::ListVersions:
    case Operation::ListUploads:
    case Operation::Details:
    case Operation::ChangeDetails: // the same metadata and tags set again
    case Operation::CopyRange:     // rewriting the same range is harmless
    case Operation::WriterZero:
    case Operation::ReaderRead:
    case Operation::ReaderCopyRange:
    case Operation::ReaderStat: return true;
    case Operation::Rename:
    case Operation::ReadQueue: // its requests were handed to the caller as they completed
    case Operation::WriterWriteQueue:
    case Operation::WillRead:
    case Operation::DiscardPending:
    case Operation::WriterWrite:
    case Operation::WriterWriteAt:
    case Operation::WriterSetLength:
    case Operation::WriterCommit:
    case Operation::WriterAbort:
    case Operation::WriterSuspend:
    case Operation::Count_: break;
    }
    return false;
}

} // namespace

Outcome RetryLayer::around(const Call &call, Next next)
{
    if (!retriable(call.op))
        return next();
    int attempts = 0;
    return m_retrier.run([&]() -> Outcome {
        Outcome outcome = next();
        if (++attempts > 1 && call.op == Operation::CreateDir && !outcome.ok()
            && outcome.error().kind() == ErrorKind::AlreadyExists)
            return {}; // an earlier attempt succeeded without us hearing back
        return outcome;
    });
}

} // namespace strata

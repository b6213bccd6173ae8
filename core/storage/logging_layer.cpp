#include "core/storage/logging_layer.h"

#include <chrono>
#include <cstdio>

namespace strata {

namespace {

std::string range(const Call &call)
{
    return "[" + std::to_string(call.offset) + "+" + std::to_string(call.size) + "]";
}

} // namespace

LoggingLayer::LoggingLayer(std::shared_ptr<Backend> inner, LogSink sink)
    : Layer(std::move(inner)), m_sink(std::move(sink))
{
}

Outcome LoggingLayer::around(const Call &call, Next next)
{
    // What follows the URI on the line; chunks written into a writer are not logged.
    std::string extra;
    switch (call.op) {
    case Operation::WriterWrite:
    case Operation::WriterWriteAt: return next();
    case Operation::List: extra = call.recursive ? "(recursive)" : ""; break;
    case Operation::Read:
    case Operation::ReaderRead:
    case Operation::CopyRange:
    case Operation::ReaderCopyRange: extra = range(call); break;
    case Operation::ReadVersion: extra = range(call) + " if " + std::string(call.other); break;
    case Operation::Put: extra = std::to_string(call.size) + " bytes"; break;
    case Operation::RemoveMany: extra = "and " + std::to_string(call.size ? call.size - 1 : 0) + " more"; break;
    case Operation::Rename: extra = "-> " + uriFor(call.other).redacted() + (call.replace ? " (replace)" : ""); break;
    case Operation::Copy: extra = "-> " + uriFor(call.other).redacted(); break;
    case Operation::SetPermissions: {
        char mode[16];
        std::snprintf(mode, sizeof mode, "%04o", unsigned(call.size));
        extra = mode;
        break;
    }
    case Operation::WriterSetLength: extra = std::to_string(call.size) + " bytes"; break;
    case Operation::WriterZero: extra = range(call); break;
    case Operation::ReadQueue:
    case Operation::WriterWriteQueue: extra = "(queue depth " + std::to_string(call.size) + ")"; break;
    case Operation::WriterCommit: extra = "(" + std::to_string(call.size) + " bytes)"; break;
    case Operation::WriterAbort: extra = "(" + std::to_string(call.size) + " bytes discarded)"; break;
    case Operation::WriterSuspend: extra = "(" + std::to_string(call.size) + " bytes kept for resuming)"; break;
    case Operation::WillRead: extra = std::to_string(call.size) + " ranges"; break;
    case Operation::Stat:
    case Operation::OpenWriter:
    case Operation::Remove:
    case Operation::CreateDir:
    case Operation::OpenReader:
    case Operation::ReaderStat:
    case Operation::Extents:
    case Operation::ListVersions:
    case Operation::ListUploads:
    case Operation::Details:
    case Operation::ChangeDetails:
    case Operation::DiscardPending:
    case Operation::Count_: break;
    }
    const auto start = std::chrono::steady_clock::now();
    Outcome outcome = next();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::string line(toString(call.op));
    line += ' ';
    line += uriFor(call.path).redacted();
    if (!extra.empty()) {
        line += ' ';
        line += extra;
    }
    if (outcome.status.ok()) {
        line += " ok";
    } else {
        const Error &e = outcome.status.error();
        line += " failed: " + std::string(identifier(e.kind())) + " (" + e.cause() + ")";
    }
    char took[32];
    std::snprintf(took, sizeof took, " %.2f ms", ms);
    line += took;
    m_sink(line);
    return outcome;
}

} // namespace strata

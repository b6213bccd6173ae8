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
    const auto start = std::chrono::steady_clock::now();
    // Chunks written into a writer are logged only when they fail (a server that stopped
    // answering shows when it does, not at the abort): no text is made for the others.
    if (call.op == Operation::WriterWrite || call.op == Operation::WriterWriteAt) {
        Outcome outcome = next();
        if (!outcome.status.ok())
            emit(call, range(call), outcome, start);
        return outcome;
    }
    // What follows the URI on the line.
    std::string extra;
    switch (call.op) {
    case Operation::WriterWrite:
    case Operation::WriterWriteAt: break;
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
    Outcome outcome = next();
    emit(call, extra, outcome, start);
    return outcome;
}

void LoggingLayer::emit(const Call &call, const std::string &extra, const Outcome &outcome,
                        std::chrono::steady_clock::time_point start)
{
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
}

} // namespace strata

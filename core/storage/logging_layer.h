#pragma once

#include "core/storage/layer.h"

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace strata {

using LogSink = std::function<void(std::string_view line)>;

// Writes one line per backend request to a sink: operation, redacted URI, outcome, time.
// The bytes a writer receives are summed into its commit/abort/suspend line rather than
// logged chunk by chunk; a chunk that fails has a line of its own.
class LoggingLayer final : public Layer {
public:
    LoggingLayer(std::shared_ptr<Backend> inner, LogSink sink);

protected:
    Outcome around(const Call &call, Next next) override;

private:
    void emit(const Call &call, const std::string &extra, const Outcome &outcome,
              std::chrono::steady_clock::time_point start);

    LogSink m_sink;
};

} // namespace strata

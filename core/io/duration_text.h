#pragma once

// Durations as people type them, one way for the command line and the GUI: "500ms", "1.5s",
// "2m", "250us", "100ns": a number and its unit, blanks around ignored.
#include <chrono>
#include <optional>
#include <string_view>

namespace strata {

// nullopt for anything else, for zero or less, and for more than `most`.
std::optional<std::chrono::nanoseconds> parseDuration(std::string_view text,
                                                      std::chrono::nanoseconds most = std::chrono::hours(1));

} // namespace strata

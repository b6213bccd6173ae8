#pragma once

// Sizes as people type and read them, one way for the command line, URI options and the
// GUI: "256KiB", "64M", "1.5 GiB" in; "4.0 KiB", "12 bytes" out (binary units).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

// A byte count from "4096", "4K", "4KiB", "4kb", "1.5 GiB", "+10M" (K/M/G/T/P are powers of
// 1024, with or without "iB"/"B", any case); nullopt for anything else, negative, or more
// than 2^63.
std::optional<std::uint64_t> parseSize(std::string_view text);

// "1 byte", "12 bytes", "4.0 KiB", "12 MiB": one decimal below 10 of a unit.
std::string formatSize(std::uint64_t bytes);

// The exact name of a size, as benchmark names use it: "4KiB", "1MiB", "1000B".
std::string sizeLabel(std::uint64_t bytes);

} // namespace strata

// TRIUMF MUD μSR data files (the MUD library's section format; the files often end in .msr):
// a reader for the time-differential runs musrfit fits — run description, histogram headers
// and (packed) histogram data — into the common in-memory run.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

// A MUD file is read whole; runs are a few MiB.
inline constexpr std::uintmax_t kMudMaxBytes = std::uintmax_t(256) << 20;
inline constexpr std::uint32_t kMudMaxHistograms = 1024;
inline constexpr std::uint32_t kMudMaxBins = std::uint32_t(1) << 24;

// Throws InputError naming `where` and the section or field at fault.
RunData parse_mud(std::span<const std::uint8_t> bytes, const std::string& where);
RunData read_mud(const std::filesystem::path& path);

// Bin width in µs of a MUD histogram's fsPerBin field: codes below 16 are the TDC's
// 0.078125 ns · 2^code, 16..28 the 0.048828125 ns · 2^(code−16) series, larger values femtoseconds.
double mud_bin_width_us(std::uint32_t fs_per_bin);

}  // namespace tomo::musr

// PSI-BIN μSR histogram files (little-endian, 1024-byte header; layout in
// musrfit's PSI-BIN notes): a reader that checks every size against the file, and a writer.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace tomo::musr {

inline constexpr int kPsiBinMaxHistograms = 16;   // header arrays hold 16 entries
inline constexpr int kPsiBinMaxBins = 32767;      // int16 bins per histogram
// A hard cap on the file: 16 histograms of 32767 bins fill 2 MiB; the record layout may pad
// that, never to a GiB.
inline constexpr std::uintmax_t kPsiBinMaxBytes = std::uintmax_t(1) << 30;

// One μSR run in memory, whatever file it came from (PSI-BIN, MUD, ROOT, NeXus: run_file.hpp
// reads them all into this): histograms of equal length with their header values.
struct PsiBinFile {
  int tdc_resolution = 0;    // resolution code (bin width 0.125·625e-6·2^code µs when none is stored)
  double bin_width_us = 0.0; // Δt in µs
  std::string sample, temperature, field, orientation, setup;  // char[10] each
  std::vector<std::vector<std::int32_t>> histograms;           // [histogram][bin]
  std::vector<int> t0, first_good, last_good;                  // per histogram, in bins
  std::vector<std::int32_t> events;                            // per histogram
  std::vector<std::string> labels;                             // char[4] each
  // Header fields the other formats carry (PSI-BIN leaves them empty / -1).
  int run_number = -1;
  std::string title, lab, area, format;  // format: the reader that filled this ("PSI-BIN", "MUD", ...)
  int bins() const { return histograms.empty() ? 0 : static_cast<int>(histograms[0].size()); }
};

// Throws InputError naming `where` and the field at fault.
PsiBinFile parse_psi_bin(std::span<const std::uint8_t> bytes, const std::string& where);
PsiBinFile read_psi_bin(const std::filesystem::path& path);
using RunData = PsiBinFile;  // the name the other formats' readers use
std::vector<std::uint8_t> encode_psi_bin(const PsiBinFile& f);  // throws InputError when it does not fit the format
void write_psi_bin(const std::filesystem::path& path, const PsiBinFile& f);  // atomic

}  // namespace tomo::musr

// PSI-MDU μSR histogram files (PSI's "Midas dump" of the pTA and TDC front ends, formats M3,
// T4 and T5): a reader that sizes every record against the file, into the common in-memory run.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

// The layout, little-endian with C's natural alignment (as the front ends write the structs):
// a 512-byte file header {FmtId, FmtVersion, dates and times, int32 RunNumber and FileVersion
// at 44, RunTitle[41] at 52 (sample, temperature, field, orientation, 10 characters each),
// RunSubTitle[63] at 93, int32 HistoResolution at 176, DetectorNumberList[200] at 192, then at
// 492 int32 BinSize and the record sizes NumBytesHeader (512), NumBytesSettings, NumBytesTag
// (60), NumBytesStatistics}; the settings record (13 int32, the 10th the pTA timespan or the TDC
// resolution code, then 16 tags, 32 for T5); the statistics record; then per tag a 60-byte tag
// record {Label[12], Type at 12, int32 Histominb at 40, Histomaxb at 44, t0b, tfb, tlb at 48..56}
// followed, for a positron tag ('P') of Histomaxb − Histominb + 1 > 1 bins, by its int32 counts.
inline constexpr std::size_t kMduHeaderBytes = 512, kMduTagBytes = 60;
inline constexpr std::uintmax_t kMduMaxBytes = std::uintmax_t(1) << 30;
inline constexpr std::int64_t kMduMaxBins = std::int64_t(1) << 24;  // per histogram, zero offset included
inline constexpr std::int64_t kMduMaxResolutionFactor = std::int64_t(1) << 20;

// Throws InputError naming `where` and the record or field at fault.
RunData parse_psi_mdu(std::span<const std::uint8_t> bytes, const std::string& where);
// A file starting with "1" is a PSI-BIN file and read as one (musrfit's reader does the same).
RunData read_psi_mdu(const std::filesystem::path& path);

}  // namespace tomo::musr

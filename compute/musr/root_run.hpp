// μSR runs in ROOT files, as musrfit reads them: MusrRoot (folder "RunHeader" of TObjString
// entries "NNN - Label: value -@type", histograms hDecayNNN in folder "histos", numbered by the
// RunInfo's RedGreen offsets) and the older LEM layout read as ROOT-NPP (folder "RunInfo" with a
// TLemRunHeader object, histograms hDecayNN, post-pile-up ones 20 numbers on).
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

inline constexpr int kRootPostPileupOffset = 20;  // musrfit's post-pile-up histogram numbers
inline constexpr int kRootMaxHistogramNumber = 1000;

// Throws InputError naming `where` and the object or field at fault.
RunData parse_root_run(std::span<const std::uint8_t> bytes, const std::string& where);
RunData read_root_run(const std::filesystem::path& path);

}  // namespace tomo::musr

// ISIS NeXus μSR files as musrfit reads them: instrument definition 1 (HDF4: SDS "counts"
// [histograms][bins] with t0_bin / first_good_bin / last_good_bin attributes, "resolution" in
// its units) and 2 (HDF5: /raw_data_1 with instrument/detector_1 counts [periods][spectra][bins]
// or [spectra][bins], time_zero_bin / first_good_bin / last_good_bin, histogram_resolution).
// libhdf4 and libhdf5 run in a forked child (isolated_run.hpp): they can crash on damaged files.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>

#include "compute/musr/psi_bin.hpp"

namespace tomo::musr {

inline constexpr std::uintmax_t kNexusMaxBytes = std::uintmax_t(1) << 30;
inline constexpr std::uint64_t kNexusMaxCounts = std::uint64_t(1) << 26;  // bins of all histograms

RunData read_nexus(const std::filesystem::path& path);

// The readers' bodies, run in this process (tests of files this program checked, and the child).
RunData nexus_hdf5_body(const std::filesystem::path& path, std::uintmax_t file_bytes);
// Whether this build has libhdf4 (without it, definition-1 files are refused with one line).
bool nexus_has_hdf4();
RunData nexus_hdf4_body(const std::filesystem::path& path, std::uintmax_t file_bytes);

// Time resolution in µs of a value in NeXus units ("ps", "picoseconds", "nano.second", ...);
// negative when the unit is not a time.
double nexus_time_us(double value, const std::string& units);

}  // namespace tomo::musr

// The PATATO and k-Wave readers' bodies, run in this process instead of a child. Only for files
// this program wrote with libhdf5 itself (tests, and the structure-aware fuzzers that build
// well-formed HDF5 files from their input to exercise the readers' own checks at full speed):
// a user's file goes through read_patato/read_kwave, whose child contains libhdf5's crashes.
#pragma once
#include <filesystem>

#include "compute/oat/data_io.hpp"

namespace tomo::oat {

MeasuredData read_patato_in_process(const std::filesystem::path& path, int frame = 0, int wavelength = 0);
MeasuredData read_kwave_in_process(const std::filesystem::path& output);

}  // namespace tomo::oat

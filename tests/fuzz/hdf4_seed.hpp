// A NeXus definition-1 (HDF4) run written with libhdf4's SD interface, for the musr_nexus fuzz
// target's corpus beside the HDF5 seed. In its own file: mfhdf.h defines many macros.
#pragma once
#include <cstdint>
#include <vector>

namespace tomo::fuzz::musr_seed {

// Two 50-bin histograms (t0 3 and 4, good bins 6 … 49/50, 16 ns bins, run 17); empty where
// this build has no libhdf4.
std::vector<std::uint8_t> nexus_hdf4_run();

}  // namespace tomo::fuzz::musr_seed

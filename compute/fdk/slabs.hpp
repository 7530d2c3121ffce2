// FDK on several ranks (docs/multigpu.md, "fdk"): the volume cut into z-slabs, one per rank, each
// back-projected from every projection on the rank's device. The projections are the process's
// host copy, uploaded once per rank; under mpirun the processes' slabs (contiguous in z: a
// process's ranks are consecutive) are gathered into every process's volume. Voxel-driven
// back-projection computes each voxel alone, so the volume is one device's within rounding of
// the slab origin.
#pragma once
#include <string>

#include "compute/fdk/backprojector.hpp"
#include "compute/fdk/pipeline.hpp"
#include "compute/multi/ranks.hpp"

namespace tomo::fdk {

// Slab [first, last) of `slices` z-slices for global rank `rank` of `ranks` (equal counts ±1).
std::array<int, 2> slab_range(int slices, int rank, int ranks);

// The volume of `grid` back-projected by `backend` on `ranks` (ranks.team set); timing and
// on_batch are rank 0's.
VolumeF reconstruct_slabs(Ranks& ranks, const std::string& backend, const BackprojectorOptions& options,
                          const Grid3& grid, const ProjectionStack& p, int batch, BackprojectTiming* timing,
                          const std::function<void(int)>& on_batch);

}  // namespace tomo::fdk

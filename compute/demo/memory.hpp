// demo's host-memory estimate, made from demo.size before the volume is allocated.
#pragma once
#include "compute/core/memory.hpp"
#include "compute/core/volume.hpp"

namespace tomo::demo {

// `volumes` float volumes of the grid (the result; the cpu reference in a cross-check) plus one
// slab of `slab` slices (the cpu backend voxelises slab by slab).
MemoryEstimate estimate_memory(const Grid3& grid, int slab, int volumes);

}  // namespace tomo::demo

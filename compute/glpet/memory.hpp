// glpet's host-memory estimate, made from the scene's grid and modules before the
// phantoms are voxelised .
#pragma once
#include "compute/core/memory.hpp"

namespace tomo {
class Scene;
}

namespace tomo::glpet {

// Dominant host buffers of `run` (crosscheck = false) or `crosscheck`: float volumes
// (activity, σ_t, truth, image, sensitivity), ML-EM's x/b/sensitivity in double, the
// Monte-Carlo's uint32 LOR histogram per thread plus its double sum, and float LOR
// vectors. threads = 0: OpenMP's maximum.
MemoryEstimate estimate_memory(const Scene& scene, bool crosscheck, int threads = 0);

}  // namespace tomo::glpet

// Exact line integral through a voxel volume (Siddon / Amanatides–Woo traversal): the
// volume is piecewise constant on voxel boxes [centre ± voxel/2]. The traversal itself is
// mc::siddon (mc_history.hpp), which the Monte-Carlo's cpu and CUDA forms share; never used
// by the projectors.
#pragma once
#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"
#include "compute/glpet/mc_history.hpp"

namespace tomo::glpet {

inline mc::Grid grid_of(const Grid3& g) {
  return {{g.dims[0], g.dims[1], g.dims[2]},
          {g.voxel_mm[0], g.voxel_mm[1], g.voxel_mm[2]},
          {g.origin_mm[0], g.origin_mm[1], g.origin_mm[2]}};
}

// ∫ f along the segment a→b (mm · value): Σ over crossed voxels of value × chord length.
inline double siddon_line_integral(const VolumeF& f, const Vec3& a, const Vec3& b) {
  return mc::siddon(f.data.data(), grid_of(f.grid), {a[0], a[1], a[2]}, {b[0], b[1], b[2]});
}

}  // namespace tomo::glpet

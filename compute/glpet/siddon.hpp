// Exact line integral through a voxel volume (Siddon / Amanatides–Woo traversal): the
// volume is piecewise constant on voxel boxes [centre ± voxel/2]. Used by the
// independent Monte-Carlo simulator, never by the projectors.
#pragma once
#include "compute/core/phantom.hpp"
#include "compute/core/volume.hpp"

namespace tomo::glpet {

// ∫ f along the segment a→b (mm · value): Σ over crossed voxels of value × chord length.
double siddon_line_integral(const VolumeF& f, const Vec3& a, const Vec3& b);

}  // namespace tomo::glpet

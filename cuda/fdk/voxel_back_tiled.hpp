// The projector pair's voxel-driven B by a shared-memory tiled gather (bench_fdk --b-variants,
// docs/perf/fdk.md): per pass of kTileViews views each block copies the detector footprint of its
// voxel box from the zero-bordered weighted copy into shared memory and samples it there with
// fp32 weights, so the texture unit's filtered-fetch rate, which bounds the texture gather, no
// longer does. For geometries where u and t do not depend on z and every voxel lies in front of
// every source (VoxelBack::z_invariant, all_in_front); a view whose footprint exceeds the tile
// samples by loads from the same copy.
#pragma once
#include <cuda_runtime_api.h>

#include "cuda/fdk/voxel_back_kernels.hpp"

namespace tomo::fdk::cuda_detail {

inline constexpr int kTileViews = 2, kTileCap = 4096, kTileBlockX = 32, kTileBlockY = 8;

// x += Σ_{n<count} B_n over images first … first+count−1 of l.padded (weighted, zero-bordered).
void launch_back_voxel_tiled(const VoxelBack& l, int first, const float* matrices12, int count, cudaStream_t stream);

}  // namespace tomo::fdk::cuda_detail

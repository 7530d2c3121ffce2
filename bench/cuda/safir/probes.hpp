// Bench-only: ceiling probes of bench_safir, the memory access pattern of the safir passes
// without their arithmetic (never part of the product). Blocks of 2×2 neighbouring voxels at
// hashed positions, as a slice walk touches them.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tomo::safir::probes {

// `blocks4` hashed voxels × a 2×2 block each, float atomicAdd into `f` (the fused back pass's
// global atomics) or loads summed into `sink` (its gathers). Each touches 4 · blocks4 voxels.
void launch_atomics(float* f, std::size_t voxels, int nx, std::size_t blocks4, cudaStream_t stream);
void launch_gathers(const float* f, std::size_t voxels, int nx, std::size_t blocks4, float* sink, cudaStream_t stream);

// The tiled back pass's pattern: per block a tile of `tile_floats` in shared memory,
// 4 · blocks4 / blocks shared atomicAdds on hashed 2×2 blocks, then the flush (one global atomic
// per touched tile voxel into `f` of `voxels`).
void launch_shared_atomics(float* f, std::size_t voxels, int tile_floats, int nx, std::size_t blocks4, int blocks,
                           cudaStream_t stream);

// The tiled back pass's flush alone: `blocks` blocks each add a tile of `tile_floats` ones into
// `f` (blocks b and b + voxels / tile_floats share a tile), one atomic per voxel or, with
// `pairs`, per voxel pair (float2, sm_90). `f` 8-byte aligned.
void launch_flush(float* f, std::size_t voxels, int tile_floats, int blocks, bool pairs, cudaStream_t stream);

}  // namespace tomo::safir::probes

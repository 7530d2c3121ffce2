// Bench-only ceiling probes of bench_safir (probes.hpp): the kernels the passes would be if
// their walk cost nothing.
#include <algorithm>
#include <cstdint>

#include "bench/cuda/safir/probes.hpp"
#include "cuda/core/check.hpp"

namespace tomo::safir::probes {

namespace {

constexpr int kThreads = 256;      // as the fused pass
constexpr int kTileThreads = 512;  // as the tiled pass

int blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 8 ? (b > 0 ? b : 1) : 65535 * 8);
}

__device__ __forceinline__ std::size_t probe_voxel(std::size_t i, std::size_t voxels, int nx) {
  const std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;  // Knuth's multiplicative hash
  const std::size_t room = voxels > std::size_t(nx) + 1 ? voxels - nx - 1 : 1;
  return h % room;
}

__global__ void atomics_kernel(float* f, std::size_t voxels, int nx, std::size_t blocks4) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < blocks4; i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t j = probe_voxel(i, voxels, nx);
    atomicAdd(f + j, 1.0f);
    atomicAdd(f + j + 1, 1.0f);
    atomicAdd(f + j + nx, 1.0f);
    atomicAdd(f + j + nx + 1, 1.0f);
  }
}

__global__ void gathers_kernel(const float* f, std::size_t voxels, int nx, std::size_t blocks4, float* sink) {
  float acc = 0.f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < blocks4; i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t j = probe_voxel(i, voxels, nx);
    acc += __ldg(f + j) + __ldg(f + j + 1) + __ldg(f + j + nx) + __ldg(f + j + nx + 1);
  }
  if (acc == 12345.678f) *sink = acc;  // keeps the loads; practically never stores
}

__global__ void __launch_bounds__(kTileThreads) shared_kernel(float* f, std::size_t voxels, int tile_floats, int row,
                                                              std::size_t per_block) {
  extern __shared__ float tile[];
  for (int i = threadIdx.x; i < tile_floats; i += blockDim.x) tile[i] = 0.f;
  __syncthreads();
  const std::uint32_t room = static_cast<std::uint32_t>(max(1, tile_floats - row - 1));
  for (std::size_t i = threadIdx.x; i < per_block; i += blockDim.x) {
    const std::uint32_t j = (static_cast<std::uint32_t>(i + per_block * blockIdx.x) * 2654435761u) % room;
    atomicAdd(tile + j, 1.0f);
    atomicAdd(tile + j + 1, 1.0f);
    atomicAdd(tile + j + row, 1.0f);
    atomicAdd(tile + j + row + 1, 1.0f);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < tile_floats; i += blockDim.x) {
    const float v = tile[i];
    if (v != 0.0f) atomicAdd(f + (std::size_t(blockIdx.x) * tile_floats + i) % voxels, v);
  }
}

// The tiled back pass's flush alone: each block adds a tile of ones into f, block b into tile
// b mod (voxels / tile_floats) (blocks of one tile collide as the chunks of one tile do); one
// global atomic per voxel, or per voxel pair (sm_90's red.global.add.v2.f32).
__global__ void __launch_bounds__(kTileThreads) flush_kernel(float* f, std::size_t voxels, int tile_floats, bool pairs) {
  const std::size_t tiles = std::max<std::size_t>(1, voxels / std::size_t(tile_floats));
  const std::size_t at = (blockIdx.x % tiles) * std::size_t(tile_floats);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (pairs) {
    float2* f2 = reinterpret_cast<float2*>(f + at);
    for (int i = threadIdx.x; i < tile_floats / 2; i += blockDim.x) atomicAdd(f2 + i, make_float2(1.0f, 1.0f));
    return;
  }
#endif
  for (int i = threadIdx.x; i < tile_floats; i += blockDim.x) atomicAdd(f + at + i, 1.0f);
}

}  // namespace

void launch_flush(float* f, std::size_t voxels, int tile_floats, int blocks, bool pairs, cudaStream_t stream) {
  tile_floats = std::max(2, std::min<int>(tile_floats, static_cast<int>(voxels)) & ~1);
  flush_kernel<<<std::max(1, blocks), kTileThreads, 0, stream>>>(f, voxels, tile_floats, pairs);
  TOMO_CUDA_CHECK_LAST();
}

void launch_atomics(float* f, std::size_t voxels, int nx, std::size_t blocks4, cudaStream_t stream) {
  atomics_kernel<<<blocks_for(blocks4), kThreads, 0, stream>>>(f, voxels, nx, blocks4);
  TOMO_CUDA_CHECK_LAST();
}

void launch_gathers(const float* f, std::size_t voxels, int nx, std::size_t blocks4, float* sink, cudaStream_t stream) {
  gathers_kernel<<<blocks_for(blocks4), kThreads, 0, stream>>>(f, voxels, nx, blocks4, sink);
  TOMO_CUDA_CHECK_LAST();
}

void launch_shared_atomics(float* f, std::size_t voxels, int tile_floats, int nx, std::size_t blocks4, int blocks,
                           cudaStream_t stream) {
  blocks = std::max(1, blocks);
  const int bytes = tile_floats * static_cast<int>(sizeof(float));
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(&shared_kernel),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  shared_kernel<<<blocks, kTileThreads, bytes, stream>>>(f, voxels, tile_floats, nx, (blocks4 + blocks - 1) / blocks);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::safir::probes

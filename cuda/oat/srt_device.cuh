// Device helpers of the oat H_srt kernels (srt_kernels.cu; bench/cuda/oat's probes of them): a
// warp's shell sample, the shell radius, the rings of a cap shared across a warp, a warp sum.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/oat/srt_gather.hpp"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {

inline constexpr int kSrtThreads = 32 * kSrtWarpsPerBlock;
inline constexpr unsigned kFullMask = 0xffffffffu;

// Blocks of kSrtThreads for one warp per shell sample.
inline unsigned srt_blocks(const SrtParams& p) {
  const std::int64_t n = static_cast<std::int64_t>(p.transducers) * p.shells;
  return static_cast<unsigned>((n + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
}

struct Sample {
  bool valid;
  int q, m;
};

__device__ __forceinline__ Sample warp_sample(const SrtParams& p) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  const std::int64_t n = static_cast<std::int64_t>(p.transducers) * p.shells;
  if (s >= n) return {false, 0, 0};
  return {true, static_cast<int>(s / p.shells), static_cast<int>(s % p.shells)};
}

__device__ __forceinline__ float shell_radius(const SrtParams& p, int m) {
  return p.c0 * (p.t_min + (static_cast<float>(m) - 1.0f) * p.dt);
}

// Calls per_ring(r) for the cap's rings in order, every lane with the same r: lane l computes ring
// i0 + l (kernel_math shell_ring, three sine/cosine pairs) and the warp shares it by shuffles,
// instead of every lane computing every ring. All lanes must call this (the shuffles are warp-wide).
template <class PerRing>
__device__ __forceinline__ void for_each_ring(const ShellCap<float>& c, int lane, PerRing&& per_ring) {
  for (int i0 = 0; i0 < c.n_theta; i0 += 32) {
    ShellRing<float> mine{1, 0.0f, 0.0f, 1.0f};
    if (i0 + lane < c.n_theta) mine = srt_ring(c, i0 + lane);
    const int n = min(32, c.n_theta - i0);
    for (int l = 0; l < n; ++l) {
      const ShellRing<float> r{__shfl_sync(kFullMask, mine.n_phi, l), __shfl_sync(kFullMask, mine.area, l),
                               __shfl_sync(kFullMask, mine.sin_t, l), __shfl_sync(kFullMask, mine.cos_t, l)};
      per_ring(r);
    }
  }
}

// Voxel (i, j) of an n × n grid turned k quarters about z: R(i, j) = (n − 1 − j, i).
__device__ __forceinline__ void turn_voxel(int n, int k, int i, int j, int* a, int* b) {
  switch (k) {
    case 0: *a = i, *b = j; break;
    case 1: *a = n - 1 - j, *b = i; break;
    case 2: *a = n - 1 - i, *b = n - 1 - j; break;
    default: *a = j, *b = n - 1 - i; break;
  }
}

// trilinear_visit's arithmetic with the eight weights kept for the caller: the base voxel and the
// per-axis weights (corner (a, b, c) weighs wx[a]·wy[b]·wz[c]); false where the patch's footprint
// misses the grid. inv = 1/Δs.
struct TrilinearBase {
  int i0, j0, k0;
  float wx[2], wy[2], wz[2];
};
__device__ __forceinline__ bool trilinear_base(const GridParams<float>& g, float inv, float x, float y, float z,
                                               TrilinearBase* t) {
  const float fx = (x - g.x0) * inv, fy = (y - g.y0) * inv, fz = (z - g.z0) * inv;
  const float bx = m_floor(fx), by = m_floor(fy), bz = m_floor(fz);
  t->i0 = static_cast<int>(bx), t->j0 = static_cast<int>(by), t->k0 = static_cast<int>(bz);
  if (t->i0 < -1 || t->j0 < -1 || t->k0 < -1 || t->i0 >= g.nx || t->j0 >= g.ny || t->k0 >= g.nz) return false;
  t->wx[0] = 1.0f - (fx - bx), t->wx[1] = fx - bx;
  t->wy[0] = 1.0f - (fy - by), t->wy[1] = fy - by;
  t->wz[0] = 1.0f - (fz - bz), t->wz[1] = fz - bz;
  return true;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFullMask, v, o);
  return v;
}

}  // namespace tomo::oat::cuda_detail

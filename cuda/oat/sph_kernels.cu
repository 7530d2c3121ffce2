// H_sph CUDA kernels. Forward: [Wang2013]'s layout (a block per transducer, threads over
// frequencies, voxel chunks staged on chip: shared memory here, constant memory in the paper)
// changed in three ways: each thread owns kSphFreqPerThread frequencies whose phases follow by
// recurrence (a complex multiply instead of a sine and a cosine each), a block serves several
// transducers when the spectrum is short, and the voxels are also split over blockIdx.z (partial
// sums added by atomics) so that a few hundred transducers fill the GPU. Adjoint: one thread per voxel, the weighted data of one transducer in shared memory,
// every frequency of a (face point, voxel) pair by recurrence, re-anchored every kSphAnchor.
// Phases in turns, reduced to [−½, ½] before __sincosf (2^-21 absolute there).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/sph_kernels.hpp"
#include "cuda/oat/sph_math.cuh"

namespace tomo::oat::cuda_detail {
namespace {

// lanes = ⌈L/F⌉ threads per transducer. With lanes ≥ blockDim a block serves one transducer and
// blockIdx.y the lane chunks; with fewer, a block serves per_block = blockDim/lanes transducers
// (all sharing the staged voxels), so short spectra (L = 128: 16 lanes) still fill whole warps.
__global__ void sph_forward(SphParams p, const float* __restrict__ alpha, std::int64_t v0, std::int64_t v1,
                            std::int64_t per_slab, int lanes, int per_block, float2* __restrict__ u) {
  __shared__ float4 vox[kSphVoxelChunk];
  int q, lane;
  if (per_block <= 1) {
    q = blockIdx.x;
    lane = blockIdx.y * blockDim.x + threadIdx.x;
  } else {
    q = blockIdx.x * per_block + static_cast<int>(threadIdx.x) / lanes;
    lane = static_cast<int>(threadIdx.x) % lanes;
  }
  const int lbase = lane * kSphFreqPerThread;
  const bool active = q < p.transducers && lane < lanes && lbase < p.frequencies &&
                      (per_block <= 1 || static_cast<int>(threadIdx.x) < per_block * lanes);
  const std::int64_t vs = v0 + static_cast<std::int64_t>(blockIdx.z) * per_slab;
  const std::int64_t ve = min(v1, vs + per_slab);
  const float f_first = fmaf(static_cast<float>(lbase), p.df_over_c0, p.f0_over_c0);
  float2 acc[kSphFreqPerThread];
#pragma unroll
  for (int j = 0; j < kSphFreqPerThread; ++j) acc[j] = make_float2(0.f, 0.f);
  for (std::int64_t c = vs; c < ve; c += kSphVoxelChunk) {
    const int m = static_cast<int>(min(static_cast<std::int64_t>(kSphVoxelChunk), ve - c));
    for (int i = threadIdx.x; i < m; i += blockDim.x) vox[i] = voxel(p.grid, alpha, c + i);
    __syncthreads();
    if (active) {
      for (int pp = 0; pp < p.points_per_face; ++pp) {
        const float4 s = __ldg(p.points + static_cast<std::int64_t>(q) * p.points_per_face + pp);
        for (int i = 0; i < m; ++i) {
          const float4 v = vox[i];
          if (v.w == 0.f) continue;  // uniform over the block: every thread reads the same voxel
          const float dx = s.x - v.x, dy = s.y - v.y, dz = s.z - v.z;
          const float d2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
          const float inv = rsqrtf(d2), d = d2 * inv;
          float2 e = phasor(f_first * d);
          const float2 step = phasor(p.df_over_c0 * d);
          const float a = v.w * inv;
#pragma unroll
          for (int j = 0; j < kSphFreqPerThread; ++j) {
            acc[j].x = fmaf(a, e.x, acc[j].x);
            acc[j].y = fmaf(a, e.y, acc[j].y);
            e = cmul(e, step);
          }
        }
      }
    }
    __syncthreads();
  }
  if (!active) return;
#pragma unroll
  for (int j = 0; j < kSphFreqPerThread; ++j) {
    const int l = lbase + j;
    if (l >= p.frequencies) break;
    const float2 v = cmul(p.weights[l], acc[j]);
    float2* out = u + static_cast<std::int64_t>(q) * p.frequencies + l;
    atomicAdd(&out->x, v.x);
    atomicAdd(&out->y, v.y);
  }
}

__global__ void sph_weigh(SphParams p, const float2* __restrict__ u, float2* __restrict__ w, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 c = p.weights[i % p.frequencies];
  w[i] = cmul(make_float2(c.x, -c.y), u[i]);
}

__global__ void sph_adjoint(SphParams p, const float2* __restrict__ w, int q0, int q1, float* __restrict__ alpha) {
  extern __shared__ float2 ws[];
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = n < N;
  const float4 r = active ? voxel(p.grid, nullptr, n) : make_float4(0.f, 0.f, 0.f, 0.f);
  const int L = p.frequencies;
  float a = 0.f;
  for (int q = q0; q < q1; ++q) {
    __syncthreads();
    for (int l = threadIdx.x; l < L; l += blockDim.x) ws[l] = w[static_cast<std::int64_t>(q) * L + l];
    __syncthreads();
    if (!active) continue;
    for (int pp = 0; pp < p.points_per_face; ++pp) {
      const float4 s = __ldg(p.points + static_cast<std::int64_t>(q) * p.points_per_face + pp);
      const float dx = s.x - r.x, dy = s.y - r.y, dz = s.z - r.z;
      const float d2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
      const float inv = rsqrtf(d2), d = d2 * inv;
      const float2 step = phasor(p.df_over_c0 * d);
      float sum = 0.f;
      for (int l0 = 0; l0 < L; l0 += kSphAnchor) {
        float2 e = phasor(fmaf(static_cast<float>(l0), p.df_over_c0, p.f0_over_c0) * d);
        const int l1 = min(L, l0 + kSphAnchor);
        for (int l = l0; l < l1; ++l) {
          const float2 x = ws[l];  // Re{x·conj(e)}
          sum = fmaf(x.x, e.x, fmaf(x.y, e.y, sum));
          e = cmul(e, step);
        }
      }
      a = fmaf(sum, inv, a);
    }
  }
  if (active) alpha[n] = a;
}

}  // namespace

void launch_sph_forward(const SphParams& p, const float* alpha, std::int64_t v0, std::int64_t v1, float2* u,
                        cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(p.transducers) * p.frequencies;
  TOMO_CUDA_CHECK(cudaMemsetAsync(u, 0, n * sizeof(float2), stream));
  if (v1 <= v0 || n == 0) return;
  constexpr int kThreads = 128;
  const int lanes = (p.frequencies + kSphFreqPerThread - 1) / kSphFreqPerThread;
  const int per_block = lanes >= kThreads ? 1 : kThreads / lanes;
  const int threads = per_block == 1 ? kThreads : (per_block * lanes + 31) / 32 * 32;
  const int ychunks = per_block == 1 ? (lanes + kThreads - 1) / kThreads : 1;
  const int xblocks = (p.transducers + per_block - 1) / per_block;
  if (ychunks > 65535) throw Error("oat cuda H_sph: too many frequencies for one launch");
  // Voxel slabs: enough blocks to fill the GPU (≈ 4096), each slab at least one chunk.
  const std::int64_t chunks = (v1 - v0 + kSphVoxelChunk - 1) / kSphVoxelChunk;
  const std::int64_t blocks_xy = static_cast<std::int64_t>(xblocks) * ychunks;
  const std::int64_t slabs = std::clamp<std::int64_t>((4096 + blocks_xy - 1) / blocks_xy, 1, std::min<std::int64_t>(chunks, 65535));
  const std::int64_t per_slab = (chunks + slabs - 1) / slabs * kSphVoxelChunk;
  const std::int64_t used = (v1 - v0 + per_slab - 1) / per_slab;
  const dim3 grid(static_cast<unsigned>(xblocks), static_cast<unsigned>(ychunks), static_cast<unsigned>(used));
  sph_forward<<<grid, threads, 0, stream>>>(p, alpha, v0, v1, per_slab, lanes, per_block, u);
  TOMO_CUDA_CHECK_LAST();
}

void launch_sph_weigh(const SphParams& p, const float2* u, float2* w, cudaStream_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(p.transducers) * p.frequencies;
  if (n <= 0) return;
  sph_weigh<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p, u, w, n);
  TOMO_CUDA_CHECK_LAST();
}

void launch_sph_adjoint(const SphParams& p, const float2* u, float2* w, int q0, int q1, float* alpha,
                        cudaStream_t stream) {
  if (p.frequencies > kSphMaxFrequencies) throw Error("oat cuda H_sph: more than 4096 frequencies");
  launch_sph_weigh(p, u, w, stream);
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  const int threads = 128;
  const unsigned blocks = static_cast<unsigned>((N + threads - 1) / threads);
  const std::size_t shared = static_cast<std::size_t>(p.frequencies) * sizeof(float2);
  sph_adjoint<<<blocks, threads, shared, stream>>>(p, w, q0, q1, alpha);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

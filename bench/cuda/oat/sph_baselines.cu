// Bench-only H_sph kernels (see sph_baselines.hpp), on the product's device helpers (sph_math.cuh).
#include "bench/cuda/oat/sph_baselines.hpp"

#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/sph_math.cuh"

namespace tomo::oat::bench_cuda {
namespace {

using namespace cuda_detail;

__global__ void sph_forward_paper(SphParams p, const float* __restrict__ alpha, std::int64_t voxels,
                                  float2* __restrict__ u) {
  __shared__ float4 vox[kSphVoxelChunk];
  const int q = blockIdx.x, l = blockIdx.y * blockDim.x + threadIdx.x;
  const bool active = l < p.frequencies;
  const float f = fmaf(static_cast<float>(l), p.df_over_c0, p.f0_over_c0);
  float2 acc = make_float2(0.f, 0.f);
  for (std::int64_t c = 0; c < voxels; c += kSphVoxelChunk) {
    const int m = static_cast<int>(min(static_cast<std::int64_t>(kSphVoxelChunk), voxels - c));
    for (int i = threadIdx.x; i < m; i += blockDim.x) vox[i] = voxel(p.grid, alpha, c + i);
    __syncthreads();
    if (active)
      for (int pp = 0; pp < p.points_per_face; ++pp) {
        const float4 s = __ldg(p.points + static_cast<std::int64_t>(q) * p.points_per_face + pp);
        for (int i = 0; i < m; ++i) {
          const float4 v = vox[i];
          if (v.w == 0.f) continue;
          const float dx = s.x - v.x, dy = s.y - v.y, dz = s.z - v.z;
          const float d2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
          const float inv = rsqrtf(d2);
          const float2 e = phasor(f * d2 * inv);
          acc.x = fmaf(v.w * inv, e.x, acc.x);
          acc.y = fmaf(v.w * inv, e.y, acc.y);
        }
      }
    __syncthreads();
  }
  if (active) u[static_cast<std::int64_t>(q) * p.frequencies + l] = cmul(p.weights[l], acc);
}

__global__ void sph_adjoint_paper(SphParams p, const float2* __restrict__ w, float* __restrict__ alpha) {
  extern __shared__ float2 ws[];
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = n < N;
  const float4 r = active ? voxel(p.grid, nullptr, n) : make_float4(0.f, 0.f, 0.f, 0.f);
  const int L = p.frequencies;
  float a = 0.f;
  for (int q = 0; q < p.transducers; ++q) {
    __syncthreads();
    for (int l = threadIdx.x; l < L; l += blockDim.x) ws[l] = w[static_cast<std::int64_t>(q) * L + l];
    __syncthreads();
    if (!active) continue;
    for (int pp = 0; pp < p.points_per_face; ++pp) {
      const float4 s = __ldg(p.points + static_cast<std::int64_t>(q) * p.points_per_face + pp);
      const float dx = s.x - r.x, dy = s.y - r.y, dz = s.z - r.z;
      const float d2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
      const float inv = rsqrtf(d2), d = d2 * inv;
      float sum = 0.f;
      for (int l = 0; l < L; ++l) {
        const float2 e = phasor(fmaf(static_cast<float>(l), p.df_over_c0, p.f0_over_c0) * d);
        const float2 x = ws[l];  // Re{x·conj(e)}
        sum = fmaf(x.x, e.x, fmaf(x.y, e.y, sum));
      }
      a = fmaf(sum, inv, a);
    }
  }
  if (active) alpha[n] = a;
}

__global__ void sph_probe(int threads, int iterations, int per_sincos, float* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  float2 acc = make_float2(0.f, 0.f);
  float x = 1e-3f * static_cast<float>(t & 1023);
  for (int i = 0; i < iterations; ++i) {
    float2 e = phasor(x);
    const float2 step = make_float2(0.999f, 0.0447f);
    for (int j = 0; j < per_sincos; ++j) {
      acc.x = fmaf(0.5f, e.x, acc.x);
      acc.y = fmaf(0.5f, e.y, acc.y);
      e = cmul(e, step);
    }
    x += 0.37f + 1e-7f * acc.x;  // a dependency, so nothing is hoisted out of the loop
  }
  out[t] = acc.x + acc.y;
}

}  // namespace

void launch_sph_forward_paper(const SphParams& p, const float* alpha, float2* u, cudaStream_t stream) {
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  const dim3 grid(static_cast<unsigned>(p.transducers), static_cast<unsigned>((p.frequencies + 127) / 128));
  sph_forward_paper<<<grid, 128, 0, stream>>>(p, alpha, N, u);
  TOMO_CUDA_CHECK_LAST();
}

void launch_sph_adjoint_paper(const SphParams& p, const float2* u, float2* w, float* alpha, cudaStream_t stream) {
  if (p.frequencies > kSphMaxFrequencies) throw Error("oat bench H_sph: more than 4096 frequencies");
  launch_sph_weigh(p, u, w, stream);
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  const int threads = 128;
  const unsigned blocks = static_cast<unsigned>((N + threads - 1) / threads);
  const std::size_t shared = static_cast<std::size_t>(p.frequencies) * sizeof(float2);
  sph_adjoint_paper<<<blocks, threads, shared, stream>>>(p, w, alpha);
  TOMO_CUDA_CHECK_LAST();
}

void launch_sph_probe(int threads, int iterations, int per_sincos, float* out, cudaStream_t stream) {
  sph_probe<<<static_cast<unsigned>((threads + 255) / 256), 256, 0, stream>>>(threads, iterations, per_sincos, out);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::bench_cuda

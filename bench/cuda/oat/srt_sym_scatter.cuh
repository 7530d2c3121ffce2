// Bench-only H_srtᵀ by the quarter-turn orbits without the merge over shells: one warp per (orbit,
// shell sample) walks the forward's passes and patches, and adds each patch's four members' terms by
// one float4 atomic per trilinear corner (the product merges them: cuda/oat/srt_sym_merged.cuh).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_sym_merged.cuh"

namespace tomo::oat::cuda_detail {

// Where the probes below leave what they must not let the compiler drop (this header is included by
// one translation unit: bench/cuda/oat/srt_symmetric.cu).
static __device__ float4 sym_probe_sink;
static __device__ unsigned long long sym_probe_adds;

// Probe of the merged form: the held sums kept but nothing added (their sum stored only if it is
// NaN, which finite data never give), so the time is the enumeration and patch arithmetic alone.
struct NoAddsProbe {
  float t = 0.0f;
  __device__ __forceinline__ void operator()(float4*, float4 v) { t += v.x + v.y + v.z + v.w; }
  __device__ __forceinline__ void done() {
    if (isnan(t)) sym_probe_sink = make_float4(t, t, t, t);
  }
};

// Probe of the symmetric forward: no reads of the image, a value from the address instead (the
// time is the enumeration, weights and sums alone).
struct NoReadsProbe {
  __device__ __forceinline__ float4 operator()(const float4* at) const {
    return make_float4(static_cast<float>(reinterpret_cast<std::uintptr_t>(at) & 0xffu), 0.f, 0.f, 0.f);
  }
};

// Probe of the merged form that counts its float4 atomics instead of issuing them (one 64-bit
// atomic a thread at the end): the ceiling rows issue as many.
struct CountAddsProbe {
  unsigned long long n = 0;
  __device__ __forceinline__ void operator()(float4*, float4) { ++n; }
  __device__ __forceinline__ void done() { atomicAdd(&sym_probe_adds, n); }
};

inline unsigned long long count_sym_merged_adds(const SrtParams& p, const SymmetricParams& sp, const float* g,
                                                float4* c4, float* alpha, cudaStream_t stream) {
  const unsigned long long zero = 0;
  TOMO_CUDA_CHECK(cudaMemcpyToSymbolAsync(sym_probe_adds, &zero, sizeof zero, 0, cudaMemcpyHostToDevice, stream));
  launch_sym_merged_as<1, CountAddsProbe>(p, sp, g, c4, alpha, stream);
  unsigned long long n = 0;
  TOMO_CUDA_CHECK(cudaMemcpyFromSymbolAsync(&n, sym_probe_adds, sizeof n, 0, cudaMemcpyDeviceToHost, stream));
  TOMO_CUDA_CHECK(cudaStreamSynchronize(stream));
  return n;
}

// The ceiling of the adds: `total` float4 atomics (all ones) into c4's n voxels by warps of one
// pattern. random: every lane its own hashed voxel; box: a warp's lanes a 4×4×2 block of voxels at
// a hashed base (neighbouring patches' corners share 32-byte sectors as these do); line: 32
// consecutive voxels. scalar: the same count of one-float atomics at random voxels.
enum class RedPattern { random, box, line, scalar };

__device__ __forceinline__ unsigned red_hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

template <RedPattern kPattern>
__global__ void __launch_bounds__(256) red_ceiling_kernel(float4* c4, int nx, int ny, int nz, std::int64_t total) {
  const std::int64_t n = static_cast<std::int64_t>(nx) * ny * nz;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t t0 = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const float4 one = make_float4(1.f, 1.f, 1.f, 1.f);
  for (std::int64_t t = t0; t < total; t += threads) {
    const std::int64_t warp_step = t >> 5;
    const unsigned h = red_hash(static_cast<unsigned>(warp_step) * 2654435761u + 12345u);
    if constexpr (kPattern == RedPattern::random || kPattern == RedPattern::scalar) {
      const std::int64_t v = red_hash(static_cast<unsigned>(t) * 2246822519u + 7u) % static_cast<unsigned>(n);
      if constexpr (kPattern == RedPattern::scalar)
        atomicAdd(reinterpret_cast<float*>(c4 + v), 1.0f);
      else
        atomicAdd(c4 + v, one);
    } else if constexpr (kPattern == RedPattern::box) {
      const int i = static_cast<int>(h % static_cast<unsigned>(nx - 3)) + (lane & 3);
      const int j = static_cast<int>((h >> 8) % static_cast<unsigned>(ny - 3)) + ((lane >> 2) & 3);
      const int k = static_cast<int>((h >> 16) % static_cast<unsigned>(nz - 1)) + (lane >> 4);
      atomicAdd(c4 + i + static_cast<std::int64_t>(nx) * (j + static_cast<std::int64_t>(ny) * k), one);
    } else {
      const std::int64_t v = (static_cast<std::int64_t>(h % static_cast<unsigned>(n - 32)) & ~std::int64_t{31}) + lane;
      atomicAdd(c4 + v, one);
    }
  }
}

inline void launch_red_ceiling(RedPattern pattern, float4* c4, int nx, int ny, int nz, std::int64_t total,
                               int sms, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(8 * sms);  // 2048 threads an SM
  switch (pattern) {
    case RedPattern::random: red_ceiling_kernel<RedPattern::random><<<blocks, 256, 0, stream>>>(c4, nx, ny, nz, total); break;
    case RedPattern::box: red_ceiling_kernel<RedPattern::box><<<blocks, 256, 0, stream>>>(c4, nx, ny, nz, total); break;
    case RedPattern::line: red_ceiling_kernel<RedPattern::line><<<blocks, 256, 0, stream>>>(c4, nx, ny, nz, total); break;
    case RedPattern::scalar: red_ceiling_kernel<RedPattern::scalar><<<blocks, 256, 0, stream>>>(c4, nx, ny, nz, total); break;
  }
  TOMO_CUDA_CHECK_LAST();
}

__global__ void __launch_bounds__(kSrtThreads) sym_plain_scatter_kernel(SrtParams p, SymmetricParams sp,
                                                                   const float* __restrict__ g,
                                                                   float4* __restrict__ c4) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  if (s >= static_cast<std::int64_t>(sp.orbits) * p.shells) return;
  const int o = static_cast<int>(s / p.shells), m = static_cast<int>(s % p.shells);
  const int lane = threadIdx.x & 31;
  const int first = sp.orbit_first[o], last = sp.orbit_first[o + 1];
  float4 value;
  {
    const SymmetryPass<float>& ps = sp.passes[first];
    value = make_float4(__ldg(g + static_cast<std::int64_t>(ps.q[0]) * p.shells + m),
                        __ldg(g + static_cast<std::int64_t>(ps.q[1]) * p.shells + m),
                        __ldg(g + static_cast<std::int64_t>(ps.q[2]) * p.shells + m),
                        __ldg(g + static_cast<std::int64_t>(ps.q[3]) * p.shells + m));
  }
  if (value.x == 0.0f && value.y == 0.0f && value.z == 0.0f && value.w == 0.0f) return;  // the whole warp
  for (int pi = first; pi < last; ++pi) {
    const SymmetryPass<float> ps = sp.passes[pi];
    const ShellFrame<float>& f = ps.frame;
    const ShellCap<float> c = shell_cap(f, shell_radius(p, m), p.h);
    for_each_ring(c, lane, [&](const ShellRing<float>& r) {
      const unsigned mask = (r.n_phi & 1) ? ps.mask_odd : ps.mask_even;
      if (mask == 0) return;  // uniform: r is the warp's
      const float4 v = masked_terms(mask, r.area, value);
      for (int j = lane; j < r.n_phi; j += 32) {
        float x, y, z;
        shell_point(f, c, r, j, &x, &y, &z);
        trilinear_visit(p.grid, x, y, z, [&](int n, float w) {
          atomicAdd(c4 + n, make_float4(w * v.x, w * v.y, w * v.z, w * v.w));
        });
      }
    });
  }
}

inline void launch_sym_plain_scatter(const SrtParams& p, const SymmetricParams& sp, const float* g, float4* c4,
                                    float* alpha, cudaStream_t stream) {
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  if (N <= 0) return;
  TOMO_CUDA_CHECK(cudaMemsetAsync(c4, 0, N * sizeof(float4), stream));
  const std::int64_t warps = static_cast<std::int64_t>(sp.orbits) * p.shells;
  if (warps > 0) {
    const unsigned blocks = static_cast<unsigned>((warps + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
    sym_plain_scatter_kernel<<<blocks, kSrtThreads, 0, stream>>>(p, sp, g, c4);
    TOMO_CUDA_CHECK_LAST();
  }
  launch_symmetric_deinterleave(p, sp, c4, alpha, stream);
}

}  // namespace tomo::oat::cuda_detail

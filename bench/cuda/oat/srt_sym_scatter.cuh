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

// Probe of the merged form: the held sums kept but nothing added (a store never taken for finite
// data), so the time is the enumeration and patch arithmetic alone.
struct NoAddsProbe {
  static constexpr bool kShiftable = false;
  __device__ __forceinline__ static void flush(const GridParams<float>&, const SymHold& h, float4* c4) {
    float t = 0.0f;
#pragma unroll
    for (int c = 0; c < 8; ++c) t += h.s[c].x + h.s[c].y + h.s[c].z + h.s[c].w;
    if (isnan(t)) c4[0] = make_float4(t, t, t, t);
  }
};

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

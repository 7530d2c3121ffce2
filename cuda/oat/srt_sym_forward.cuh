// H_srt by the quarter-turn orbits (srt_kernels.hpp launch_srt_symmetric): one warp per (orbit,
// shell sample) walks the orbit's passes and each ring's patches (lane l takes l, l + 32, …), and a
// patch's eight float4 reads of the image interleaved with its turns give its four members'
// trilinear values. The read is a policy so that bench/cuda/oat can time the kernel without its
// reads (on bench_oat's scene it takes 89 of its 148 ms without them: the reads bind it; docs/perf/oat.md).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {

// How the kernel reads the interleaved image: the product through the read-only cache; the bench
// supplies a probe that reads nothing.
struct C4Reads {
  __device__ __forceinline__ float4 operator()(const float4* at) const { return __ldg(at); }
};

template <class Read = C4Reads>
__global__ void __launch_bounds__(kSrtThreads) sym_forward_kernel(SrtParams p, SymmetricParams sp,
                                                                   const float4* __restrict__ c4,
                                                                   float* __restrict__ g) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  if (s >= static_cast<std::int64_t>(sp.orbits) * p.shells) return;
  const int o = static_cast<int>(s / p.shells), m = static_cast<int>(s % p.shells);
  const int lane = threadIdx.x & 31;
  const Read read;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
  const int first = sp.orbit_first[o], last = sp.orbit_first[o + 1];
  for (int pi = first; pi < last; ++pi) {
    const SymmetryPass<float> ps = sp.passes[pi];
    const ShellFrame<float>& f = ps.frame;
    const ShellCap<float> c = shell_cap(f, shell_radius(p, m), p.h);
    for_each_ring(c, lane, [&](const ShellRing<float>& r) {
      const unsigned mask = (r.n_phi & 1) ? ps.mask_odd : ps.mask_even;
      if (mask == 0) return;  // uniform: r is the warp's
      float4 ring = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int j = lane; j < r.n_phi; j += 32) {
        float x, y, z;
        shell_point(f, c, r, j, &x, &y, &z);
        trilinear_visit(p.grid, x, y, z, [&](int n, float w) {
          const float4 a = read(c4 + n);
          ring.x += w * a.x;
          ring.y += w * a.y;
          ring.z += w * a.z;
          ring.w += w * a.w;
        });
      }
      if (mask & 1u) sum.x += r.area * ring.x;
      if (mask & 2u) sum.y += r.area * ring.y;
      if (mask & 4u) sum.z += r.area * ring.z;
      if (mask & 8u) sum.w += r.area * ring.w;
    });
  }
  sum.x = warp_sum(sum.x);
  sum.y = warp_sum(sum.y);
  sum.z = warp_sum(sum.z);
  sum.w = warp_sum(sum.w);
  if (lane == 0) {
    const SymmetryPass<float>& ps = sp.passes[first];
    g[static_cast<std::int64_t>(ps.q[0]) * p.shells + m] = sum.x;
    g[static_cast<std::int64_t>(ps.q[1]) * p.shells + m] = sum.y;
    g[static_cast<std::int64_t>(ps.q[2]) * p.shells + m] = sum.z;
    g[static_cast<std::int64_t>(ps.q[3]) * p.shells + m] = sum.w;
  }
}

// u = H_srt α given c4, the interleaved image (launch_srt_symmetric makes it).
template <class Read = C4Reads>
void launch_sym_forward_as(const SrtParams& p, const SymmetricParams& sp, const float4* c4, float* g,
                           cudaStream_t stream) {
  const std::int64_t warps = static_cast<std::int64_t>(sp.orbits) * p.shells;
  if (warps <= 0) return;
  const unsigned blocks = static_cast<unsigned>((warps + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
  sym_forward_kernel<Read><<<blocks, kSrtThreads, 0, stream>>>(p, sp, c4, g);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

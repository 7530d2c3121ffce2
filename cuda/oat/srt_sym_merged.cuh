// H_srtᵀ by the quarter-turn orbits (srt_kernels.hpp launch_srt_symmetric_adjoint), its adds merged
// across shells (bench/cuda/oat/srt_merged_scatter.cuh's idea for one transducer): a warp owns one orbit and
// kSymMergeShells consecutive shells (a lane each for the caps and rings of every pass), lane l
// walks patch (i, j0 + l) of ring i through all of them, and while the trilinear base voxel stays
// the same it sums the four members' eight corner terms in registers (eight float4), added to the
// interleaved image by eight float4 atomics when the base moves. Every patch of every pass is
// visited once with kernel_math's weights; the members' masks by ring parity as the forward's.
// Ring i lies at nearly the same arc length from the axis on neighbouring shells, so a lane's
// patches step radially by c₀Δt (0.075 mm on the paper scene, 0.2 mm voxels) and their base voxel
// repeats, and when it moves (mostly by one voxel along one axis) only the four corners that leave
// the 2×2×2 block are added: fewer atomics than one per patch and corner (the kernel is bound by
// them: 104 ms of its 370 on the bench without them). The register bound and the two refinements
// are template parameters so that bench/cuda/oat compares the other forms.
#pragma once
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.hpp"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {

inline constexpr int kSymMergeShells = 32;  // shells per warp: one per lane

struct SymHold {
  int i0 = INT_MIN, j0 = 0, k0 = 0;
  float4 s[8];
};

__device__ __forceinline__ void sym_hold_reset(SymHold& h, int i0, int j0, int k0) {
  h.i0 = i0, h.j0 = j0, h.k0 = k0;
#pragma unroll
  for (int c = 0; c < 8; ++c) h.s[c] = make_float4(0.f, 0.f, 0.f, 0.f);
}

__device__ __forceinline__ void sym_hold_flush(const GridParams<float>& g, const SymHold& h, float4* c4) {
  if (h.i0 == INT_MIN) return;
#pragma unroll
  for (int c = 0; c < 2; ++c)
#pragma unroll
    for (int b = 0; b < 2; ++b)
#pragma unroll
      for (int a = 0; a < 2; ++a) {
        const int i = h.i0 + a, j = h.j0 + b, k = h.k0 + c;
        if (i < 0 || j < 0 || k < 0 || i >= g.nx || j >= g.ny || k >= g.nz) continue;
        atomicAdd(c4 + i + static_cast<std::int64_t>(g.nx) * (j + static_cast<std::int64_t>(g.ny) * k),
                  h.s[a + 2 * b + 4 * c]);
      }
}

__device__ __forceinline__ float4 masked_terms(unsigned mask, float area, float4 value) {
  return make_float4((mask & 1u) ? area * value.x : 0.0f, (mask & 2u) ? area * value.y : 0.0f,
                     (mask & 4u) ? area * value.z : 0.0f, (mask & 8u) ? area * value.w : 0.0f);
}

// The base voxel moves by d = ±1 along axis A: the four corners on the side that leaves the 2×2×2
// block are added to c4, the four that stay move to their places in the moved block, and the side
// that enters starts at zero.
template <int A, int kLeave>
__device__ __forceinline__ void sym_hold_shift_side(const GridParams<float>& g, SymHold& h, float4* c4) {
#pragma unroll
  for (int n = 0; n < 8; ++n) {
    const int a = n & 1, b = (n >> 1) & 1, c = n >> 2;
    const int side = A == 0 ? a : A == 1 ? b : c;
    if (side != kLeave) continue;
    const int i = h.i0 + a, j = h.j0 + b, k = h.k0 + c;
    if (i >= 0 && j >= 0 && k >= 0 && i < g.nx && j < g.ny && k < g.nz)
      atomicAdd(c4 + i + static_cast<std::int64_t>(g.nx) * (j + static_cast<std::int64_t>(g.ny) * k), h.s[n]);
    const int m = n ^ (1 << A);  // the same corner on the staying side
    h.s[n] = h.s[m];
    h.s[m] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  const int d = kLeave == 0 ? 1 : -1;
  if (A == 0) h.i0 += d;
  else if (A == 1) h.j0 += d;
  else h.k0 += d;
}

template <int A>
__device__ __forceinline__ void sym_hold_shift(const GridParams<float>& g, SymHold& h, int d, float4* c4) {
  if (d > 0) sym_hold_shift_side<A, 0>(g, h, c4);
  else if (d < 0) sym_hold_shift_side<A, 1>(g, h, c4);
}

// How a lane's held sums reach the image: the product adds them (float4 atomics; a block that
// moves by one voxel adds only its leaving corners). bench/cuda/oat supplies a probe without adds.
struct AtomicAdds {
  static constexpr bool kShiftable = true;
  __device__ __forceinline__ static void flush(const GridParams<float>& g, const SymHold& h, float4* c4) {
    sym_hold_flush(g, h, c4);
  }
};

// Warp (orbit o, shell block b): shells b·kSymMergeShells … + 31. Blocks of kSrtThreads; registers
// bounded for kMinBlocks resident blocks per SM (1: unbounded). kStaged: each ring's 32 records
// (n_phi, sin θ, cos θ, R, the four terms) go through shared memory, two broadcast reads a shell
// instead of eight shuffles; kShift: when the base voxel moves by at most one along each axis, only
// the corners leaving the 2×2×2 block are added and the others shift (a one-axis move: four
// atomics instead of eight); Flush: AtomicAdds, or a bench probe. The product runs both kStaged
// and kShift; bench/cuda/oat times the others.
template <int kMinBlocks, bool kStaged = true, bool kShift = true, class Flush = AtomicAdds>
__global__ void __launch_bounds__(kSrtThreads, kMinBlocks) sym_merged_scatter_kernel(SrtParams p, SymmetricParams sp,
                                                                          const float* __restrict__ g,
                                                                          float4* __restrict__ c4) {
  const int blocks_per_o = (p.shells + kSymMergeShells - 1) / kSymMergeShells;
  const std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  if (w >= static_cast<std::int64_t>(sp.orbits) * blocks_per_o) return;  // the whole warp
  const int o = static_cast<int>(w / blocks_per_o), m0 = static_cast<int>(w % blocks_per_o) * kSymMergeShells;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int first = sp.orbit_first[o], last = sp.orbit_first[o + 1];
  const int my_m = m0 + lane;
  float4 value = make_float4(0.f, 0.f, 0.f, 0.f);
  if (my_m < p.shells) {
    const SymmetryPass<float>& ps = sp.passes[first];
    value = make_float4(__ldg(g + static_cast<std::int64_t>(ps.q[0]) * p.shells + my_m),
                        __ldg(g + static_cast<std::int64_t>(ps.q[1]) * p.shells + my_m),
                        __ldg(g + static_cast<std::int64_t>(ps.q[2]) * p.shells + my_m),
                        __ldg(g + static_cast<std::int64_t>(ps.q[3]) * p.shells + my_m));
  }
  const bool any = value.x != 0.0f || value.y != 0.0f || value.z != 0.0f || value.w != 0.0f;
  const GridParams<float>& gr = p.grid;
  const float inv = 1.0f / gr.ds;
  __shared__ float4 staged[kStaged ? kSrtWarpsPerBlock : 1][32][2];
  float4(*mine)[2] = staged[kStaged ? (threadIdx.x >> 5) : 0];
  auto flush = [&](const SymHold& h) { Flush::flush(gr, h, c4); };
  for (int pi = first; pi < last; ++pi) {
    const SymmetryPass<float> ps = sp.passes[pi];
    const ShellFrame<float>& f = ps.frame;
    ShellCap<float> cap{0, 1.0f, 0.0f, p.h};
    if (any) cap = shell_cap(f, shell_radius(p, my_m), p.h);
    const float sin_half = cap.n_theta > 0 ? half_step_sine(cap) : 0.0f;
    const int rings = static_cast<int>(__reduce_max_sync(kFullMask, static_cast<unsigned>(cap.n_theta)));
    for (int i = 0; i < rings; ++i) {
      ShellRing<float> r{0, 0.0f, 0.0f, 1.0f};
      if (i < cap.n_theta) r = srt_ring(cap, i, sin_half);
      const float4 v = masked_terms((r.n_phi & 1) ? ps.mask_odd : ps.mask_even, r.area, value);
      const int longest = static_cast<int>(__reduce_max_sync(kFullMask, static_cast<unsigned>(r.n_phi)));
      if constexpr (kStaged) {
        __syncwarp();  // the previous ring's records are read
        mine[lane][0] = make_float4(__int_as_float(r.n_phi), r.sin_t, r.cos_t, cap.R);
        mine[lane][1] = v;
        __syncwarp();
      }
      for (int jb = 0; jb < longest; jb += 32) {
        const int j = jb + lane;
        SymHold hold;
        for (int l = 0; l < kSymMergeShells; ++l) {
          int n_phi;
          float4 vl;
          ShellRing<float> rl;
          ShellCap<float> cl;
          if constexpr (kStaged) {
            const float4 a = mine[l][0];
            n_phi = __float_as_int(a.x);
            if (jb >= n_phi) continue;  // uniform over the warp
            vl = mine[l][1];
            rl = {n_phi, 0.0f, a.y, a.z};
            cl = {1, a.w, 0.0f, p.h};
          } else {
            n_phi = __shfl_sync(kFullMask, r.n_phi, l);
            if (jb >= n_phi) continue;  // uniform over the warp
            vl = make_float4(__shfl_sync(kFullMask, v.x, l), __shfl_sync(kFullMask, v.y, l),
                             __shfl_sync(kFullMask, v.z, l), __shfl_sync(kFullMask, v.w, l));
            rl = {n_phi, 0.0f, __shfl_sync(kFullMask, r.sin_t, l), __shfl_sync(kFullMask, r.cos_t, l)};
            cl = {1, __shfl_sync(kFullMask, cap.R, l), 0.0f, p.h};
          }
          if (vl.x == 0.0f && vl.y == 0.0f && vl.z == 0.0f && vl.w == 0.0f) continue;  // uniform
          if (j >= n_phi) continue;
          float x, y, z;
          shell_point(f, cl, rl, j, &x, &y, &z);
          TrilinearBase t;
          if (!trilinear_base(gr, inv, x, y, z, &t)) continue;
          const int i0 = t.i0, j0 = t.j0, k0 = t.k0;
          if (i0 != hold.i0 || j0 != hold.j0 || k0 != hold.k0) {
            if (kShift && Flush::kShiftable && hold.i0 != INT_MIN && abs(i0 - hold.i0) <= 1 && abs(j0 - hold.j0) <= 1 &&
                abs(k0 - hold.k0) <= 1) {
              sym_hold_shift<0>(gr, hold, i0 - hold.i0, c4);
              sym_hold_shift<1>(gr, hold, j0 - hold.j0, c4);
              sym_hold_shift<2>(gr, hold, k0 - hold.k0, c4);
            } else {
              flush(hold);
              sym_hold_reset(hold, i0, j0, k0);
            }
          }
#pragma unroll
          for (int c = 0; c < 2; ++c)
#pragma unroll
            for (int b = 0; b < 2; ++b)
#pragma unroll
              for (int a = 0; a < 2; ++a) {
                const float wt = t.wx[a] * t.wy[b] * t.wz[c];
                float4& h = hold.s[a + 2 * b + 4 * c];
                h.x += wt * vl.x;
                h.y += wt * vl.y;
                h.z += wt * vl.z;
                h.w += wt * vl.w;
              }
        }
        flush(hold);
      }
    }
  }
}

// α = H_srtᵀ g (c4: N float4 scratch, overwritten).
template <int kMinBlocks, bool kStaged = true, bool kShift = true, class Flush = AtomicAdds>
void launch_sym_merged_as(const SrtParams& p, const SymmetricParams& sp, const float* g, float4* c4, float* alpha,
                               cudaStream_t stream) {
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  if (N <= 0) return;
  TOMO_CUDA_CHECK(cudaMemsetAsync(c4, 0, N * sizeof(float4), stream));
  const std::int64_t warps =
      static_cast<std::int64_t>(sp.orbits) * ((p.shells + kSymMergeShells - 1) / kSymMergeShells);
  if (warps > 0) {
    const unsigned blocks = static_cast<unsigned>((warps + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
    sym_merged_scatter_kernel<kMinBlocks, kStaged, kShift, Flush><<<blocks, kSrtThreads, 0, stream>>>(p, sp, g, c4);
    TOMO_CUDA_CHECK_LAST();
  }
  launch_symmetric_deinterleave(p, sp, c4, alpha, stream);
}

}  // namespace tomo::oat::cuda_detail

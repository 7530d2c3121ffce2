// H_srtᵀ by the quarter-turn orbits (srt_kernels.hpp launch_srt_symmetric_adjoint), its adds merged
// across shells (bench/cuda/oat/srt_merged_scatter.cuh's idea for one transducer): a warp owns one orbit and
// kSymMergeShells consecutive shells (a lane each for the caps and rings of every pass), lane l
// walks patch (i, j0 + l) of ring i through all of them, and while the trilinear base voxel stays
// the same it sums the four members' eight corner terms in registers (eight float4), added to the
// interleaved image by float4 atomics when the base moves. Every patch of every pass is visited
// once with kernel_math's weights; the members' masks by ring parity as the forward's. Ring i lies
// at nearly the same arc length from the axis on neighbouring shells, so a lane's patches step
// radially by c₀Δt (0.075 mm on the paper scene, 0.2 mm voxels), their base voxel repeats, and when
// it moves (mostly by one voxel along one axis) only the corners that leave the 2×2×2 block are
// added (parity slots below): about 3 atomics a patch visit instead of 8. The kernel is bound by them:
// as many float4 atomics at random addresses take longer than the whole kernel (docs/perf/oat.md).
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

__device__ __forceinline__ float4 masked_terms(unsigned mask, float area, float4 value) {
  return make_float4((mask & 1u) ? area * value.x : 0.0f, (mask & 2u) ? area * value.y : 0.0f,
                     (mask & 4u) ? area * value.z : 0.0f, (mask & 8u) ? area * value.w : 0.0f);
}

// A lane's eight held sums are kept by voxel parity: slot n holds the block's voxel whose
// coordinate along axis A is, mod 2, bit A of n. When the base voxel moves by at most one along
// each axis (the common case), a voxel that enters the 2×2×2 block takes the slot of the one that
// leaves on the same side, so nothing moves: the slots that leave are one mask, added by one code
// path whatever the axes and directions (lanes do not diverge by move, and a diagonal move adds
// no entering corner's zero). Forms that lost to this one (adding all eight on every move; moving
// the staying corners in registers) are measured in docs/perf/oat.md and kept in git history.

// Adds the slots in `leave` and zeroes them. Slot n's voxel in the block at (i0, j0, k0) is
// (i0 + (bit0(n) ^ i0 mod 2), …): slot 0's (even along every axis) plus ±1, ±nx, ±nx·ny by n's
// bits. Blocks wholly inside the grid (all but those at its faces) skip the per-voxel bounds.
template <class Adder>
__device__ __forceinline__ void sym_parity_add(const GridParams<float>& g, SymHold& h, unsigned leave, float4* c4,
                                               Adder& add) {
  const int pi = h.i0 & 1, pj = h.j0 & 1, pk = h.k0 & 1;
  const std::int64_t plane = static_cast<std::int64_t>(g.nx) * g.ny;
  const std::int64_t sx = pi ? -1 : 1, sy = pj ? -g.nx : g.nx, sz = pk ? -plane : plane;
  float4* const corner = c4 + (h.i0 + pi) + g.nx * static_cast<std::int64_t>(h.j0 + pj) + plane * (h.k0 + pk);
  const bool inside = h.i0 >= 0 && h.j0 >= 0 && h.k0 >= 0 && h.i0 + 1 < g.nx && h.j0 + 1 < g.ny && h.k0 + 1 < g.nz;
#pragma unroll
  for (int n = 0; n < 8; ++n) {
    if (!((leave >> n) & 1u)) continue;
    const int i = h.i0 + ((n & 1) ^ pi), j = h.j0 + (((n >> 1) & 1) ^ pj), k = h.k0 + ((n >> 2) ^ pk);
    if (inside || (i >= 0 && j >= 0 && k >= 0 && i < g.nx && j < g.ny && k < g.nz))
      add(corner + ((n & 1) ? sx : 0) + ((n & 2) ? sy : 0) + ((n & 4) ? sz : 0), h.s[n]);
    h.s[n] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
}

// The slots that leave when the block moves from h's base to (i0, j0, k0): all eight unless every
// axis moves by at most one; else, along each axis that moves, those whose parity is the leaving
// voxel's (the old base on a step up, the one above it on a step down).
__device__ __forceinline__ unsigned sym_parity_leaving(const SymHold& h, int i0, int j0, int k0) {
  const int di = i0 - h.i0, dj = j0 - h.j0, dk = k0 - h.k0;
  if (abs(di) > 1 || abs(dj) > 1 || abs(dk) > 1) return 0xFFu;
  unsigned leave = 0;
  if (di) leave |= ((h.i0 + (di < 0)) & 1) ? 0xAAu : 0x55u;
  if (dj) leave |= ((h.j0 + (dj < 0)) & 1) ? 0xCCu : 0x33u;
  if (dk) leave |= ((h.k0 + (dk < 0)) & 1) ? 0xF0u : 0x0Fu;
  return leave;
}

// How a lane's held sums reach the image: the product adds each by a float4 atomic. The kernel
// holds one Adder a thread and calls done() when the thread's work ends; bench/cuda/oat supplies
// probes that count the adds or replace them by a register sum.
struct AtomicAdds {
  __device__ __forceinline__ void operator()(float4* at, float4 v) { atomicAdd(at, v); }
  __device__ __forceinline__ void done() {}
};

// Warp (orbit o, shell block b): shells b·kSymMergeShells … + 31. Blocks of kSrtThreads; registers
// bounded for kMinBlocks resident blocks per SM (1: unbounded). Each ring's 32 records (n_phi,
// sin θ, cos θ, R, the four terms) go through shared memory, two broadcast reads a shell. Adder:
// AtomicAdds, or a bench probe.
template <int kMinBlocks, class Adder = AtomicAdds>
__global__ void __launch_bounds__(kSrtThreads, kMinBlocks) sym_merged_scatter_kernel(SrtParams p, SymmetricParams sp,
                                                                          const float* __restrict__ g,
                                                                          float4* __restrict__ c4) {
  const int blocks_per_o = (p.shells + kSymMergeShells - 1) / kSymMergeShells;
  const std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  if (w >= static_cast<std::int64_t>(sp.orbits) * blocks_per_o) return;  // the whole warp
  Adder add;
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
  __shared__ float4 staged[kSrtWarpsPerBlock][32][2];
  float4(*mine)[2] = staged[threadIdx.x >> 5];
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
      __syncwarp();  // the previous ring's records are read
      mine[lane][0] = make_float4(__int_as_float(r.n_phi), r.sin_t, r.cos_t, cap.R);
      mine[lane][1] = v;
      __syncwarp();
      for (int jb = 0; jb < longest; jb += 32) {
        const int j = jb + lane;
        SymHold hold;
        // Patch j's azimuth on the last shell that had it: ring i has as many patches on
        // neighbouring shells but where its length crosses a patch, so the sine and cosine repeat.
        int az_n = 0;
        float az_s = 0.0f, az_c = 1.0f;
        for (int l = 0; l < kSymMergeShells; ++l) {
          const float4 a = mine[l][0];
          const int n_phi = __float_as_int(a.x);
          if (jb >= n_phi) continue;  // uniform over the warp
          const float4 vl = mine[l][1];
          const ShellRing<float> rl{n_phi, 0.0f, a.y, a.z};
          const ShellCap<float> cl{1, a.w, 0.0f, p.h};
          if (vl.x == 0.0f && vl.y == 0.0f && vl.z == 0.0f && vl.w == 0.0f) continue;  // uniform
          if (j >= n_phi) continue;
          if (n_phi != az_n) {  // n_phi is the warp's
            shell_azimuth(j, n_phi, &az_s, &az_c);
            az_n = n_phi;
          }
          float x, y, z;
          shell_point_at(f, cl, rl, az_s, az_c, &x, &y, &z);
          TrilinearBase t;
          if (!trilinear_base(gr, inv, x, y, z, &t)) continue;
          const int i0 = t.i0, j0 = t.j0, k0 = t.k0;
          if (i0 != hold.i0 || j0 != hold.j0 || k0 != hold.k0) {
            if (hold.i0 == INT_MIN) sym_hold_reset(hold, i0, j0, k0);
            else
              sym_parity_add(gr, hold, sym_parity_leaving(hold, i0, j0, k0), c4, add);
            hold.i0 = i0, hold.j0 = j0, hold.k0 = k0;
          }
          // Corner (a, b, c) of the block sits in slot (a ^ i0 mod 2, …): the weights swapped to match.
          const float wx0 = (i0 & 1) ? t.wx[1] : t.wx[0], wx1 = (i0 & 1) ? t.wx[0] : t.wx[1];
          const float wy0 = (j0 & 1) ? t.wy[1] : t.wy[0], wy1 = (j0 & 1) ? t.wy[0] : t.wy[1];
          const float wz0 = (k0 & 1) ? t.wz[1] : t.wz[0], wz1 = (k0 & 1) ? t.wz[0] : t.wz[1];
          const float wxs[2] = {wx0, wx1}, wys[2] = {wy0, wy1}, wzs[2] = {wz0, wz1};
#pragma unroll
          for (int n = 0; n < 8; ++n) {
            const float wt = wxs[n & 1] * wys[(n >> 1) & 1] * wzs[n >> 2];
            float4& h = hold.s[n];
            h.x += wt * vl.x;
            h.y += wt * vl.y;
            h.z += wt * vl.z;
            h.w += wt * vl.w;
          }
        }
        if (hold.i0 != INT_MIN) sym_parity_add(gr, hold, 0xFFu, c4, add);
      }
    }
  }
  add.done();
}

// α = H_srtᵀ g (c4: N float4 scratch, overwritten).
template <int kMinBlocks, class Adder = AtomicAdds>
void launch_sym_merged_as(const SrtParams& p, const SymmetricParams& sp, const float* g, float4* c4, float* alpha,
                               cudaStream_t stream) {
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  if (N <= 0) return;
  TOMO_CUDA_CHECK(cudaMemsetAsync(c4, 0, N * sizeof(float4), stream));
  const std::int64_t warps =
      static_cast<std::int64_t>(sp.orbits) * ((p.shells + kSymMergeShells - 1) / kSymMergeShells);
  if (warps > 0) {
    const unsigned blocks = static_cast<unsigned>((warps + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
    sym_merged_scatter_kernel<kMinBlocks, Adder><<<blocks, kSrtThreads, 0, stream>>>(p, sp, g, c4);
    TOMO_CUDA_CHECK_LAST();
  }
  launch_symmetric_deinterleave(p, sp, c4, alpha, stream);
}

}  // namespace tomo::oat::cuda_detail

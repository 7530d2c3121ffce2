// Device definitions shared by the oat FBP's pinned and deferred kernels (fbp_pinned_kernels.cu,
// fbp_deferred_kernels.cu; fbp_kernels.hpp "Time windows in shared memory"): their launch
// constants, window entries (E, F), per-transducer records, tile loads and the pair geometry.
#pragma once
#include <cuda_runtime.h>

#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_math.cuh"
#include "cuda/oat/fbp_window.cuh"

namespace tomo::oat::cuda_detail {

// Per-launch constants (kernel parameters: the FFMAs read them from the constant bank, no
// registers): kq[m] = (2m+1)·Δs, cq[m] = ((m+½)·Δs)², zc = ((kV−1)/2)·Δs (samples); near = ½ − eps.
// Pinned (fbp_kernels.hpp): z = kr + offset, offset = slot + ½ + tau (a float, tau ≥ eps),
// lies in [slot, 2·slot) = 2^L·[1, 2), so its float bits are fixed above bit 23 − L: the window
// byte offset is (bits >> (20 − L)) & ((slot − 1)·8) (sh, bmask), frac(z) is bits & fmask, and
// floor(z) − slot is the cpu's k − kmin unless 1 + frac(z)·2^−L < thr, thr ≥ 1 + (eps + tau)·2^−L
// (then z's error δ, |δ| ≤ eps, and tau cannot carry z − tau − δ across an integer); expo = 127 + L;
// band = (thr − 1)·2^L, the same test as z − ⌊z⌋ < band, for a z outside the window too (slow path).
struct LeanConsts {
  float kq[8], cq[8];
  float zc;
  float near;
  float offset, thr, band;
  unsigned sh, bmask, fmask, expo;
};

// Window entry j of a transducer whose window starts at kmin, from the table's (M_k, D_k), k =
// kmin + j: (E, F) = (M + D·(½C − j), 1.5·D), C = t_min/Δt + ½ + kmin, hc = ½C rounded to float
// once per transducer. hc − j rounds at most once (exact while |hc − j| ≤ |hc|), so E carries
// the roundings of hc and hc − j (u relative on the ½d_s·D they stand for) and its own: no double
// arithmetic (its quarter-rate conversions would be a large part of a tile's update work). j as a
// float by the magic constant (two full-rate adds, no I2F).
__device__ __forceinline__ float2 lean_entry(float2 md, float hc, int j) {
  const float jf = __fadd_rn(__int_as_float(j + __float_as_int(kFbpMagic)), -kFbpMagic);
  return make_float2(fmaf(md.y, __fsub_rn(hc, jf), md.x), 1.5f * md.y);
}

// One transducer of a tile as every thread of the block reads it: one array (separate ones cost
// an address computation each per transducer in SASS). Position in samples, negc = −C + offset,
// hc = ½C − 1.5·offset, the window's first entry kmin, far (see load_lean_tile).
struct __align__(16) LeanRecord {
  float x, y, z, negc;
  float hc;
  int kmin, far, pad;
};

// The voxel of pair m, side hi (z_c + (m+½)Δs) or lo, and its squared distance A_m ± kq[m]·dz_c.
template <int kV>
__device__ __forceinline__ constexpr int pair_voxel(int m, bool hi) {
  return hi ? kV / 2 + m : kV / 2 - 1 - m;
}

// d² of update i (0 … 7) of batch b: pair m = 4b + i/2, the hi side for even i.
__device__ __forceinline__ float batch_d2(const LeanConsts& lc, int b, int i, float base, float dz_c) {
  const int m = 4 * b + (i >> 1);
  return fmaf((i & 1) ? -lc.kq[m] : lc.kq[m], dz_c, base + lc.cq[m]);
}

// The sums of a batch: a[v] += inv·(E + z·F), z the pinned kr.
template <int kV>
__device__ __forceinline__ void batch_sums(int b, const float* inv, const float* x, const float2* T, float* a) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int v = pair_voxel<kV>(4 * b + (i >> 1), !(i & 1));
    a[v] = fmaf(inv[i], fmaf(x[i], T[i].y, T[i].x), a[v]);
  }
}

// The launch constants of a pinned or deferred launch (fbp_pinned_kernels.cu): kq, cq, zc from the
// voxel pitch and shape, near from eps_lean, and the pinned offset, thr, band and bit masks.
LeanConsts lean_consts(const FbpParams& p, float eps_lean, const FbpSharedShape& sh);

// Phases 1 and 2 of a tile: the records (x, y, z, kmin), −C + offset and ½C − 1.5·offset in float
// (offset the pinned slot + ½ + tau: then (E, F) hold E − offset·F so that E + kr·F = E' + z·F),
// `far` (the transducer at least one sample from the box), then the windows of (E, F) (0 outside
// the table), loaded coalesced by the whole block.
template <int kThreads>
__device__ __forceinline__ void load_lean_tile(const FbpParams& p, const FbpSharedShape& sh, int shift,
                                               const float4* __restrict__ tr, const float2* __restrict__ table,
                                               int q0, int n, int tid, LeanRecord* rec, float2* win,
                                               double offset) {
  const double tau0h = p.tau0_d + 0.5;
  __syncthreads();  // the previous tile is no longer read
  if (tid < n) {
    const float4 s = tr[q0 + tid];
    const float dist2 = box_dist2(p, s);
    const int kmin = window_start(p, s, dist2);
    rec[tid] = {s.x, s.y, s.z, static_cast<float>(offset - (tau0h + kmin)),
                static_cast<float>(0.5 * (tau0h + kmin) - 1.5 * offset), kmin, dist2 >= 1.0f, 0};
  }
  __syncthreads();
  for (int e = tid; e < n * sh.slot; e += kThreads) {
    const int t = e >> shift, j = e & (sh.slot - 1), kmin = rec[t].kmin, k = kmin + j;
    const float2 md = static_cast<unsigned>(k) < static_cast<unsigned>(p.width)
                          ? __ldg(table + static_cast<size_t>(q0 + t) * p.width + k)
                          : make_float2(0.0f, 0.0f);
    win[e] = lean_entry(md, rec[t].hc, j);
  }
  __syncthreads();
}

}  // namespace tomo::oat::cuda_detail

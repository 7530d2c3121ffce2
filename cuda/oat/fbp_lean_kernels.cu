// oat FBP CUDA kernels, the lean form of the shared-memory variant (fbp_kernels.hpp, "The lean
// variant"): the same per-block time windows, holding (E_j, F_j) instead of (M_k, D_k), so that an
// update is one fma pair under one reciprocal square root with no split fraction and one sum, the
// distances of a column's voxels taken in pairs about its centre, 8 or 16 voxels per thread.
#include <cuda_runtime.h>

#include <cmath>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_lean.cuh"
#include "cuda/oat/fbp_math.cuh"
#include "cuda/oat/fbp_window.cuh"

namespace tomo::oat::cuda_detail {
namespace {

// The split of kr = k̃ − ½ − kmin: j = round(kr) (its float bits less the magic's) and g = kr − j.
struct LeanSplit {
  float g;
  unsigned bits;
};
__device__ __forceinline__ LeanSplit lean_split(float kr) {
  const float r = __fadd_rn(kr, kFbpMagic);
  return {__fsub_rn(kr, __fadd_rn(r, -kFbpMagic)), __float_as_uint(r)};
}

// A slow path's entry j of transducer q: from the window where j lies in it, else (checked modes:
// an index outside it) from the table in global memory, transformed as the window's are.
__device__ __forceinline__ float2 slow_window_entry(const FbpParams& p, int q, int kmin, int j, const float2* w,
                                                   int slot, float hc, const float2* __restrict__ table) {
  if (static_cast<unsigned>(j) < static_cast<unsigned>(slot)) return w[j];
  const int k = kmin + j;
  const float2 md = static_cast<unsigned>(k) < static_cast<unsigned>(p.width)
                        ? __ldg(table + static_cast<size_t>(q) * p.width + k)
                        : make_float2(0.0f, 0.0f);
  return lean_entry(md, hc, j);
}

// The slow path of one exact/checked update: kr and the entry (E, F), kr refined in double where
// k̃ lies within eps of a sample, the entry from the window or else (checked only: an index
// outside it) from the table in global memory, transformed as the window's are. Returns (kr, E, F).
__device__ __forceinline__ float3 lean_slow(const FbpParams& p, float near, int q, int3 c, int v, float kr, int kmin,
                                           const float* hc, const float2* w, int slot,
                                           const float2* __restrict__ table) {
  const LeanSplit sp = lean_split(kr);
  int j = static_cast<int>(sp.bits - __float_as_uint(kFbpMagic));
  if (!(fabsf(sp.g) <= near)) {
    const FbpSplit r = fbp_refine(p.positions, p.voxel_d, p.inv_c0dt_d, p.tau0_d, q, c.x, c.y, c.z + v);
    j = r.k - kmin;
    kr = __fadd_rn(static_cast<float>(j), r.g);
  }
  const float2 T = slow_window_entry(p, q, kmin, j, w, slot, *hc, table);
  return make_float3(kr, T.x, T.y);
}

// One fast (or, kProbe, compute-probe) update: a += inv·(E + kr·F).
template <bool kClamp, bool kProbe>
__device__ __forceinline__ void fast_update(float d2, float negc, unsigned off8, unsigned last8, const float2* win,
                                            float& a) {
  const float inv = fbp_rsqrt(d2);           // c₀Δt/d
  const float kr = fmaf(d2, inv, negc);      // d_s − C = k̃ − ½ − kmin
  const unsigned byte = __float_as_uint(__fadd_rn(kr, kFbpMagic)) * 8u + off8;
  float2 T;
  if constexpr (kProbe)
    T = make_float2(__uint_as_float(byte), kr);  // the compute probe: no shared read
  else
    T = *reinterpret_cast<const float2*>(reinterpret_cast<const char*>(win) + (kClamp ? min(byte, last8) : byte));
  a = fmaf(inv, fmaf(kr, T.y, T.x), a);
}

// Eight exact/checked updates (pairs 4b … 4b + 3): every split and shared read first, then one
// branch per thread to the slow path of the voxels that need it, then the sums.
template <int kV, bool kChecked, bool kClamp>
__device__ __forceinline__ void exact_batch(const FbpParams& p, const LeanConsts& lc, int b, int q, int3 c, float dz_c,
                                            float base, float negc, unsigned off8, unsigned last8, int kmin,
                                            const float* hc, const float2* win, const float2* w, int slot,
                                            const float2* table, float* a) {
  float inv[8], kr[8];
  float2 T[8];
  bool any = false;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float d2 = batch_d2(lc, b, i, base, dz_c);
    inv[i] = fbp_rsqrt(d2);
    kr[i] = fmaf(d2, inv[i], negc);
    const LeanSplit sp = lean_split(kr[i]);
    bool slow = !(fabsf(sp.g) <= lc.near);
    if constexpr (kChecked) {
      const unsigned j = sp.bits - __float_as_uint(kFbpMagic);
      slow = slow || j >= static_cast<unsigned>(slot);
      T[i] = w[min(j, static_cast<unsigned>(slot - 1))];
    } else {
      const unsigned byte = sp.bits * 8u + off8;
      T[i] = *reinterpret_cast<const float2*>(reinterpret_cast<const char*>(win) + (kClamp ? min(byte, last8) : byte));
    }
    any |= slow;
  }
  if (any) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      // The test again, on an opaque copy of kr: shared with the fast path's, the compiler kept
      // every voxel's outcome in a predicate there (two FSETPs per update instead of one).
      float krs = kr[i];
      asm("" : "+f"(krs));
      const LeanSplit sp = lean_split(krs);
      const bool out = kChecked && sp.bits - __float_as_uint(kFbpMagic) >= static_cast<unsigned>(slot);
      if (!(fabsf(sp.g) <= lc.near) || out) {
        const float3 e = lean_slow(p, lc.near, q, c, pair_voxel<kV>(4 * b + (i >> 1), !(i & 1)), krs, kmin, hc,
                                   w, slot, table);
        kr[i] = e.x;
        T[i] = make_float2(e.y, e.z);
      }
    }
  }
  batch_sums<kV>(b, inv, kr, T, a);
}

// The slow path of one pinned update: z refined in double where k̃ lies within eps of a sample (z =
// j + g + offset), or (checked) z outside [slot, 2·slot): the entry from the window or else from
// the table in global memory. Returns (z, E', F).
__device__ __forceinline__ float3 pinned_slow(const FbpParams& p, const LeanConsts& lc, int q, int3 c, int v, float z,
                                             int kmin, int slot, const float* hp, const float2* w,
                                             const float2* __restrict__ table) {
  const float fl = floorf(z);  // z − fl is exact: frac(z) wherever z lies
  int j;
  if (z - fl < lc.band) {
    const FbpSplit r = fbp_refine(p.positions, p.voxel_d, p.inv_c0dt_d, p.tau0_d, q, c.x, c.y, c.z + v);
    j = r.k - kmin;
    z = static_cast<float>(static_cast<double>(j) + r.g + static_cast<double>(lc.offset));
  } else {
    j = static_cast<int>(fminf(fmaxf(fl, -1e8f), 1e8f)) - slot;  // finite even for a NaN z
  }
  const float2 T = slow_window_entry(p, q, kmin, j, w, slot, *hp, table);
  return make_float3(z, T.x, T.y);
}

// Eight pinned updates (pairs 4b … 4b + 3; FbpLeanMode::pinned / pinned_checked): the index and the
// test straight from z's bits (no magic-constant rounding, no g): SHF + LOP3 for the byte offset,
// LOP3 + FSETP for the test, where exact_batch spends FADD + LEA and FADD + FADD + FSETP. The
// masked index always lies in the transducer's window, so no clamp either.
template <int kV, bool kChecked>
__device__ __forceinline__ void pinned_batch(const FbpParams& p, const LeanConsts& lc, int b, int q, int3 c,
                                             float dz_c, float base, float negz, unsigned tbyte, int kmin,
                                             const float* hp, const float2* win, const float2* w, int slot,
                                             const float2* table, float* a) {
  float inv[8], z[8];
  float2 T[8];
  bool any = false;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float d2 = batch_d2(lc, b, i, base, dz_c);
    inv[i] = fbp_rsqrt(d2);
    z[i] = fmaf(d2, inv[i], negz);
    const unsigned bits = __float_as_uint(z[i]);
    // | tbyte: the transducer's window starts at a multiple of slot·8, clear of the masked bits, so
    // one LOP3 masks and places (an add of tbyte took another IMAD: t is not in a uniform register).
    const unsigned byte = ((bits >> lc.sh) & lc.bmask) | tbyte;
    T[i] = *reinterpret_cast<const float2*>(reinterpret_cast<const char*>(win) + byte);
    bool slow = __uint_as_float((bits & lc.fmask) | 0x3F800000u) < lc.thr;
    if constexpr (kChecked) slow = slow || (bits >> 23) != lc.expo;
    any |= slow;
  }
  if (any) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float zs = z[i];  // opaque copy: the test again here, not kept in predicates (exact_batch)
      asm("" : "+f"(zs));
      const unsigned bits = __float_as_uint(zs);
      const bool out = kChecked && (bits >> 23) != lc.expo;
      if (__uint_as_float((bits & lc.fmask) | 0x3F800000u) < lc.thr || out) {
        const float3 e = pinned_slow(p, lc, q, c, pair_voxel<kV>(4 * b + (i >> 1), !(i & 1)), zs, kmin, slot, hp, w,
                                     table);
        z[i] = e.x;
        T[i] = make_float2(e.y, e.z);
      }
    }
  }
  batch_sums<kV>(b, inv, z, T, a);
}

// One transducer's updates of a thread's kV voxels.
template <int kV, FbpLeanMode kMode, bool kClamp>
__device__ __forceinline__ void lean_updates(const FbpParams& p, const LeanConsts& lc, int q, int3 c, float dz_c,
                                             float base, float negc, unsigned off8, unsigned last8, int kmin,
                                             const float* hc, const float2* win, const float2* w, int slot,
                                             const float2* table, float* a) {
  if constexpr (kMode == FbpLeanMode::fast || kMode == FbpLeanMode::no_lds) {
    constexpr bool kProbe = kMode == FbpLeanMode::no_lds;
#pragma unroll
    for (int m = 0; m < kV / 2; ++m) {
      const float A = base + lc.cq[m];
      fast_update<kClamp, kProbe>(fmaf(lc.kq[m], dz_c, A), negc, off8, last8, win, a[pair_voxel<kV>(m, true)]);
      fast_update<kClamp, kProbe>(fmaf(-lc.kq[m], dz_c, A), negc, off8, last8, win, a[pair_voxel<kV>(m, false)]);
    }
  } else if constexpr (kMode == FbpLeanMode::pinned || kMode == FbpLeanMode::pinned_checked) {
    const unsigned tbyte = static_cast<unsigned>(w - win) * 8u;
#pragma unroll
    for (int b = 0; b < kV / 8; ++b)
      pinned_batch<kV, kMode == FbpLeanMode::pinned_checked>(p, lc, b, q, c, dz_c, base, negc, tbyte, kmin, hc, win,
                                                              w, slot, table, a);
  } else {
#pragma unroll
    for (int b = 0; b < kV / 8; ++b)
      exact_batch<kV, kMode == FbpLeanMode::checked, kClamp>(p, lc, b, q, c, dz_c, base, negc, off8, last8, kmin, hc,
                                                             win, w, slot, table, a);
  }
}

template <int kV, FbpLeanMode kMode, int kU>
__global__ void __launch_bounds__(SharedShape<kV>::kThreads)
    fbp_lean_kernel(FbpParams p, LeanConsts lc, FbpSharedShape sh, const float4* __restrict__ tr,
                    const float2* __restrict__ table, float* __restrict__ image) {
  constexpr int kThreads = SharedShape<kV>::kThreads;
  extern __shared__ float2 win[];  // tile × slot entries (E, F)
  __shared__ LeanRecord rec[kFbpSharedMaxTile];
  constexpr bool kPinned = kMode == FbpLeanMode::pinned || kMode == FbpLeanMode::pinned_checked;
  const int tid = static_cast<int>(threadIdx.x), shift = __ffs(sh.slot) - 1;
  const int3 c = shared_column<kV>(tid);
  const float x = c.x * p.voxel_samples, y = c.y * p.voxel_samples, z0 = c.z * p.voxel_samples;
  const float zc = fmaf(static_cast<float>(c.z), p.voxel_samples, lc.zc);  // the column's centre
  const unsigned last8 = static_cast<unsigned>(sh.tile * sh.slot - 1) * 8u;  // the last entry's byte offset
  float a[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) a[v] = 0.0f;
  // Threads outside the grid compute too (they load tiles, their box is the block's) but write nothing.
  for (int q0 = 0; q0 < p.transducers; q0 += sh.tile) {
    const int n = min(sh.tile, p.transducers - q0);
    load_lean_tile<kThreads>(p, sh, shift, tr, table, q0, n, tid, rec, win, kPinned ? lc.offset : 0.0);
#pragma unroll kU  // pinned16u: two transducers per iteration share the loop's uniform work
    for (int t = 0; t < n; ++t) {
      const LeanRecord s = rec[t];  // broadcasts: every thread reads the same transducer
      const float negc = s.negc;
      const int kmin = s.kmin;
      // bits(kr + magic)·8 + off8 = the byte offset of entry j = round(kr) in the tile's windows.
      const unsigned off8 = ((static_cast<unsigned>(t) << shift) - __float_as_uint(kFbpMagic)) * 8u;
      const float2* w = win + (t << shift);
      const float dx = x - s.x, dy = y - s.y, dz_c = zc - s.z;
      const float dxy2 = fmaf(dx, dx, dy * dy);
      if constexpr (kMode == FbpLeanMode::lds_only) {
        lds_probe_updates<kV>(p, dxy2, z0 - s.z, kmin, w, sh.slot, a);
      } else {
        const float base = fmaf(dz_c, dz_c, dxy2);
        const float* hc = &rec[t].hc;  // read on the slow path only
        if (kPinned || s.far)  // block-uniform; pinned: the masked index needs no clamp
          lean_updates<kV, kMode, false>(p, lc, q0 + t, c, dz_c, base, negc, off8, last8, kmin, hc, win, w, sh.slot,
                                         table, a);
        else
          lean_updates<kV, kMode, true>(p, lc, q0 + t, c, dz_c, base, negc, off8, last8, kmin, hc, win, w, sh.slot,
                                        table, a);
      }
    }
  }
  if (c.x >= p.nx || c.y >= p.ny) return;
#pragma unroll
  for (int v = 0; v < kV; ++v)
    if (c.z + v < p.nz) image[(static_cast<size_t>(c.z + v) * p.ny + c.y) * p.nx + c.x] = a[v];
}

template <int kV, FbpLeanMode kMode, int kU = 1>
void launch(const FbpParams& p, const LeanConsts& lc, const FbpSharedShape& sh, const float4* tr, const float2* table,
            float* image, cudaStream_t stream) {
  const dim3 grid((p.nx + kFbpBoxX - 1) / kFbpBoxX, (p.ny + kFbpBoxY - 1) / kFbpBoxY,
                  (p.nz + kFbpBoxZ - 1) / kFbpBoxZ);
  fbp_lean_kernel<kV, kMode, kU>
      <<<grid, SharedShape<kV>::kThreads, fbp_shared_bytes(sh), stream>>>(p, lc, sh, tr, table, image);
}

template <int kV>
void launch_mode(const FbpParams& p, const LeanConsts& lc, const FbpSharedShape& sh, const float4* tr,
                 const float2* table, float* image, FbpLeanMode mode, cudaStream_t stream) {
  switch (mode) {
    case FbpLeanMode::exact: launch<kV, FbpLeanMode::exact>(p, lc, sh, tr, table, image, stream); break;
    case FbpLeanMode::checked: launch<kV, FbpLeanMode::checked>(p, lc, sh, tr, table, image, stream); break;
    case FbpLeanMode::fast: launch<kV, FbpLeanMode::fast>(p, lc, sh, tr, table, image, stream); break;
    case FbpLeanMode::no_lds: launch<kV, FbpLeanMode::no_lds>(p, lc, sh, tr, table, image, stream); break;
    case FbpLeanMode::lds_only: launch<kV, FbpLeanMode::lds_only>(p, lc, sh, tr, table, image, stream); break;
    case FbpLeanMode::pinned: launch<kV, FbpLeanMode::pinned>(p, lc, sh, tr, table, image, stream); break;
    case FbpLeanMode::pinned_checked:
      launch<kV, FbpLeanMode::pinned_checked>(p, lc, sh, tr, table, image, stream);
      break;
    case FbpLeanMode::pinned_unrolled: launch<kV, FbpLeanMode::pinned, 2>(p, lc, sh, tr, table, image, stream); break;
  }
}

}  // namespace

LeanConsts lean_consts(const FbpParams& p, float eps_lean, const FbpSharedShape& sh) {
  LeanConsts lc{};
  const double h = p.voxel_samples;  // the float pitch the voxel positions are computed with
  for (int m = 0; m < 8; ++m) {
    lc.kq[m] = static_cast<float>((2 * m + 1) * h);
    lc.cq[m] = static_cast<float>((m + 0.5) * h * (m + 0.5) * h);
  }
  lc.zc = static_cast<float>(0.5 * (sh.voxels_per_thread - 1) * h);
  lc.near = 0.5f - eps_lean;
  int L = 0;
  while ((1 << L) < sh.slot) ++L;
  const double eps = eps_lean, want = sh.slot + 0.5 + eps;  // offset rounded up: tau ≥ eps
  lc.offset = static_cast<float>(want);
  if (static_cast<double>(lc.offset) < want) lc.offset = std::nextafter(lc.offset, 1e30f);
  const double tau = static_cast<double>(lc.offset) - sh.slot - 0.5, thr = 1.0 + (eps + tau) / sh.slot;
  lc.thr = static_cast<float>(thr);
  if (static_cast<double>(lc.thr) < thr) lc.thr = std::nextafter(lc.thr, 2.0f);
  lc.band = (lc.thr - 1.0f) * static_cast<float>(sh.slot);  // both steps exact
  lc.sh = static_cast<unsigned>(20 - L);
  lc.bmask = static_cast<unsigned>(sh.slot - 1) * 8u;
  lc.fmask = (1u << (23 - L)) - 1u;
  lc.expo = static_cast<unsigned>(127 + L);
  return lc;
}

void launch_fbp_lean(const FbpParams& p, float eps_lean, const FbpSharedShape& sh, const float4* transducers,
                     const float2* table, float* image, FbpLeanMode mode, cudaStream_t stream) {
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  const bool pow2 = sh.slot >= 8 && sh.slot <= 2048 && (sh.slot & (sh.slot - 1)) == 0;
  const int static_bytes = kFbpSharedMaxTile * static_cast<int>(sizeof(LeanRecord));  // 48 KiB: static + dynamic
  if (!pow2 || sh.tile < 1 || sh.tile > kFbpSharedMaxTile || fbp_shared_bytes(sh) + static_bytes > 48 * 1024 ||
      (sh.voxels_per_thread != 8 && sh.voxels_per_thread != 16))
    throw Error(str_cat("oat cuda fbp (lean): bad shape: ", sh.voxels_per_thread,
                        " voxels per thread (8 or 16), slot ", sh.slot, " (a power of two, 8 ... 2048), tile ", sh.tile,
                        " (1 ... ", kFbpSharedMaxTile, "), at most 48 KiB of shared memory"));
  const LeanConsts lc = lean_consts(p, eps_lean, sh);
  if (sh.voxels_per_thread == 8)
    launch_mode<8>(p, lc, sh, transducers, table, image, mode, stream);
  else
    launch_mode<16>(p, lc, sh, transducers, table, image, mode, stream);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

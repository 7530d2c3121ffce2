// The oat FBP's pinned kernel (fbp_kernels.hpp "Time windows in shared memory"): per-block time
// windows of (E_j, F_j), an update is one fma pair under one reciprocal square root, the distances
// of a column's voxels taken in pairs about its centre, the window index and the near-sample test
// from the bits of an exponent-pinned z, near-sample pairs refined in double in the loop. The
// deferred kernel's fallback where its lists overflow; lean_consts serves both.
#include <cuda_runtime.h>

#include <cmath>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_math.cuh"
#include "cuda/oat/fbp_pinned.cuh"
#include "cuda/oat/fbp_window.cuh"

namespace tomo::oat::cuda_detail {
namespace {

// A slow path's entry j of transducer q: from the window where j lies in it, else from the table
// in global memory, transformed as the window's are.
__device__ __forceinline__ float2 slow_window_entry(const FbpParams& p, int q, int kmin, int j, const float2* w,
                                                   int slot, float hc, const float2* __restrict__ table) {
  if (static_cast<unsigned>(j) < static_cast<unsigned>(slot)) return w[j];
  const int k = kmin + j;
  const float2 md = static_cast<unsigned>(k) < static_cast<unsigned>(p.width)
                        ? __ldg(table + static_cast<size_t>(q) * p.width + k)
                        : make_float2(0.0f, 0.0f);
  return lean_entry(md, hc, j);
}

// The slow path of one pinned update: z refined in double where k̃ lies within eps of a sample (z =
// j + g + offset): the entry from the window or else from the table in global memory. Returns
// (z, E', F).
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

// Eight pinned updates (pairs 4b … 4b + 3): the index and the test straight from z's bits (no
// magic-constant rounding, no g): SHF + LOP3 for the byte offset, LOP3 + FSETP for the test. The
// masked index always lies in the transducer's window, so no clamp either.
template <int kV>
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
    any |= __uint_as_float((bits & lc.fmask) | 0x3F800000u) < lc.thr;
  }
  if (any) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      // The test again, on an opaque copy of z: shared with the fast path's, the compiler would keep
      // every voxel's outcome in a predicate there (two FSETPs per update instead of one).
      float zs = z[i];
      asm("" : "+f"(zs));
      const unsigned bits = __float_as_uint(zs);
      if (__uint_as_float((bits & lc.fmask) | 0x3F800000u) < lc.thr) {
        const float3 e = pinned_slow(p, lc, q, c, pair_voxel<kV>(4 * b + (i >> 1), !(i & 1)), zs, kmin, slot, hp, w,
                                     table);
        z[i] = e.x;
        T[i] = make_float2(e.y, e.z);
      }
    }
  }
  batch_sums<kV>(b, inv, z, T, a);
}

template <int kV>
__global__ void __launch_bounds__(SharedShape<kV>::kThreads)
    fbp_pinned_kernel(FbpParams p, LeanConsts lc, FbpSharedShape sh, const float4* __restrict__ tr,
                      const float2* __restrict__ table, float* __restrict__ image) {
  constexpr int kThreads = SharedShape<kV>::kThreads;
  extern __shared__ float2 win[];  // tile × slot entries (E', F), pinned
  __shared__ LeanRecord rec[kFbpSharedMaxTile];
  const int tid = static_cast<int>(threadIdx.x), shift = __ffs(sh.slot) - 1;
  const int3 c = shared_column<kV>(tid);
  const float x = c.x * p.voxel_samples, y = c.y * p.voxel_samples;
  const float zc = fmaf(static_cast<float>(c.z), p.voxel_samples, lc.zc);  // the column's centre
  float a[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) a[v] = 0.0f;
  // Threads outside the grid compute too (they load tiles, their box is the block's) but write nothing.
  for (int q0 = 0; q0 < p.transducers; q0 += sh.tile) {
    const int n = min(sh.tile, p.transducers - q0);
    load_lean_tile<kThreads>(p, sh, shift, tr, table, q0, n, tid, rec, win, lc.offset);
#pragma unroll 1
    for (int t = 0; t < n; ++t) {
      const LeanRecord s = rec[t];  // broadcasts: every thread reads the same transducer
      const float* hc = &rec[t].hc;  // read on the slow path only
      const float2* w = win + (t << shift);
      const unsigned tbyte = static_cast<unsigned>(w - win) * 8u;
      const float dx = x - s.x, dy = y - s.y, dz_c = zc - s.z;
      const float base = fmaf(dz_c, dz_c, fmaf(dx, dx, dy * dy));
#pragma unroll
      for (int b = 0; b < kV / 8; ++b)
        pinned_batch<kV>(p, lc, b, q0 + t, c, dz_c, base, s.negc, tbyte, s.kmin, hc, win, w, sh.slot, table, a);
    }
  }
  if (c.x >= p.nx || c.y >= p.ny) return;
#pragma unroll
  for (int v = 0; v < kV; ++v)
    if (c.z + v < p.nz) image[(static_cast<size_t>(c.z + v) * p.ny + c.y) * p.nx + c.x] = a[v];
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

void launch_fbp_pinned(const FbpParams& p, float eps_lean, const FbpSharedShape& sh, const float4* transducers,
                       const float2* table, float* image, cudaStream_t stream) {
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  const bool pow2 = sh.slot >= 8 && sh.slot <= 2048 && (sh.slot & (sh.slot - 1)) == 0;
  const int static_bytes = kFbpSharedMaxTile * static_cast<int>(sizeof(LeanRecord));  // 48 KiB: static + dynamic
  if (!pow2 || sh.tile < 1 || sh.tile > kFbpSharedMaxTile || fbp_shared_bytes(sh) + static_bytes > 48 * 1024 ||
      sh.voxels_per_thread != 8)
    throw Error(str_cat("oat cuda fbp (pinned): bad shape: ", sh.voxels_per_thread, " voxels per thread (8), slot ",
                        sh.slot, " (a power of two, 8 ... 2048), tile ", sh.tile, " (1 ... ", kFbpSharedMaxTile,
                        "), at most 48 KiB of shared memory"));
  const LeanConsts lc = lean_consts(p, eps_lean, sh);
  const dim3 grid((p.nx + kFbpBoxX - 1) / kFbpBoxX, (p.ny + kFbpBoxY - 1) / kFbpBoxY,
                  (p.nz + kFbpBoxZ - 1) / kFbpBoxZ);
  fbp_pinned_kernel<8><<<grid, SharedShape<8>::kThreads, fbp_shared_bytes(sh), stream>>>(p, lc, sh, transducers,
                                                                                          table, image);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

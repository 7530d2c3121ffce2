// The oat FBP's deferred kernel, what the cuda backend runs (fbp_kernels.hpp "The deferred
// kernel"): the pinned update with no slow path in the main loop, the pairs next to a sample
// recorded in per-block lists, and a fix-up pass that adds their terms computed in double.
#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_pinned.cuh"
#include "cuda/oat/fbp_math.cuh"
#include "cuda/oat/fbp_window.cuh"

namespace tomo::oat::cuda_detail {
namespace {

// One update (pinned, fbp_pinned.cuh LeanConsts): the byte offset of the window entry from z's bits,
// and the near-sample test from its fraction bits as an integer compare (frac(z)·2^(23−L) <
// (thr − 1)·2²³, the pinned modes' test): a pair that fails adds inv = 0 (selected, no branch)
// and sets its bit in `mask`. A NaN z (a voxel centre on a transducer) has fraction bits 0: recorded.
__device__ __forceinline__ void deferred_update(const LeanConsts& lc, unsigned flim, float d2, float negz,
                                                unsigned tbyte, const float2* win, unsigned bit, float& a,
                                                unsigned& mask) {
  const float inv = fbp_rsqrt(d2);
  const float z = fmaf(d2, inv, negz);
  const unsigned bits = __float_as_uint(z);
  const float2 T =
      *reinterpret_cast<const float2*>(reinterpret_cast<const char*>(win) + (((bits >> lc.sh) & lc.bmask) | tbyte));
  const bool near = (bits & lc.fmask) < flim;
  if (near) mask |= bit;
  a = fmaf(near ? 0.0f : inv, fmaf(z, T.y, T.x), a);
}

// Appends this thread's entry (if mask) to the block's segment; `hit` = the warp's ballot of
// mask != 0, so one shared atomic per warp, its lanes placed by the popcount below them.
__device__ __forceinline__ void deferred_append(unsigned hit, unsigned mask, int q, int tid, unsigned* count,
                                                unsigned long long* seg, unsigned per_block) {
  const int lane = tid & 31, leader = __ffs(hit) - 1;
  unsigned base = 0;
  if (lane == leader) base = atomicAdd(count, static_cast<unsigned>(__popc(hit)));
  base = __shfl_sync(0xffffffffu, base, leader);
  if (mask) {
    const unsigned i = base + static_cast<unsigned>(__popc(hit & ((1u << lane) - 1u)));
    if (i < per_block)
      seg[i] = (static_cast<unsigned long long>(q) << 32) | (static_cast<unsigned long long>(tid) << 16) | mask;
  }
}

// 12 blocks per SM, what 16 KiB of windows per block allow on an H100/H200: ≤ 42 registers at 8
// voxels per thread.
template <int kV>
__global__ void __launch_bounds__(SharedShape<kV>::kThreads, 12)
    fbp_deferred_kernel(FbpParams p, LeanConsts lc, FbpSharedShape sh, const float4* __restrict__ tr,
                        const float2* __restrict__ table, float* __restrict__ image, FbpDeferredList list) {
  constexpr int kThreads = SharedShape<kV>::kThreads;
  extern __shared__ float2 win[];  // tile × slot entries (E', F), pinned
  __shared__ LeanRecord rec[kFbpSharedMaxTile];
  __shared__ unsigned count;
  const int tid = static_cast<int>(threadIdx.x), shift = __ffs(sh.slot) - 1;
  const int3 c = shared_column<kV>(tid);
  const float x = c.x * p.voxel_samples, y = c.y * p.voxel_samples;
  const float zc = fmaf(static_cast<float>(c.z), p.voxel_samples, lc.zc);  // the column's centre
  const unsigned flim = __float_as_uint(lc.thr) - 0x3F800000u;             // (thr − 1)·2²³
  const unsigned blk = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned long long* seg = list.entries + static_cast<size_t>(blk) * list.per_block;
  // Threads outside the grid compute too (they load tiles, their box is the block's) but record
  // and write nothing.
  unsigned valid = 0;
  if (c.x < p.nx && c.y < p.ny)
    for (int v = 0; v < kV; ++v)
      if (c.z + v < p.nz) valid |= 1u << v;
  if (tid == 0) count = 0;  // load_lean_tile's first barrier publishes it
  float a[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) a[v] = 0.0f;
  for (int q0 = 0; q0 < p.transducers; q0 += sh.tile) {
    const int n = min(sh.tile, p.transducers - q0);
    load_lean_tile<kThreads>(p, sh, shift, tr, table, q0, n, tid, rec, win, lc.offset);
    for (int t = 0; t < n; ++t) {
      const LeanRecord s = rec[t];  // broadcasts: every thread reads the same transducer
      const unsigned tbyte = static_cast<unsigned>(t << shift) * 8u;
      const float dx = x - s.x, dy = y - s.y, dz_c = zc - s.z;
      const float base = fmaf(dz_c, dz_c, fmaf(dx, dx, dy * dy));
      unsigned mask = 0;
#pragma unroll
      for (int m = 0; m < kV / 2; ++m) {
        const float A = base + lc.cq[m];
        constexpr int kLo = kV / 2 - 1;
        deferred_update(lc, flim, fmaf(lc.kq[m], dz_c, A), s.negc, tbyte, win, 1u << (kV / 2 + m),
                        a[pair_voxel<kV>(m, true)], mask);
        deferred_update(lc, flim, fmaf(-lc.kq[m], dz_c, A), s.negc, tbyte, win, 1u << (kLo - m),
                        a[pair_voxel<kV>(m, false)], mask);
      }
      mask &= valid;
      const unsigned hit = __ballot_sync(0xffffffffu, mask != 0);
      if (hit) deferred_append(hit, mask, q0 + t, tid, &count, seg, list.per_block);  // warp-uniform
    }
  }
  __syncthreads();
  if (tid == 0) {
    list.counts[blk] = count;
    if (count > list.per_block) *list.overflow = 1u;
  }
  if (c.x >= p.nx || c.y >= p.ny) return;
#pragma unroll
  for (int v = 0; v < kV; ++v)
    if (c.z + v < p.nz) image[(static_cast<size_t>(c.z + v) * p.ny + c.y) * p.nx + c.x] = a[v];
}

// The term of voxel (i, j, kz) and transducer q in double, as the cpu computes it: k̃ = d/(c₀Δt) −
// t_min/Δt, k = ⌊k̃⌋, g = k̃ − k − ½, (M_k, D_k) from the table (0 outside it), c₀Δt·(M + g·D)/d + ½D.
__device__ __forceinline__ double deferred_term(const FbpParams& p, const float2* __restrict__ table, int q, int i,
                                                int j, int kz) {
  const double* s = p.positions + 3 * static_cast<size_t>(q);
  const double dx = i * p.voxel_d - s[0], dy = j * p.voxel_d - s[1], dz = kz * p.voxel_d - s[2];
  const double ds = sqrt(dx * dx + dy * dy + dz * dz) * p.inv_c0dt_d;  // d in samples
  const double kt = ds - p.tau0_d, kf = floor(kt);
  const int k = static_cast<int>(fmin(fmax(kf, -1e9), 1e9));
  const float2 md = static_cast<unsigned>(k) < static_cast<unsigned>(p.width)
                        ? __ldg(table + static_cast<size_t>(q) * p.width + k)
                        : make_float2(0.0f, 0.0f);
  const double M = md.x, D = md.y;
  return (M + (kt - kf - 0.5) * D) / ds + 0.5 * D;
}

// Block (b, ·) adds the entries of the main kernel's block b (gx × gy × gz boxes), strided over
// gridDim.y · blockDim.x threads.
template <int kV>
__global__ void fbp_fixup_kernel(FbpParams p, const float2* __restrict__ table, float* __restrict__ image,
                                 FbpDeferredList list, int gx, int gy) {
  if (*list.overflow) return;  // incomplete lists: the caller runs an exact kernel
  const unsigned b = blockIdx.x;
  const unsigned n = min(list.counts[b], list.per_block);
  const unsigned long long* seg = list.entries + static_cast<size_t>(b) * list.per_block;
  const int bx = static_cast<int>(b % gx), by = static_cast<int>((b / gx) % gy), bz = static_cast<int>(b / (gx * gy));
  for (unsigned e = blockIdx.y * blockDim.x + threadIdx.x; e < n; e += gridDim.y * blockDim.x) {
    const unsigned long long entry = seg[e];
    const int q = static_cast<int>(entry >> 32), tid = static_cast<int>((entry >> 16) & 0xFFFFu);
    unsigned mask = static_cast<unsigned>(entry & 0xFFFFu);
    const int3 c = shared_column<kV>(tid, bx, by, bz);
    while (mask) {
      const int v = __ffs(mask) - 1;
      mask &= mask - 1;
      const float term = static_cast<float>(deferred_term(p, table, q, c.x, c.y, c.z + v));
      atomicAdd(image + (static_cast<size_t>(c.z + v) * p.ny + c.y) * p.nx + c.x, term);
    }
  }
}

dim3 deferred_grid(const FbpParams& p) {
  return dim3((p.nx + kFbpBoxX - 1) / kFbpBoxX, (p.ny + kFbpBoxY - 1) / kFbpBoxY, (p.nz + kFbpBoxZ - 1) / kFbpBoxZ);
}

}  // namespace

int fbp_deferred_blocks(const FbpParams& p) {
  const dim3 g = deferred_grid(p);
  return static_cast<int>(g.x * g.y * g.z);
}

void launch_fbp_deferred(const FbpParams& p, float eps_lean, const FbpSharedShape& sh, const float4* transducers,
                         const float2* table, float* image, const FbpDeferredList& list, cudaStream_t stream) {
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  const bool pow2 = sh.slot >= 8 && sh.slot <= 2048 && (sh.slot & (sh.slot - 1)) == 0;
  const int static_bytes = kFbpSharedMaxTile * static_cast<int>(sizeof(LeanRecord)) + 4;
  if (!pow2 || sh.tile < 1 || sh.tile > kFbpSharedMaxTile || fbp_shared_bytes(sh) + static_bytes > 48 * 1024 ||
      sh.voxels_per_thread != 8 || !list.entries || !list.counts || !list.overflow)
    throw Error(str_cat("oat cuda fbp (deferred): bad shape: ", sh.voxels_per_thread,
                        " voxels per thread (8), slot ", sh.slot, " (a power of two, 8 ... 2048), tile ", sh.tile,
                        " (1 ... ", kFbpSharedMaxTile, "), at most 48 KiB of shared memory, or no list"));
  const LeanConsts lc = lean_consts(p, eps_lean, sh);
  const dim3 grid = deferred_grid(p);
  fbp_deferred_kernel<8><<<grid, SharedShape<8>::kThreads, fbp_shared_bytes(sh), stream>>>(p, lc, sh, transducers,
                                                                                            table, image, list);
  TOMO_CUDA_CHECK_LAST();
}

void launch_fbp_fixup(const FbpParams& p, int voxels_per_thread, const float2* table, float* image,
                      const FbpDeferredList& list, cudaStream_t stream) {
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  const dim3 g = deferred_grid(p);
  // 4 × 256 threads per main block: ~1e4 … 1e5 entries per block on a paper-sized scene (2·eps_lean
  // of 1024 × Q pairs), each an independent chain of loads, a double sqrt and an atomic.
  const dim3 grid(g.x * g.y * g.z, 4);
  const int gx = static_cast<int>(g.x), gy = static_cast<int>(g.y);
  if (voxels_per_thread != 8) throw Error("oat cuda fbp (deferred): the fix-up pass takes 8 voxels per thread");
  fbp_fixup_kernel<8><<<grid, 256, 0, stream>>>(p, table, image, list, gx, gy);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

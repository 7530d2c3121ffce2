// oat FBP CUDA kernels reading the data from per-block time windows staged in shared memory
// (fbp_kernels.hpp, "The shared-memory variant"): the texture kernel is bound by its one fetch per
// voxel-transducer update (89 % of the fetch probe on the H200); here a block of 8×8×16 voxels
// loads each transducer's window of samples once, coalesced, and every update reads shared memory.
#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_math.cuh"
#include "cuda/oat/fbp_window.cuh"

namespace tomo::oat::cuda_detail {
namespace {

// The slow path of one update (k̃ within eps of an integer, or, checked, an index outside the window):
// the split refined in double where needed, the entry from the window or else from the table in
// global memory. Returns (g, M_k, D_k). Inlined, with the double refinement a call: 48 / 56
// registers for 4 / 8 voxels per thread (ptxas), where a called slow path took 64 / 72 and an
// inlined refinement 48 / 72.
__device__ __forceinline__ float3 slow_entry(const double* positions, double voxel, double inv_c0dt, double tau0,
                                          int q, int i, int j, int kz, float g, int k, float near, int kmin,
                                          const float2* window, int slot, const float2* row, int width) {
  FbpSplit sp{g, 0.0f, k};
  if (!(fabsf(g) <= near)) sp = fbp_refine(positions, voxel, inv_c0dt, tau0, q, i, j, kz);
  const int idx = sp.k - kmin;
  float2 T = make_float2(0.0f, 0.0f);
  if (static_cast<unsigned>(idx) < static_cast<unsigned>(slot))
    T = window[idx];
  else if (static_cast<unsigned>(sp.k) < static_cast<unsigned>(width))
    T = __ldg(row + sp.k);
  return make_float3(sp.g, T.x, T.y);
}

// Phases 1 and 2 of a tile: the transducers' records (x, y, z and the window's first entry) and
// their windows of `slot` entries (0 outside the table), loaded coalesced by the whole block;
// `far` (batched kernels, else null): 1 where the transducer is at least one sample from the box.
template <int kThreads>
__device__ __forceinline__ void load_tile(const FbpParams& p, const FbpSharedShape& sh, int shift,
                                          const float4* __restrict__ tr, const float2* __restrict__ table, int q0,
                                          int n, int tid, float4* rec, float2* win, bool* far = nullptr) {
  __syncthreads();  // the previous tile is no longer read
  if (tid < n) {
    const float4 s = tr[q0 + tid];
    const float dist2 = box_dist2(p, s);
    rec[tid] = make_float4(s.x, s.y, s.z, __int_as_float(window_start(p, s, dist2)));
    if (far) far[tid] = dist2 >= 1.0f;
  }
  __syncthreads();
  for (int e = tid; e < n * sh.slot; e += kThreads) {
    const int t = e >> shift;
    const int k = __float_as_int(rec[t].w) + (e & (sh.slot - 1));
    win[e] = static_cast<unsigned>(k) < static_cast<unsigned>(p.width)
                 ? __ldg(table + static_cast<size_t>(q0 + t) * p.width + k)
                 : make_float2(0.0f, 0.0f);
  }
  __syncthreads();
}

// One transducer's updates of a thread's kV voxels, batched (FbpSharedShape::batched, mode exact
// only): first every voxel's split and its shared read, with no branch between them, so the kV
// reads are in flight together and overlap the arithmetic (the unbatched loop ends each voxel in
// the slow-path branch, which keeps the next read behind it: shared-8's time was the sum of its
// read and arithmetic probes); then one branch per thread and transducer to the slow path, which
// refines only the voxels that need it; then the sums. The same operations on the same operands
// as the unbatched exact kernel, so the same image bit for bit (tests). kClamp false: the
// transducer is at least one sample from the block's box, so every d² ≥ ~1, k̃ is finite and its
// entry lies in the window (window_start): the clamp of the byte offset, there only for a NaN k̃
// (a voxel centre on a transducer), is left out.
template <int kV, bool kClamp>
__device__ __forceinline__ void batched_updates(const FbpParams& p, int q, int3 c, float dxy2, float dz0,
                                                float near, unsigned off8, unsigned last8, int kmin,
                                                const float2* win, const float2* w, int slot,
                                                const float2* row, float* a1, float* a2) {
  float inv[kV], g[kV];
  float2 T[kV];
  bool any = false;
#pragma unroll
  for (int v = 0; v < kV; ++v) {
    const float dz = v == 0 ? dz0 : fmaf(static_cast<float>(v), p.voxel_samples, dz0);
    const float d2 = fmaf(dz, dz, dxy2);
    inv[v] = fbp_rsqrt(d2);                                   // c₀Δt/d
    const FbpSplit sp = fbp_split(fmaf(d2, inv[v], -p.tau0h));  // k̃ − ½ = d/(c₀Δt) − tau0h
    g[v] = sp.g;
    const unsigned byte = static_cast<unsigned>(sp.bits) * 8u + off8;
    T[v] = *reinterpret_cast<const float2*>(reinterpret_cast<const char*>(win) + (kClamp ? min(byte, last8) : byte));
    any |= !(fabsf(sp.g) <= near);
  }
  if (any) {
#pragma unroll
    for (int v = 0; v < kV; ++v)
      if (!(fabsf(g[v]) <= near)) {  // refined in double (k from the refinement, so 0 passed)
        const float3 e = slow_entry(p.positions, p.voxel_d, p.inv_c0dt_d, p.tau0_d, q, c.x, c.y, c.z + v, g[v], 0,
                                    near, kmin, w, slot, row, p.width);
        g[v] = e.x;
        T[v] = make_float2(e.y, e.z);
      }
  }
#pragma unroll
  for (int v = 0; v < kV; ++v) {
    a1[v] = fmaf(fmaf(g[v], T[v].y, T[v].x), inv[v], a1[v]);
    a2[v] += T[v].y;
  }
}

template <int kV, FbpSharedMode kMode, bool kBatch = false>
__global__ void __launch_bounds__(SharedShape<kV>::kThreads)
    fbp_shared_kernel(FbpParams p, FbpSharedShape sh, const float4* __restrict__ tr, const float2* __restrict__ table,
                      float* __restrict__ image) {
  constexpr int kThreads = SharedShape<kV>::kThreads;
  extern __shared__ float2 win[];  // tile × slot entries
  __shared__ float4 rec[kFbpSharedMaxTile];
  __shared__ bool far[kFbpSharedMaxTile];  // batched only
  const int tid = static_cast<int>(threadIdx.x), shift = __ffs(sh.slot) - 1;
  const int3 c = shared_column<kV>(tid);
  const float x = c.x * p.voxel_samples, y = c.y * p.voxel_samples, z0 = c.z * p.voxel_samples;
  const float near = 0.5f - p.eps_shared;  // |g| beyond: k̃ within eps of an integer
  const unsigned last8 = static_cast<unsigned>(sh.tile * sh.slot - 1) * 8u;  // the last entry's byte offset
  float a1[kV], a2[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) a1[v] = a2[v] = 0.0f;
  // Threads outside the grid compute too (they load tiles, their box is the block's) but write nothing.
  for (int q0 = 0; q0 < p.transducers; q0 += sh.tile) {
    const int n = min(sh.tile, p.transducers - q0);
    load_tile<kThreads>(p, sh, shift, tr, table, q0, n, tid, rec, win, kBatch ? far : nullptr);
    for (int t = 0; t < n; ++t) {
      const float4 s = rec[t];  // a broadcast: every thread reads the same transducer
      const int kmin = __float_as_int(s.w);
      // k − kmin = bits + off; bits·8 + off8 = the byte offset of entry k in the tile's windows.
      const unsigned off = 0u - __float_as_uint(kFbpMagic) - static_cast<unsigned>(kmin);
      const unsigned off8 = (off + (static_cast<unsigned>(t) << shift)) * 8u;
      const float2* w = win + (t << shift);
      const float dx = x - s.x, dy = y - s.y, dz0 = z0 - s.z;
      const float dxy2 = fmaf(dx, dx, dy * dy);
      if constexpr (kMode == FbpSharedMode::lds_only) {
        lds_probe_updates<kV>(p, dxy2, dz0, kmin, w, sh.slot, a1);
      } else if constexpr (kBatch) {
        static_assert(kMode == FbpSharedMode::exact, "batched: the exact kernel only");
        const float2* row = table + static_cast<size_t>(q0 + t) * p.width;
        if (far[t])  // block-uniform
          batched_updates<kV, false>(p, q0 + t, c, dxy2, dz0, near, off8, last8, kmin, win, w, sh.slot, row, a1, a2);
        else
          batched_updates<kV, true>(p, q0 + t, c, dxy2, dz0, near, off8, last8, kmin, win, w, sh.slot, row, a1, a2);
      } else {
#pragma unroll
        for (int v = 0; v < kV; ++v) {
          const float dz = v == 0 ? dz0 : fmaf(static_cast<float>(v), p.voxel_samples, dz0);
          const float d2 = fmaf(dz, dz, dxy2);
          const float inv = fbp_rsqrt(d2);                   // c₀Δt/d
          FbpSplit sp = fbp_split(fmaf(d2, inv, -p.tau0h));  // k̃ − ½ = d/(c₀Δt) − tau0h
          const unsigned idx = static_cast<unsigned>(sp.bits) + off;  // k − kmin
          bool slow = !(fabsf(sp.g) <= near);
          float2 T;
          if constexpr (kMode == FbpSharedMode::no_lds) {
            T = make_float2(__uint_as_float(idx) * 1e-30f, sp.g * s.w);  // compute probe: no shared read
            slow = false;
          } else if constexpr (kMode == FbpSharedMode::exact) {
            // The window holds every k of the box (window_start), so no range test: the byte offset
            // in one IMAD, clamped to the allocation (a NaN k̃, a voxel centre on a transducer, takes
            // the slow path but must not read outside shared memory meanwhile).
            T = *reinterpret_cast<const float2*>(reinterpret_cast<const char*>(win) +
                                                 min(static_cast<unsigned>(sp.bits) * 8u + off8, last8));
          } else {  // checked
            slow = slow || idx >= static_cast<unsigned>(sh.slot);
            T = w[min(idx, static_cast<unsigned>(sh.slot - 1))];
          }
          if (slow) {
            const float3 e = slow_entry(p.positions, p.voxel_d, p.inv_c0dt_d, p.tau0_d, q0 + t, c.x, c.y, c.z + v,
                                        sp.g, sp.k, near, kmin, w, sh.slot,
                                        table + static_cast<size_t>(q0 + t) * p.width, p.width);
            sp.g = e.x;
            T = make_float2(e.y, e.z);
          }
          a1[v] = fmaf(fmaf(sp.g, T.y, T.x), inv, a1[v]);
          a2[v] += T.y;
        }
      }
    }
  }
  if (c.x >= p.nx || c.y >= p.ny) return;
#pragma unroll
  for (int v = 0; v < kV; ++v)
    if (c.z + v < p.nz)
      image[(static_cast<size_t>(c.z + v) * p.ny + c.y) * p.nx + c.x] = fmaf(p.diff_scale, a2[v], a1[v]);
}

template <int kV, FbpSharedMode kMode, bool kBatch = false>
void launch(const FbpParams& p, const FbpSharedShape& sh, const float4* tr, const float2* table, float* image,
            cudaStream_t stream) {
  const dim3 grid((p.nx + kFbpBoxX - 1) / kFbpBoxX, (p.ny + kFbpBoxY - 1) / kFbpBoxY,
                  (p.nz + kFbpBoxZ - 1) / kFbpBoxZ);
  fbp_shared_kernel<kV, kMode, kBatch>
      <<<grid, SharedShape<kV>::kThreads, fbp_shared_bytes(sh), stream>>>(p, sh, tr, table, image);
}

template <int kV>
void launch_mode(const FbpParams& p, const FbpSharedShape& sh, const float4* tr, const float2* table, float* image,
                 FbpSharedMode mode, cudaStream_t stream) {
  if (sh.batched) {  // launch_fbp_shared admits it with mode exact only
    launch<kV, FbpSharedMode::exact, true>(p, sh, tr, table, image, stream);
    return;
  }
  switch (mode) {
    case FbpSharedMode::exact: launch<kV, FbpSharedMode::exact>(p, sh, tr, table, image, stream); break;
    case FbpSharedMode::checked: launch<kV, FbpSharedMode::checked>(p, sh, tr, table, image, stream); break;
    case FbpSharedMode::no_lds: launch<kV, FbpSharedMode::no_lds>(p, sh, tr, table, image, stream); break;
    case FbpSharedMode::lds_only: launch<kV, FbpSharedMode::lds_only>(p, sh, tr, table, image, stream); break;
  }
}

}  // namespace

void launch_fbp_shared(const FbpParams& p, const FbpSharedShape& sh, const float4* transducers, const float2* table,
                       float* image, FbpSharedMode mode, cudaStream_t stream) {
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  const bool pow2 = sh.slot >= 8 && sh.slot <= 2048 && (sh.slot & (sh.slot - 1)) == 0;
  if (!pow2 || sh.tile < 1 || sh.tile > kFbpSharedMaxTile || fbp_shared_bytes(sh) > 48 * 1024 ||
      (sh.voxels_per_thread != 4 && sh.voxels_per_thread != 8) || (sh.batched && mode != FbpSharedMode::exact))
    throw Error(str_cat("oat cuda fbp (shared): bad shape: ", sh.voxels_per_thread,
                        " voxels per thread (4 or 8), slot ", sh.slot, " (a power of two, 8 ... 2048), tile ", sh.tile,
                        " (1 ... ", kFbpSharedMaxTile, "), at most 48 KiB of shared memory",
                        sh.batched ? ", batched with the exact mode only" : ""));
  if (sh.voxels_per_thread == 4)
    launch_mode<4>(p, sh, transducers, table, image, mode, stream);
  else
    launch_mode<8>(p, sh, transducers, table, image, mode, stream);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

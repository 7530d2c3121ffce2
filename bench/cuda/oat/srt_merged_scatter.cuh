// Bench-only H_srtᵀ forms in the transpose of the forward's own loop order (srt_kernels.cu srt_kernel)
// with the global atomics cut down: a warp owns one transducer and kMergeShells consecutive
// shells (a lane each for the caps and rings), and lane l walks patch (i, j0 + l) of ring i through
// all of them. Ring i of neighbouring shells lies at nearly the same arc length from the axis
// (θ_i ≈ (i + ½)h/R, n_phi ≈ 2π(i + ½)), so the lane's patches step radially by c₀Δt: while their
// trilinear base voxel stays the same, the lane sums the eight weights in registers and adds them
// to α once. Every patch of every shell is visited exactly once with kernel_math's weights (the
// exact transpose; the sums differ from the scatter's by float order). kVector: each x-pair of the
// eight goes out as one float4 atomic (sm_90's vector reductions) where the row allows.
// On one H200 (paper scene of bench_oat, docs/perf/oat.md): scatter 1915 ms, merged 1238, merged
// float4 876, the window below 857 (824 with the azimuth table, 896 without any global add: bound
// by its own per-patch work), the product's gather 816.
#pragma once
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.cuh"
#include "cuda/oat/srt_gather.hpp"

namespace tomo::oat::cuda_detail {

inline constexpr int kMergeShells = 32;  // shells per warp: one per lane

// The eight corner sums of one base voxel (i0, j0, k0), x fastest: s[a + 2b + 4c].
struct MergedCorners {
  int i0 = INT_MIN, j0 = 0, k0 = 0;
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
};

template <bool kVector>
__device__ __forceinline__ void merged_flush(const GridParams<float>& g, const MergedCorners& h, float* alpha) {
  if (h.i0 == INT_MIN) return;
  for (int c = 0; c < 2; ++c) {
    const int k = h.k0 + c;
    if (k < 0 || k >= g.nz) continue;
    for (int b = 0; b < 2; ++b) {
      const int j = h.j0 + b;
      if (j < 0 || j >= g.ny) continue;
      const std::int64_t row = static_cast<std::int64_t>(g.nx) * (j + static_cast<std::int64_t>(g.ny) * k);
      const float w0 = h.s[2 * b + 4 * c], w1 = h.s[1 + 2 * b + 4 * c];
      const int i = h.i0;
      if constexpr (kVector) {
        // Rows start on 16 bytes (nx % 4 == 0, checked by the launcher): the pair's aligned float4.
        const int o = i & 3;
        if (i >= 0 && i + 1 < g.nx && o != 3) {
          float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          if (o == 0) v.x = w0, v.y = w1;
          else if (o == 1) v.y = w0, v.z = w1;
          else v.z = w0, v.w = w1;
          atomicAdd(reinterpret_cast<float4*>(alpha + row + (i - o)), v);
          continue;
        }
      }
      if (i >= 0 && i < g.nx) atomicAdd(alpha + row + i, w0);
      if (i + 1 >= 0 && i + 1 < g.nx) atomicAdd(alpha + row + i + 1, w1);
    }
  }
}

// Warp (q, shell block b): shells m0 = b·kMergeShells … m0 + 31. Blocks of kSrtThreads.
template <bool kVector>
__global__ void __launch_bounds__(kSrtThreads) merged_scatter_kernel(SrtParams p, const float* __restrict__ g,
                                                                      float* __restrict__ alpha) {
  const int blocks_per_q = (p.shells + kMergeShells - 1) / kMergeShells;
  const std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + (threadIdx.x >> 5);
  if (w >= static_cast<std::int64_t>(p.transducers) * blocks_per_q) return;  // the whole warp
  const int q = static_cast<int>(w / blocks_per_q), m = static_cast<int>(w % blocks_per_q) * kMergeShells;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const ShellFrame<float> f = p.frames[q];
  const GridParams<float>& gr = p.grid;
  // Lane l's shell m + l: its value and cap (no rings where the value is 0, as the scatter).
  const int my_m = m + lane;
  const float value = my_m < p.shells ? __ldg(g + static_cast<std::int64_t>(q) * p.shells + my_m) : 0.0f;
  ShellCap<float> cap{0, 1.0f, 0.0f, p.h};
  if (value != 0.0f) cap = shell_cap(f, shell_radius(p, my_m), p.h);
  const float sin_half = cap.n_theta > 0 ? half_step_sine(cap) : 0.0f;
  const int rings = __reduce_max_sync(kFullMask, static_cast<unsigned>(cap.n_theta));
  const float inv = 1.0f / gr.ds;
  for (int i = 0; i < rings; ++i) {
    ShellRing<float> r{0, 0.0f, 0.0f, 1.0f};
    if (i < cap.n_theta) r = srt_ring(cap, i, sin_half);
    const float v = r.area * value;
    const int longest = __reduce_max_sync(kFullMask, static_cast<unsigned>(r.n_phi));
    for (int j0 = 0; j0 < longest; j0 += 32) {
      const int j = j0 + lane;
      MergedCorners hold;
      for (int l = 0; l < kMergeShells; ++l) {
        const int n_phi = __shfl_sync(kFullMask, r.n_phi, l);
        if (j0 >= n_phi) continue;  // uniform over the warp
        const ShellRing<float> rl{n_phi, 0.0f, __shfl_sync(kFullMask, r.sin_t, l), __shfl_sync(kFullMask, r.cos_t, l)};
        const ShellCap<float> cl{1, __shfl_sync(kFullMask, cap.R, l), 0.0f, p.h};
        const float vl = __shfl_sync(kFullMask, v, l);
        if (j >= n_phi) continue;
        float x, y, z;
        shell_point(f, cl, rl, j, &x, &y, &z);
        TrilinearBase t;
        if (!trilinear_base(gr, inv, x, y, z, &t)) continue;
        if (t.i0 != hold.i0 || t.j0 != hold.j0 || t.k0 != hold.k0) {
          merged_flush<kVector>(gr, hold, alpha);
          hold = MergedCorners{t.i0, t.j0, t.k0};
        }
#pragma unroll
        for (int c = 0; c < 2; ++c)
#pragma unroll
          for (int b = 0; b < 2; ++b)
#pragma unroll
            for (int a = 0; a < 2; ++a) hold.s[a + 2 * b + 4 * c] += t.wx[a] * t.wy[b] * t.wz[c] * vl;
      }
      merged_flush<kVector>(gr, hold, alpha);
    }
  }
}

// α = H_srtᵀ g by the merged scatter (α zeroed first); the vector form needs nx % 4 == 0 and falls
// back to scalar atomics otherwise.
inline void launch_merged_scatter(const SrtParams& p, const float* g, float* alpha, bool vector, cudaStream_t stream) {
  if (p.transducers <= 0 || p.shells <= 0) return;
  const std::int64_t n = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  TOMO_CUDA_CHECK(cudaMemsetAsync(alpha, 0, n * sizeof(float), stream));
  const std::int64_t warps =
      static_cast<std::int64_t>(p.transducers) * ((p.shells + kMergeShells - 1) / kMergeShells);
  const unsigned blocks = static_cast<unsigned>((warps + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
  if (vector && p.grid.nx % 4 == 0)
    merged_scatter_kernel<true><<<blocks, kSrtThreads, 0, stream>>>(p, g, alpha);
  else
    merged_scatter_kernel<false><<<blocks, kSrtThreads, 0, stream>>>(p, g, alpha);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

namespace tomo::oat::cuda_detail {

// The merged scatter with a larger window per lane, in shared memory (a lane's own column, so no
// bank conflicts and no atomics there): 8 voxels along x (two aligned float4 groups) × 3 × 3,
// placed ahead of the patches' motion (the sign of the frame's e per axis), so that a lane's run
// of shells lasts until its footprint leaves the window rather than until its base voxel moves.
// A flush adds the touched float4 groups (a bit each) with vector atomics. Needs nx % 4 == 0.
inline constexpr int kWinX = 8, kWinY = 3, kWinZ = 3, kWinCells = kWinX * kWinY * kWinZ;

struct LaneWindow {
  // The window's first voxel (ax a multiple of 4); none yet: far enough below any base that the
  // first patch opens one, near enough that i0 − ax cannot overflow.
  int ax = -(1 << 28), ay = 0, az = 0;
  unsigned touched = 0;              // bit (x group) + 2·(y + 3·z)
};

// kAdds false: a probe that reads and clears the window but adds nothing to α (never taken for
// finite data), the patch arithmetic and window alone.
template <bool kAdds>
__device__ __forceinline__ void window_flush(const GridParams<float>& g, LaneWindow& w, float* cells, float* alpha) {
  unsigned bits = w.touched;
  while (bits) {
    const int bit = __ffs(bits) - 1;
    bits &= bits - 1;
    const int gx = bit & 1, row = bit >> 1, y = row % kWinY, z = row / kWinY;
    float4 v;
    float* c = cells + 32 * (gx * 4 + kWinX * row);
    v.x = c[0], v.y = c[32], v.z = c[64], v.w = c[96];
    c[0] = 0.0f, c[32] = 0.0f, c[64] = 0.0f, c[96] = 0.0f;
    const int i = w.ax + 4 * gx, j = w.ay + y, k = w.az + z;
    if (i < 0 || i >= g.nx || j < 0 || j >= g.ny || k < 0 || k >= g.nz) continue;
    const std::int64_t at = i + static_cast<std::int64_t>(g.nx) * (j + static_cast<std::int64_t>(g.ny) * k);
    if constexpr (kAdds)
      atomicAdd(reinterpret_cast<float4*>(alpha + at), v);
    else if (v.x + v.y + v.z + v.w == 3.0e38f)
      alpha[at] = v.x;
  }
  w.touched = 0;
}

// Points: the patch positions (srt_gather.cuh TablePoints with gp's azimuth table, or shell_point).
struct ShellPoints {
  __device__ __forceinline__ static void at(const ShellFrame<float>& f, const ShellCap<float>& c,
                                            const ShellRing<float>& r, int j, float* x, float* y, float* z,
                                            const GatherParams&) {
    shell_point(f, c, r, j, x, y, z);
  }
};

template <class Points, bool kAdds>
__global__ void __launch_bounds__(kSrtThreads) window_scatter_kernel(SrtParams p, GatherParams gp,
                                                                      const float* __restrict__ g,
                                                                      float* __restrict__ alpha) {
  __shared__ float cells_all[kSrtWarpsPerBlock * kWinCells * 32];
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  float* cells = cells_all + warp * kWinCells * 32 + lane;  // cell c of this lane at cells[32·c]
  for (int c = 0; c < kWinCells; ++c) cells[32 * c] = 0.0f;
  const int blocks_per_q = (p.shells + kMergeShells - 1) / kMergeShells;
  const std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + warp;
  if (w >= static_cast<std::int64_t>(p.transducers) * blocks_per_q) return;  // the whole warp
  const int q = static_cast<int>(w / blocks_per_q), m = static_cast<int>(w % blocks_per_q) * kMergeShells;
  const ShellFrame<float> f = p.frames[q];
  const GridParams<float>& gr = p.grid;
  const int my_m = m + lane;
  const float value = my_m < p.shells ? __ldg(g + static_cast<std::int64_t>(q) * p.shells + my_m) : 0.0f;
  ShellCap<float> cap{0, 1.0f, 0.0f, p.h};
  if (value != 0.0f) cap = shell_cap(f, shell_radius(p, my_m), p.h);
  const float sin_half = cap.n_theta > 0 ? half_step_sine(cap) : 0.0f;
  const int rings = __reduce_max_sync(kFullMask, static_cast<unsigned>(cap.n_theta));
  const float inv = 1.0f / gr.ds;
  // Where the window sits about a new base: ahead along each axis the shells grow towards.
  const int back_x = f.ex < 0.0f ? 4 : 0, back_y = f.ey < 0.0f ? 1 : 0, back_z = f.ez < 0.0f ? 1 : 0;
  for (int i = 0; i < rings; ++i) {
    ShellRing<float> r{0, 0.0f, 0.0f, 1.0f};
    if (i < cap.n_theta) r = srt_ring(cap, i, sin_half);
    const float v = r.area * value;
    const int longest = __reduce_max_sync(kFullMask, static_cast<unsigned>(r.n_phi));
    for (int j0 = 0; j0 < longest; j0 += 32) {
      const int j = j0 + lane;
      LaneWindow win;
      for (int l = 0; l < kMergeShells; ++l) {
        const int n_phi = __shfl_sync(kFullMask, r.n_phi, l);
        if (j0 >= n_phi) continue;  // uniform over the warp
        const ShellRing<float> rl{n_phi, 0.0f, __shfl_sync(kFullMask, r.sin_t, l), __shfl_sync(kFullMask, r.cos_t, l)};
        const ShellCap<float> cl{1, __shfl_sync(kFullMask, cap.R, l), 0.0f, p.h};
        const float vl = __shfl_sync(kFullMask, v, l);
        if (j >= n_phi) continue;
        float x, y, z;
        Points::at(f, cl, rl, j, &x, &y, &z, gp);
        const float fx = (x - gr.x0) * inv, fy = (y - gr.y0) * inv, fz = (z - gr.z0) * inv;
        const float bx = m_floor(fx), by = m_floor(fy), bz = m_floor(fz);
        const int i0 = static_cast<int>(bx), j0b = static_cast<int>(by), k0 = static_cast<int>(bz);
        if (i0 < -1 || j0b < -1 || k0 < -1 || i0 >= gr.nx || j0b >= gr.ny || k0 >= gr.nz) continue;
        int dx = i0 - win.ax, dy = j0b - win.ay, dz = k0 - win.az;
        if (dx < 0 || dx + 1 >= kWinX || dy < 0 || dy + 1 >= kWinY || dz < 0 || dz + 1 >= kWinZ) {
          window_flush<kAdds>(gr, win, cells, alpha);
          win.ax = ((i0 + 4) & ~3) - 4 - back_x;  // i0 & ~3 for i0 ≥ −1 (floor to a multiple of 4)
          if (i0 - win.ax + 1 >= kWinX) win.ax += 4;
          win.ay = j0b - back_y;
          win.az = k0 - back_z;
          dx = i0 - win.ax, dy = j0b - win.ay, dz = k0 - win.az;
        }
        const float wx[2] = {1.0f - (fx - bx), fx - bx};
        const float wy[2] = {1.0f - (fy - by), fy - by};
        const float wz[2] = {1.0f - (fz - bz), fz - bz};
#pragma unroll
        for (int c = 0; c < 2; ++c)
#pragma unroll
          for (int b = 0; b < 2; ++b) {
            const int row = (dy + b) + kWinY * (dz + c);
#pragma unroll
            for (int a = 0; a < 2; ++a) {
              const int cx = dx + a;
              cells[32 * (cx + kWinX * row)] += wx[a] * wy[b] * wz[c] * vl;
              win.touched |= 1u << ((cx >> 2) + 2 * row);
            }
          }
      }
      window_flush<kAdds>(gr, win, cells, alpha);
    }
  }
}

// α = H_srtᵀ g by the windowed merged scatter (α zeroed first); nx % 4 != 0: the scalar merged form.
template <class Points = ShellPoints, bool kAdds = true>
void launch_window_scatter(const SrtParams& p, const GatherParams& gp, const float* g, float* alpha,
                           cudaStream_t stream) {
  if (p.grid.nx % 4 != 0) {
    launch_merged_scatter(p, g, alpha, false, stream);
    return;
  }
  if (p.transducers <= 0 || p.shells <= 0) return;
  const std::int64_t n = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  TOMO_CUDA_CHECK(cudaMemsetAsync(alpha, 0, n * sizeof(float), stream));
  const std::int64_t warps =
      static_cast<std::int64_t>(p.transducers) * ((p.shells + kMergeShells - 1) / kMergeShells);
  const unsigned blocks = static_cast<unsigned>((warps + kSrtWarpsPerBlock - 1) / kSrtWarpsPerBlock);
  window_scatter_kernel<Points, kAdds><<<blocks, kSrtThreads, 0, stream>>>(p, gp, g, alpha);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

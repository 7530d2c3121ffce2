// The window scatter (srt_merged_scatter.cuh) with its flush done by the whole warp: on one H200 the
// window form was bound by its own per-patch work, and its flush is divergent (some lane of 32
// leaves its window at nearly every step while the others wait through that lane's loop over ≈ 10
// float4 groups). Here every lane reaches a ballot each step; for each lane leaving its window,
// the warp spreads that window's touched groups one a lane (≤ 18) and adds them together. The
// rings' records of the warp's 32 shells sit in shared memory (one write per ring index) instead
// of five shuffles a patch. Not yet measured on a GPU.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "bench/cuda/oat/srt_merged_scatter.cuh"

namespace tomo::oat::cuda_detail {

struct CoopRings {
  float sin_t[32], cos_t[32], R[32], v[32];
  int n_phi[32];
};

template <class Points>
__global__ void __launch_bounds__(kSrtThreads) window_coop_kernel(SrtParams p, GatherParams gp,
                                                                   const float* __restrict__ g,
                                                                   float* __restrict__ alpha) {
  __shared__ float cells_all[kSrtWarpsPerBlock * kWinCells * 32];
  __shared__ CoopRings rings_all[kSrtWarpsPerBlock];
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  float* warp_cells = cells_all + warp * kWinCells * 32;
  float* cells = warp_cells + lane;  // cell c of this lane at cells[32·c]
  CoopRings& rs = rings_all[warp];
  for (int c = 0; c < kWinCells; ++c) cells[32 * c] = 0.0f;
  const int blocks_per_q = (p.shells + kMergeShells - 1) / kMergeShells;
  const std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kSrtWarpsPerBlock + warp;
  if (w >= static_cast<std::int64_t>(p.transducers) * blocks_per_q) return;  // the whole warp
  const int q = static_cast<int>(w / blocks_per_q), my_m = static_cast<int>(w % blocks_per_q) * kMergeShells + lane;
  const ShellFrame<float> f = p.frames[q];
  const GridParams<float>& gr = p.grid;
  const float value = my_m < p.shells ? __ldg(g + static_cast<std::int64_t>(q) * p.shells + my_m) : 0.0f;
  ShellCap<float> cap{0, 1.0f, 0.0f, p.h};
  if (value != 0.0f) cap = shell_cap(f, shell_radius(p, my_m), p.h);
  const float sin_half = cap.n_theta > 0 ? half_step_sine(cap) : 0.0f;
  const int rings = static_cast<int>(__reduce_max_sync(kFullMask, static_cast<unsigned>(cap.n_theta)));
  const float inv = 1.0f / gr.ds;
  const int back_x = f.ex < 0.0f ? 4 : 0, back_y = f.ey < 0.0f ? 1 : 0, back_z = f.ez < 0.0f ? 1 : 0;
  for (int i = 0; i < rings; ++i) {
    ShellRing<float> r{0, 0.0f, 0.0f, 1.0f};
    if (i < cap.n_theta) r = srt_ring(cap, i, sin_half);
    __syncwarp();  // the previous ring's records are read
    rs.sin_t[lane] = r.sin_t, rs.cos_t[lane] = r.cos_t, rs.R[lane] = cap.R, rs.v[lane] = r.area * value;
    rs.n_phi[lane] = r.n_phi;
    __syncwarp();
    const int longest = static_cast<int>(__reduce_max_sync(kFullMask, static_cast<unsigned>(r.n_phi)));
    for (int j_first = 0; j_first < longest; j_first += 32) {
      const int j = j_first + lane;
      LaneWindow win;
      for (int l = 0; l <= kMergeShells; ++l) {  // l = kMergeShells: the last flush
        bool add = false, leave = l == kMergeShells;
        int i0 = 0, j0 = 0, k0 = 0;
        float fx = 0, fy = 0, fz = 0, vl = 0;
        if (l < kMergeShells) {
          const int n_phi = rs.n_phi[l];
          if (j < n_phi) {
            const ShellRing<float> rl{n_phi, 0.0f, rs.sin_t[l], rs.cos_t[l]};
            const ShellCap<float> cl{1, rs.R[l], 0.0f, p.h};
            vl = rs.v[l];
            float x, y, z;
            Points::at(f, cl, rl, j, &x, &y, &z, gp);
            fx = (x - gr.x0) * inv, fy = (y - gr.y0) * inv, fz = (z - gr.z0) * inv;
            i0 = static_cast<int>(m_floor(fx)), j0 = static_cast<int>(m_floor(fy)), k0 = static_cast<int>(m_floor(fz));
            add = !(i0 < -1 || j0 < -1 || k0 < -1 || i0 >= gr.nx || j0 >= gr.ny || k0 >= gr.nz);
            if (add) {
              const int dx = i0 - win.ax, dy = j0 - win.ay, dz = k0 - win.az;
              leave = dx < 0 || dx + 1 >= kWinX || dy < 0 || dy + 1 >= kWinY || dz < 0 || dz + 1 >= kWinZ;
            }
          }
        }
        // The warp flushes the windows of the lanes leaving theirs, one window at a time, its
        // groups one a lane.
        unsigned leaving = __ballot_sync(kFullMask, leave && win.touched != 0);
        __syncwarp();  // the leaving lanes' cells are written
        while (leaving) {
          const int src = __ffs(leaving) - 1;
          leaving &= leaving - 1;
          const unsigned touched = __shfl_sync(kFullMask, win.touched, src);
          const int ax = __shfl_sync(kFullMask, win.ax, src), ay = __shfl_sync(kFullMask, win.ay, src),
                    az = __shfl_sync(kFullMask, win.az, src);
          if (lane < __popc(touched)) {
            const int bit = __fns(touched, 0, lane + 1);  // the lane-th set bit
            const int gx = bit & 1, row = bit >> 1, y = row % kWinY, z = row / kWinY;
            float* c = warp_cells + src + 32 * (gx * 4 + kWinX * row);
            const float4 v = make_float4(c[0], c[32], c[64], c[96]);
            c[0] = 0.0f, c[32] = 0.0f, c[64] = 0.0f, c[96] = 0.0f;
            const int xi = ax + 4 * gx, yj = ay + y, zk = az + z;
            if (xi >= 0 && xi < gr.nx && yj >= 0 && yj < gr.ny && zk >= 0 && zk < gr.nz)
              atomicAdd(reinterpret_cast<float4*>(alpha + xi +
                                                  static_cast<std::int64_t>(gr.nx) *
                                                      (yj + static_cast<std::int64_t>(gr.ny) * zk)),
                        v);
          }
        }
        __syncwarp();  // the cells are cleared before their lanes add again
        if (leave) win.touched = 0;
        if (!add) continue;
        if (leave) {
          win.ax = ((i0 + 4) & ~3) - 4 - back_x;
          if (i0 - win.ax + 1 >= kWinX) win.ax += 4;
          win.ay = j0 - back_y;
          win.az = k0 - back_z;
        }
        const int dx = i0 - win.ax, dy = j0 - win.ay, dz = k0 - win.az;
        const float bx = static_cast<float>(i0), by = static_cast<float>(j0), bz = static_cast<float>(k0);
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
    }
  }
}

// α = H_srtᵀ g by the cooperative window scatter (α zeroed first); needs nx % 4 == 0 (else the
// scalar merged form).
template <class Points>
void launch_window_coop(const SrtParams& p, const GatherParams& gp, const float* g, float* alpha,
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
  window_coop_kernel<Points><<<blocks, kSrtThreads, 0, stream>>>(p, gp, g, alpha);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

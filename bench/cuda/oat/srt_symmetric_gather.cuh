// Bench-only: H_srtᵀ as a gather by the quarter-turn symmetry of the geometry
// (compute/oat/srt_symmetry.hpp), which lost to the product's general gather (docs/perf/oat.md).
// A block owns a tile T of the grid's first x–y quadrant and four fixed-point copies of it in
// shared memory, copy c holding the voxels R^c·W (W in T). Orbit member k = R^k·d0 meets tile
// R^c·T where d0 meets R^(c−k)·T, so every orbit's passes (d0's patches, srt_gather.cuh's bounds and
// cut) are enumerated against the four views R^−j·T, and a patch at voxel V' of a view adds member
// k's sample to copy (k − j) mod 4 at W = R^j·V': the bounds and patch positions once for four
// transducers, the adds as many as the general gather's.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/oat/srt_device.cuh"
#include "cuda/oat/srt_gather.cuh"
#include "cuda/oat/srt_kernels.hpp"

namespace tomo::oat::cuda_detail {

// The orbits (srt_kernels.hpp SymmetricParams) and the gather's tiles over the first x–y quadrant
// and its split of the orbits.
struct SymGatherParams {
  SymmetricParams orbits;
  int tiles[3] = {0, 0, 0};
  int chunks = 1, orbits_per_chunk = 0;
};

// A warp's rings of one batch, as srt_gather.cuh WarpRings with the four members' weights.
struct SymRings {
  float sin_t[32], cos_t[32];
  float4 w[32];
  int n_phi[32], j_lo[32], first[32];
  unsigned char owner[kOwnerCap];
};

// Where the block's tile T lies (its first voxel) and which view R^−j·T a shell sample is
// enumerated against: a voxel V' of the view is W = R^j·V' of T, and member k's add goes to copy
// (k − j) mod 4 (tests/oat/srt_symmetry_test.cpp emulates these loops).
struct SymView {
  int j;
  int x0, y0, z0;  // T's first voxel
  int n;
};

// One shell sample of one pass against the view (all lanes call it). The view's tile `t` is
// visited with a 32×32 row layout, so that a voxel's index in it decodes to its grid position.
template <int RX, int PY, int kAcc, bool kAdds>
__device__ __forceinline__ void sym_shell_sample(const SrtParams& p, const GatherParams& gp, const GatherTile<float>& t,
                                                 const SymView& view, const ShellFrame<float>& f,
                                                 const GatherView<float>& v, int m, float4 value, unsigned mask_even,
                                                 unsigned mask_odd, int lane, SymRings& wr, float* acc,
                                                 const FixedAdd& add) {
  const GatherShell<float> s = gather_shell(f, v, shell_radius(p, m), p.h);
  // Copy of member k: (k − j) mod 4, at 2·kAcc words a copy.
  const int c0 = ((4 - view.j) & 3) * 2 * kAcc, c1 = ((5 - view.j) & 3) * 2 * kAcc,
            c2 = ((6 - view.j) & 3) * 2 * kAcc, c3 = ((7 - view.j) & 3) * 2 * kAcc;
  for (int i0 = s.i_lo; i0 <= s.i_hi; i0 += 32) {
    const int i = i0 + lane;
    ShellRing<float> r{1, 0.0f, 0.0f, 1.0f};
    RingRange rr{0, 0};
    float4 w = make_float4(0.f, 0.f, 0.f, 0.f);
    if (i <= s.i_hi) {
      r = srt_ring(s.cap, i, s.sin_half);
      const unsigned mask = (r.n_phi & 1) ? mask_odd : mask_even;
      if (mask != 0) {
        rr = LineCut::ring(f, v, s, r, i);
        w = make_float4((mask & 1u) ? r.area * value.x : 0.f, (mask & 2u) ? r.area * value.y : 0.f,
                        (mask & 4u) ? r.area * value.z : 0.f, (mask & 8u) ? r.area * value.w : 0.f);
      }
    }
    const int incl = warp_inclusive_sum(rr.count, lane);
    const int total = __shfl_sync(kFullMask, incl, 31);
    if (total == 0) continue;
    const int first = incl - rr.count;
    wr.sin_t[lane] = r.sin_t;
    wr.cos_t[lane] = r.cos_t;
    wr.w[lane] = w;
    wr.n_phi[lane] = r.n_phi;
    wr.j_lo[lane] = rr.j_lo;
    wr.first[lane] = first;
    for (int x = first, end = min(incl, kOwnerCap); x < end; ++x) wr.owner[x] = static_cast<unsigned char>(lane);
    __syncwarp();
    for (int x = lane; x < total; x += 32) {  // interleaved deal, as the product's
      const int o = patch_owner(wr.owner, wr.first, x);
      const int n_phi = wr.n_phi[o];
      int j = wr.j_lo[o] + (x - wr.first[o]);
      if (j >= n_phi) j -= n_phi;
      const ShellRing<float> ring{n_phi, 0.0f, wr.sin_t[o], wr.cos_t[o]};
      const float4 wo = wr.w[o];
      float px, py, pz;
      TablePoints::at(f, s.cap, ring, j, &px, &py, &pz, gp);
      tile_visit(p.grid, t, 32, 32, px, py, pz, [&](int idx, float wt) {
        int a, b;
        turn_voxel(view.n, view.j, t.lo[0] + (idx & 31), t.lo[1] + ((idx >> 5) & 31), &a, &b);
        const int local = (a - view.x0) + RX * ((b - view.y0) + PY * (t.lo[2] + (idx >> 10) - view.z0));
        if constexpr (kAdds) {
          if (wo.x != 0.0f) add(acc + c0, local, wt * wo.x);
          if (wo.y != 0.0f) add(acc + c1, local, wt * wo.y);
          if (wo.z != 0.0f) add(acc + c2, local, wt * wo.z);
          if (wo.w != 0.0f) add(acc + c3, local, wt * wo.w);
        } else {
          if (wt * (wo.x + wo.y + wo.z + wo.w) == 3.0e38f) acc[local] = wt;  // never: keeps the visit
        }
      });
    }
    __syncwarp();
  }
}

// Block (quadrant tile blockIdx.x, orbit chunk blockIdx.y): the tile T and R T, R² T, R³ T as
// four fixed-point copies of T in shared memory (copy c, voxel W: α(R^c·W)); every orbit of the
// chunk is enumerated against the four views R^−j·T, each found patch serving the four members.
template <int TX, int TY, int TZ, int W, int kMinBlocks, bool kAdds>
__global__ void __launch_bounds__(32 * W, kMinBlocks) sym_gather_kernel(SrtParams p, GatherParams gp,
                                                                        SymGatherParams sp,
                                                                        const float* __restrict__ g,
                                                                        float* __restrict__ out) {
  static_assert(TX <= 32 && TY <= 32, "the views are visited with 32-voxel rows");
  constexpr int RX = TX + 1, PY = TY + 1;
  constexpr int kAcc = gather_acc_floats<TX, TY, TZ, RX, PY>();
  extern __shared__ float acc[];  // 4 copies of 2·kAcc words
  __shared__ SymRings rings[W];
  const FixedAdd add = FixedAdd::make(gp, kAcc);
  for (int i = threadIdx.x; i < 8 * kAcc; i += 32 * W) acc[i] = 0.0f;
  const int b = static_cast<int>(blockIdx.x);
  const int ti = b % sp.tiles[0], tj = (b / sp.tiles[0]) % sp.tiles[1], tk = b / (sp.tiles[0] * sp.tiles[1]);
  const int n = sp.orbits.n, half = n / 2;
  const int x0 = ti * TX, x1 = min(x0 + TX, half), y0 = tj * TY, y1 = min(y0 + TY, half), z0 = tk * TZ;
  const GatherTile<float> t0 = gather_tile(p.grid, x0, y0, z0, x1 - x0, y1 - y0, TZ, gp.margin);
  __syncthreads();
  const float cx = t0.c[0] - gp.cx, cy = t0.c[1] - gp.cy, cz = t0.c[2] - gp.cz;
  const float reach = gp.rho + t0.r;
  if (cx * cx + cy * cy + cz * cz <= reach * reach) {  // the same for the turned views
    const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
    const int o_begin = static_cast<int>(blockIdx.y) * sp.orbits_per_chunk;
    const int o_end = min(sp.orbits.orbits, o_begin + sp.orbits_per_chunk);
    const int p_begin = sp.orbits.orbit_first[o_begin], p_end = sp.orbits.orbit_first[o_end];
    int slot = 0;
    for (int j = 0; j < 4; ++j) {
      int lo0, hi0, lo1, hi1;  // the view R^−j·T
      switch (j) {
        case 0: lo0 = x0, hi0 = x1, lo1 = y0, hi1 = y1; break;
        case 1: lo0 = y0, hi0 = y1, lo1 = n - x1, hi1 = n - x0; break;
        case 2: lo0 = n - x1, hi0 = n - x0, lo1 = n - y1, hi1 = n - y0; break;
        default: lo0 = n - y1, hi0 = n - y0, lo1 = x0, hi1 = x1; break;
      }
      const GatherTile<float> t = gather_tile(p.grid, lo0, lo1, z0, hi0 - lo0, hi1 - lo1, TZ, gp.margin);
      const SymView view{j, x0, y0, z0, n};
      for (int pi = p_begin; pi < p_end; ++pi) {
        const SymmetryPass<float> ps = sp.orbits.passes[pi];
        const GatherView<float> v = gather_view(ps.frame, t);
        int m_lo, m_hi;
        gather_shells(v, p.c0, p.t_min, p.dt, p.shells, &m_lo, &m_hi);
        const int cnt = m_hi - m_lo + 1;
        if (cnt <= 0) continue;
        int k = (warp - slot) % W;
        if (k < 0) k += W;
        for (; k < cnt; k += W) {
          const int m = m_lo + k;
          const float4 value = make_float4(__ldg(g + static_cast<std::int64_t>(ps.q[0]) * p.shells + m),
                                           __ldg(g + static_cast<std::int64_t>(ps.q[1]) * p.shells + m),
                                           __ldg(g + static_cast<std::int64_t>(ps.q[2]) * p.shells + m),
                                           __ldg(g + static_cast<std::int64_t>(ps.q[3]) * p.shells + m));
          if (value.x != 0.0f || value.y != 0.0f || value.z != 0.0f || value.w != 0.0f)
            sym_shell_sample<RX, PY, kAcc, kAdds>(p, gp, t, view, ps.frame, v, m, value, ps.mask_even, ps.mask_odd,
                                                  lane, rings[warp], acc, add);
        }
        slot = (slot + cnt) % W;
      }
    }
  }
  __syncthreads();
  const std::int64_t N = static_cast<std::int64_t>(p.grid.nx) * p.grid.ny * p.grid.nz;
  float* dst = out + static_cast<std::int64_t>(blockIdx.y) * N;
  for (int i = threadIdx.x; i < 4 * TX * TY * TZ; i += 32 * W) {
    const int r = i / (TX * TY * TZ), l = i % (TX * TY * TZ);
    const int x = l % TX, y = (l / TX) % TY, z = l / (TX * TY);
    const int a = x0 + x, bb = y0 + y, c = z0 + z;
    if (a < x1 && bb < y1 && c < p.grid.nz) {
      int ra, rb;
      turn_voxel(n, r, a, bb, &ra, &rb);
      dst[ra + static_cast<std::int64_t>(p.grid.nx) * (rb + static_cast<std::int64_t>(p.grid.ny) * c)] =
          add.read(acc + 2 * kAcc * r, x + RX * (y + PY * z));
    }
  }
}

template <int TX, int TY, int TZ, int W, int kMinBlocks, bool kAdds>
void launch_sym_gather(const SrtParams& p, const GatherParams& gp, const SymGatherParams& sp, const float* g, float* out,
                       cudaStream_t stream) {
  constexpr std::size_t kBytes = sizeof(float) * 8 * gather_acc_floats<TX, TY, TZ, TX + 1, TY + 1>();
  auto* kernel = sym_gather_kernel<TX, TY, TZ, W, kMinBlocks, kAdds>;
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kBytes)));
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  const dim3 grid(static_cast<unsigned>(sp.tiles[0] * sp.tiles[1] * sp.tiles[2]), static_cast<unsigned>(sp.chunks));
  kernel<<<grid, 32 * W, kBytes, stream>>>(p, gp, sp, g, out);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

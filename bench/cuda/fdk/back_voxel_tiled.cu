// The shared-memory tiled candidates of B (see back_voxel_tiled.hpp).
#include "bench/cuda/fdk/back_voxel_tiled.hpp"

#include <cuda_runtime.h>

#include "cuda/core/check.hpp"

namespace tomo::bench::fdk_b {
namespace {

constexpr int kTileMax = 2048;  // floats of one block's footprint (8 KB)

// The tiled gather (Variant::tiled). Each warp finds the footprint itself (lanes 0–7 of every
// group of eight project one corner each, min/max by shuffles), so only the tile needs the block.
__global__ void __launch_bounds__(256) tiled_kernel(const Args a, const __grid_constant__ ViewBlock<kMaxAll> b,
                                                    int count) {
  __shared__ float tile[kTileMax];
  const int tx = threadIdx.x, ty = threadIdx.y, lane = (ty * blockDim.x + tx) & 31;
  const int i = blockIdx.x * blockDim.x + tx, j = blockIdx.y * blockDim.y + ty;
  const int kb = blockIdx.z * 16;
  const bool inside = i < a.nx && j < a.ny;
  const float x = a.ox + i * a.vx, y = a.oy + j * a.vy, z0 = a.oz + kb * a.vz, dz = a.vz;
  // This lane's corner of the block's voxel box.
  const int c = lane & 7;
  const float cx = a.ox + (blockIdx.x * blockDim.x + ((c & 1) ? blockDim.x - 1 : 0)) * a.vx;
  const float cy = a.oy + (blockIdx.y * blockDim.y + ((c & 2) ? blockDim.y - 1 : 0)) * a.vy;
  const float cz = a.oz + (kb + ((c & 4) ? 15 : 0)) * a.vz;
  float acc[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) acc[q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float* p = b.v + 12 * n;
    const float* img = a.pad + static_cast<size_t>(n) * a.W * a.H;
    // Footprint in bordered coordinates (texel-centre matrices + 0.5).
    const float ct = fmaf(p[8], cx, fmaf(p[9], cy, fmaf(p[10], cz, p[11])));
    const float crt = __fdividef(1.0f, ct);
    float umin = fmaf(p[0], cx, fmaf(p[1], cy, fmaf(p[2], cz, p[3]))) * crt + 0.5f, umax = umin;
    float vmin = fmaf(p[4], cx, fmaf(p[5], cy, fmaf(p[6], cz, p[7]))) * crt + 0.5f, vmax = vmin;
#pragma unroll
    for (int m = 1; m < 8; m <<= 1) {
      umin = fminf(umin, __shfl_xor_sync(0xffffffffu, umin, m));
      umax = fmaxf(umax, __shfl_xor_sync(0xffffffffu, umax, m));
      vmin = fminf(vmin, __shfl_xor_sync(0xffffffffu, vmin, m));
      vmax = fmaxf(vmax, __shfl_xor_sync(0xffffffffu, vmax, m));
    }
    // One pixel of margin on each side against rounding between the corners and the voxels.
    const int u0 = static_cast<int>(floorf(umin)) - 1, v0 = static_cast<int>(floorf(vmin)) - 1;
    const int tw = static_cast<int>(floorf(umax)) - u0 + 3, th = static_cast<int>(floorf(vmax)) - v0 + 3;
    const bool fits = tw > 0 && th > 0 && tw <= kTileMax && th <= kTileMax && tw * th <= kTileMax;
    const float t = fmaf(p[8], x, fmaf(p[9], y, p[11]));
    const float rt = __fdividef(1.0f, t), w = rt * rt;
    const float pu = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt + 0.5f;
    const float pv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt + 0.5f;
    const float dv = p[6] * dz * rt;
    if (fits) {
      __syncthreads();  // the previous view's reads are done
      for (int r = ty; r < th; r += blockDim.y) {
        const int gv = v0 + r;
        const bool row_ok = gv >= 0 && gv < a.H;
        for (int col = tx; col < tw; col += blockDim.x) {
          const int gu = u0 + col;
          tile[r * tw + col] = row_ok && gu >= 0 && gu < a.W ? __ldg(img + gv * a.W + gu) : 0.0f;
        }
      }
      __syncthreads();
      if (inside) {
        const float lu = pu - u0, fu = floorf(lu), au = lu - fu;
        const int iu = static_cast<int>(fu);
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          const float lv = fmaf(static_cast<float>(q), dv, pv0) - v0, fv = floorf(lv), av = lv - fv;
          const float* r = tile + static_cast<int>(fv) * tw + iu;
          const float lo = fmaf(au, r[1] - r[0], r[0]), hi = fmaf(au, r[tw + 1] - r[tw], r[tw]);
          acc[q] = fmaf(w, fmaf(av, hi - lo, lo), acc[q]);
        }
      }
    } else if (inside) {
      const float fu = floorf(pu), au = pu - fu;
      const int iu = static_cast<int>(fu);
      const bool u_ok = static_cast<unsigned>(iu) <= static_cast<unsigned>(a.sx);
      const float* col = img + (u_ok ? iu : 0);
#pragma unroll
      for (int q = 0; q < 16; ++q)
        acc[q] = fmaf(w, ldg_column(col, au, u_ok, a, fmaf(static_cast<float>(q), dv, pv0)), acc[q]);
    }
  }
  if (!inside) return;
#pragma unroll
  for (int q = 0; q < 16; ++q)
    if (kb + q < a.nz) a.x[(static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i] = acc[q];
}

// The tiled gather with kV views a pass (Variant::tile_views): the footprints of kV views are
// loaded between one pair of barriers (their loads in flight together, the barriers amortised),
// then sampled. kPairs: each tile entry holds the pixel and its right neighbour (float2), so a
// sample is two 8-byte shared reads instead of four 4-byte ones (the gather is issue-bound).
template <int kV, bool kPairs>
__global__ void __launch_bounds__(256) tiled_multi_kernel(const Args a, const __grid_constant__ ViewBlock<kMaxAll> b,
                                                          int count, int cap) {
  extern __shared__ float4 smem4[];  // kV tiles of `cap` entries (float or float2)
  float* tiles = reinterpret_cast<float*>(smem4);
  constexpr int kEntry = kPairs ? 2 : 1;
  const int tx = threadIdx.x, ty = threadIdx.y, lane = (ty * blockDim.x + tx) & 31;
  const int i = blockIdx.x * blockDim.x + tx, j = blockIdx.y * blockDim.y + ty;
  const int kb = blockIdx.z * 16;
  const bool inside = i < a.nx && j < a.ny;
  const float x = a.ox + i * a.vx, y = a.oy + j * a.vy, z0 = a.oz + kb * a.vz, dz = a.vz;
  const int c = lane & 7;
  const float cx = a.ox + (blockIdx.x * blockDim.x + ((c & 1) ? blockDim.x - 1 : 0)) * a.vx;
  const float cy = a.oy + (blockIdx.y * blockDim.y + ((c & 2) ? blockDim.y - 1 : 0)) * a.vy;
  const float cz = a.oz + (kb + ((c & 4) ? 15 : 0)) * a.vz;
  float acc[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) acc[q] = 0.0f;
  for (int n0 = 0; n0 < count; n0 += kV) {
    int u0[kV], v0[kV], tw[kV], th[kV];
    bool fits[kV];
#pragma unroll
    for (int m = 0; m < kV; ++m) {
      const int n = n0 + m < count ? n0 + m : count - 1;
      const float* p = b.v + 12 * n;
      const float ct = fmaf(p[8], cx, fmaf(p[9], cy, fmaf(p[10], cz, p[11])));
      const float crt = __fdividef(1.0f, ct);
      float umin = fmaf(p[0], cx, fmaf(p[1], cy, fmaf(p[2], cz, p[3]))) * crt + 0.5f, umax = umin;
      float vmin = fmaf(p[4], cx, fmaf(p[5], cy, fmaf(p[6], cz, p[7]))) * crt + 0.5f, vmax = vmin;
#pragma unroll
      for (int s = 1; s < 8; s <<= 1) {
        umin = fminf(umin, __shfl_xor_sync(0xffffffffu, umin, s));
        umax = fmaxf(umax, __shfl_xor_sync(0xffffffffu, umax, s));
        vmin = fminf(vmin, __shfl_xor_sync(0xffffffffu, vmin, s));
        vmax = fmaxf(vmax, __shfl_xor_sync(0xffffffffu, vmax, s));
      }
      u0[m] = static_cast<int>(floorf(umin)) - 1;
      v0[m] = static_cast<int>(floorf(vmin)) - 1;
      tw[m] = static_cast<int>(floorf(umax)) - u0[m] + 3;
      th[m] = static_cast<int>(floorf(vmax)) - v0[m] + 3;
      fits[m] = n0 + m < count && tw[m] > 0 && th[m] > 0 && tw[m] <= cap && th[m] <= cap &&
                tw[m] * th[m] <= cap;
    }
    __syncthreads();  // the previous pass's reads are done
#pragma unroll
    for (int m = 0; m < kV; ++m) {
      if (!fits[m]) continue;
      const float* img = a.pad + static_cast<size_t>(n0 + m) * a.W * a.H;
      float* tile = tiles + m * cap * kEntry;
      for (int r = ty; r < th[m]; r += blockDim.y) {
        const int gv = v0[m] + r;
        const bool row_ok = gv >= 0 && gv < a.H;
#pragma unroll 2
        for (int col = tx; col < tw[m]; col += blockDim.x) {
          const int gu = u0[m] + col;
          const float t0 = row_ok && gu >= 0 && gu < a.W ? __ldg(img + gv * a.W + gu) : 0.0f;
          if constexpr (kPairs) {
            const float t1 = row_ok && gu + 1 >= 0 && gu + 1 < a.W ? __ldg(img + gv * a.W + gu + 1) : 0.0f;
            reinterpret_cast<float2*>(tile)[r * tw[m] + col] = make_float2(t0, t1);
          } else {
            tile[r * tw[m] + col] = t0;
          }
        }
      }
    }
    __syncthreads();
    if (!inside) continue;
#pragma unroll
    for (int m = 0; m < kV; ++m) {
      const int n = n0 + m;
      if (n >= count) break;
      const float* p = b.v + 12 * n;
      const float t = fmaf(p[8], x, fmaf(p[9], y, p[11]));
      const float rt = __fdividef(1.0f, t), w = rt * rt;
      const float pu = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt + 0.5f;
      const float pv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt + 0.5f;
      const float dv = p[6] * dz * rt;
      if (fits[m]) {
        const float lu = pu - u0[m], fu = floorf(lu), au = lu - fu;
        const int iu = static_cast<int>(fu), W = tw[m];
        const float* tile = tiles + m * cap * kEntry;
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          const float lv = fmaf(static_cast<float>(q), dv, pv0) - v0[m], fv = floorf(lv), av = lv - fv;
          const int e = static_cast<int>(fv) * W + iu;
          float lo, hi;
          if constexpr (kPairs) {
            const float2 r0 = reinterpret_cast<const float2*>(tile)[e], r1 = reinterpret_cast<const float2*>(tile)[e + W];
            lo = fmaf(au, r0.y - r0.x, r0.x);
            hi = fmaf(au, r1.y - r1.x, r1.x);
          } else {
            const float* r = tile + e;
            lo = fmaf(au, r[1] - r[0], r[0]);
            hi = fmaf(au, r[W + 1] - r[W], r[W]);
          }
          acc[q] = fmaf(w, fmaf(av, hi - lo, lo), acc[q]);
        }
      } else {
        const float* img = a.pad + static_cast<size_t>(n) * a.W * a.H;
        const float fu = floorf(pu), au = pu - fu;
        const int iu = static_cast<int>(fu);
        const bool u_ok = static_cast<unsigned>(iu) <= static_cast<unsigned>(a.sx);
        const float* col = img + (u_ok ? iu : 0);
#pragma unroll
        for (int q = 0; q < 16; ++q)
          acc[q] = fmaf(w, ldg_column(col, au, u_ok, a, fmaf(static_cast<float>(q), dv, pv0)), acc[q]);
      }
    }
  }
  if (!inside) return;
#pragma unroll
  for (int q = 0; q < 16; ++q)
    if (kb + q < a.nz) a.x[(static_cast<size_t>(kb + q) * a.ny + j) * a.nx + i] = acc[q];
}

template <int kV, bool kPairs>
void launch_tiled_multi(const Args& a, const ViewBlock<kMaxAll>& b, int count, int cap, dim3 grid, dim3 block,
                        cudaStream_t s) {
  const int bytes = kV * cap * (kPairs ? 2 : 1) * static_cast<int>(sizeof(float));
  const void* k = reinterpret_cast<const void*>(tiled_multi_kernel<kV, kPairs>);
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  tiled_multi_kernel<kV, kPairs><<<grid, block, bytes, s>>>(a, b, count, cap);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace

bool run_tiled(const Variant& v, const Args& a, const float* mats, int views, cudaStream_t s) {
  if (!z_invariant(mats, views) || views > kMaxAll) return false;
  static ViewBlock<kMaxAll> b;
  for (int k = 0; k < views; ++k)
    for (int e = 0; e < 12; ++e) {
      const float* m = mats + 12 * k;
      b.v[12 * k + e] = e < 8 ? m[e] + 0.5f * m[8 + (e & 3)] : m[e];
    }
  const dim3 block(v.bx, v.by), grid((a.nx + v.bx - 1) / v.bx, (a.ny + v.by - 1) / v.by, (a.nz + 15) / 16);
  if (v.tile_views == 0) {
    tiled_kernel<<<grid, block, 0, s>>>(a, b, views);
    TOMO_CUDA_CHECK_LAST();
    return true;
  }
#define TOMO_TILE_CASE(V, P)                                        \
  if (v.tile_views == V && v.tile_pairs == P) {                     \
    launch_tiled_multi<V, P>(a, b, views, v.tile_cap, grid, block, s); \
    return true;                                                    \
  }
  TOMO_TILE_CASE(1, false)
  TOMO_TILE_CASE(2, false)
  TOMO_TILE_CASE(4, false)
  TOMO_TILE_CASE(1, true)
  TOMO_TILE_CASE(2, true)
  TOMO_TILE_CASE(4, true)
#undef TOMO_TILE_CASE
  return false;
}

}  // namespace tomo::bench::fdk_b

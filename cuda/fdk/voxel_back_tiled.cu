// The projector pair's B by a shared-memory tiled gather (see voxel_back_tiled.hpp).
#include <cuda_runtime.h>

#include "cuda/core/check.hpp"
#include "cuda/fdk/voxel_back_tiled.hpp"

namespace tomo::fdk::cuda_detail {
namespace {

struct TileViews {
  float v[kVoxelBackViews * 12];
};

// A z-invariant column of the bordered copy (u, so its tap column and weight, fixed): the fallback
// of a view whose footprint is larger than the tile. 0 where a tap would leave the border.
__device__ __forceinline__ float column_sample(const float* __restrict__ col, float au, bool u_ok, int W, int sy,
                                               float pv) {
  const float fv = floorf(pv), av = pv - fv;
  const int iv = static_cast<int>(fv);
  if (!u_ok || static_cast<unsigned>(iv) > static_cast<unsigned>(sy)) return 0.0f;
  const float* r = col + iv * W;
  const float t00 = __ldg(r), t10 = __ldg(r + 1), t01 = __ldg(r + W), t11 = __ldg(r + W + 1);
  const float lo = fmaf(au, t10 - t00, t00), hi = fmaf(au, t11 - t01, t01);
  return fmaf(av, hi - lo, lo);
}

// Block = kTileBlockX × kTileBlockY columns × kVoxelBackZ z-voxels. Per pass of kTileViews views:
// each warp projects the block's eight corners (lanes 0–7 of each group of eight, min/max by
// shuffles: the footprint of a box under a projective map lies in its corners' hull), the block
// copies every footprint (+1 pixel of margin) from the bordered detector into shared memory
// between one pair of barriers, then each thread samples its 16 voxels there with fp32 weights.
__global__ void __launch_bounds__(kTileBlockX* kTileBlockY)
    tiled_kernel(const VoxelBack l, int first, const __grid_constant__ TileViews b, int count) {
  extern __shared__ float tiles[];  // kTileViews × kTileCap
  const int tx = threadIdx.x, ty = threadIdx.y, lane = (ty * kTileBlockX + tx) & 31;
  const int i = blockIdx.x * kTileBlockX + tx, j = blockIdx.y * kTileBlockY + ty;
  const int kb = blockIdx.z * kVoxelBackZ;
  const bool inside = i < l.nx && j < l.ny;
  const int W = l.sx + 2, H = l.sy + 2;
  const float x = l.origin[0] + i * l.voxel[0], y = l.origin[1] + j * l.voxel[1];
  const float z0 = l.origin[2] + kb * l.voxel[2], dz = l.voxel[2];
  const int c = lane & 7;
  const float cx = l.origin[0] + (blockIdx.x * kTileBlockX + ((c & 1) ? kTileBlockX - 1 : 0)) * l.voxel[0];
  const float cy = l.origin[1] + (blockIdx.y * kTileBlockY + ((c & 2) ? kTileBlockY - 1 : 0)) * l.voxel[1];
  const float cz = l.origin[2] + (kb + ((c & 4) ? kVoxelBackZ - 1 : 0)) * l.voxel[2];
  float acc[kVoxelBackZ];
#pragma unroll
  for (int q = 0; q < kVoxelBackZ; ++q) acc[q] = 0.0f;
  for (int n0 = 0; n0 < count; n0 += kTileViews) {
    int u0[kTileViews], v0[kTileViews], tw[kTileViews], th[kTileViews];
    bool fits[kTileViews];
#pragma unroll
    for (int m = 0; m < kTileViews; ++m) {
      const float* p = b.v + 12 * (n0 + m < count ? n0 + m : count - 1);
      const float crt = __fdividef(1.0f, fmaf(p[8], cx, fmaf(p[9], cy, fmaf(p[10], cz, p[11]))));
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
      fits[m] = n0 + m < count && tw[m] > 0 && th[m] > 0 && tw[m] <= kTileCap && th[m] <= kTileCap &&
                tw[m] * th[m] <= kTileCap;
    }
    __syncthreads();  // the previous pass's samples are read
#pragma unroll
    for (int m = 0; m < kTileViews; ++m) {
      if (!fits[m]) continue;
      const float* img = l.padded + static_cast<size_t>(first + n0 + m) * W * H;
      float* tile = tiles + m * kTileCap;
      for (int r = ty; r < th[m]; r += kTileBlockY) {
        const int gv = v0[m] + r;
        const bool row_ok = gv >= 0 && gv < H;
#pragma unroll 2
        for (int col = tx; col < tw[m]; col += kTileBlockX) {
          const int gu = u0[m] + col;
          tile[r * tw[m] + col] = row_ok && gu >= 0 && gu < W ? __ldg(img + gv * W + gu) : 0.0f;
        }
      }
    }
    __syncthreads();
    if (!inside) continue;
#pragma unroll
    for (int m = 0; m < kTileViews; ++m) {
      const int n = n0 + m;
      if (n >= count) break;
      const float* p = b.v + 12 * n;
      const float rt = __fdividef(1.0f, fmaf(p[8], x, fmaf(p[9], y, p[11]))), w = rt * rt;
      const float pu = fmaf(p[0], x, fmaf(p[1], y, p[3])) * rt + 0.5f;
      const float pv0 = fmaf(p[4], x, fmaf(p[5], y, fmaf(p[6], z0, p[7]))) * rt + 0.5f;
      const float dv = p[6] * dz * rt;
      if (fits[m]) {
        const float lu = pu - u0[m], fu = floorf(lu), au = lu - fu;
        const int iu = static_cast<int>(fu), tW = tw[m];
        const float* tile = tiles + m * kTileCap;
#pragma unroll
        for (int q = 0; q < kVoxelBackZ; ++q) {
          const float lv = fmaf(static_cast<float>(q), dv, pv0) - v0[m], fv = floorf(lv), av = lv - fv;
          const float* r = tile + static_cast<int>(fv) * tW + iu;
          const float lo = fmaf(au, r[1] - r[0], r[0]), hi = fmaf(au, r[tW + 1] - r[tW], r[tW]);
          acc[q] = fmaf(w, fmaf(av, hi - lo, lo), acc[q]);
        }
      } else {
        const float* img = l.padded + static_cast<size_t>(first + n) * W * H;
        const float fu = floorf(pu), au = pu - fu;
        const int iu = static_cast<int>(fu);
        const bool u_ok = static_cast<unsigned>(iu) <= static_cast<unsigned>(l.sx);
        const float* col = img + (u_ok ? iu : 0);
#pragma unroll
        for (int q = 0; q < kVoxelBackZ; ++q)
          acc[q] = fmaf(w, column_sample(col, au, u_ok, W, l.sy, fmaf(static_cast<float>(q), dv, pv0)), acc[q]);
      }
    }
  }
  if (!inside) return;
#pragma unroll
  for (int q = 0; q < kVoxelBackZ; ++q)
    if (kb + q < l.nz) l.x[(static_cast<size_t>(kb + q) * l.ny + j) * l.nx + i] += acc[q];
}

}  // namespace

void launch_back_voxel_tiled(const VoxelBack& l, int first, const float* matrices12, int count, cudaStream_t stream) {
  constexpr int kBytes = kTileViews * kTileCap * static_cast<int>(sizeof(float));
  // Per call: the attribute belongs to the current device's context (several GPUs may run B).
  TOMO_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(tiled_kernel),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
  const dim3 block(kTileBlockX, kTileBlockY),
      grid((l.nx + kTileBlockX - 1) / kTileBlockX, (l.ny + kTileBlockY - 1) / kTileBlockY,
           (l.nz + kVoxelBackZ - 1) / kVoxelBackZ);
  for (int n0 = 0; n0 < count; n0 += kVoxelBackViews) {
    const int c = count - n0 < kVoxelBackViews ? count - n0 : kVoxelBackViews;
    TileViews b{};
    for (int k = 0; k < c; ++k) {  // texel centres folded in, as launch_back_voxel's
      const float* m = matrices12 + 12 * (n0 + k);
      for (int e = 0; e < 12; ++e) b.v[12 * k + e] = e < 8 ? m[e] + 0.5f * m[8 + (e & 3)] : m[e];
    }
    tiled_kernel<<<grid, block, kBytes, stream>>>(l, first + n0, b, c);
    TOMO_CUDA_CHECK_LAST();
  }
}

}  // namespace tomo::fdk::cuda_detail

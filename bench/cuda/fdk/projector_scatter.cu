// The global-atomic scatter Aᵀ (see projector_scatter.hpp).
#include "bench/cuda/fdk/projector_scatter.hpp"

#include <cuda_runtime.h>

#include "cuda/core/check.hpp"
#include "cuda/fdk/ray_walk.cuh"

namespace tomo::bench::fdk_projector {
namespace {

using fdk::cuda_detail::CellSums;
using fdk::cuda_detail::FloatRay;
using fdk::cuda_detail::RayLaunch;
using fdk::cuda_detail::ray_of;

// Adds a cell's eight corner sums to the volume (taps outside skipped).
__device__ __forceinline__ void flush_cell(float* x, int nx, int ny, int nz, int ix, int iy, int iz, const float* a) {
#pragma unroll
  for (int dz = 0; dz < 2; ++dz) {
    const int z = iz + dz;
    if (z < 0 || z >= nz) continue;
#pragma unroll
    for (int dy = 0; dy < 2; ++dy) {
      const int yy = iy + dy;
      if (yy < 0 || yy >= ny) continue;
      float* row = x + (static_cast<size_t>(z) * ny + yy) * nx;
      const float* c = a + 4 * dz + 2 * dy;
      if (ix >= 0 && ix < nx && c[0] != 0.0f) atomicAdd(row + ix, c[0]);
      if (ix + 1 >= 0 && ix + 1 < nx && c[1] != 0.0f) atomicAdd(row + ix + 1, c[1]);
    }
  }
}

// Each ray's samples scatter their trilinear weights; consecutive samples in one cell (two per
// voxel at the default half-voxel step) are summed in registers first, so the atomics are paid
// once per cell the ray crosses rather than once per sample.
__global__ void back_kernel(const RayLaunch l, const float* y, float* x) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= l.sx || j >= l.sy) return;
  const float val = y[(static_cast<size_t>(k) * l.sy + j) * l.sx + i];
  if (val == 0.0f) return;
  const FloatRay r = ray_of(l, i, j, k);
  const float c = val * r.weight;
  const int nx = l.dims[0], ny = l.dims[1], nz = l.dims[2];
  auto flush = [&](int fx, int fy, int fz, const float* a) { flush_cell(x, nx, ny, nz, fx, fy, fz, a); };
  CellSums cell;
  for (int n = 0; n < r.count; ++n) {
    const float fn = static_cast<float>(n);
    const float px = fmaf(fn, r.step[0], r.start[0]);
    const float py = fmaf(fn, r.step[1], r.start[1]);
    const float pz = fmaf(fn, r.step[2], r.start[2]);
    const float fx = floorf(px), fy = floorf(py), fz = floorf(pz);
    const float ax = px - fx, ay = py - fy, az = pz - fz;
    const int ix = static_cast<int>(fx), iy = static_cast<int>(fy), iz = static_cast<int>(fz);
    cell.add(ix, iy, iz, c, ax, ay, az, flush);
  }
  cell.close(flush);
}

}  // namespace

void launch_back_scatter(const RayLaunch& l, const float* y, float* x, cudaStream_t stream) {
  constexpr int kMaxZ = 65535;  // the grid's z limit: projections per launch
  for (int k0 = 0; k0 < l.count; k0 += kMaxZ) {
    RayLaunch part = l;
    part.views = l.views + k0;
    part.count = l.count - k0 < kMaxZ ? l.count - k0 : kMaxZ;
    const dim3 grid((l.sx + l.block.x - 1) / l.block.x, (l.sy + l.block.y - 1) / l.block.y, part.count);
    back_kernel<<<grid, l.block, 0, stream>>>(part, y + static_cast<std::size_t>(k0) * l.sx * l.sy, x);
    TOMO_CUDA_CHECK_LAST();
  }
}

}  // namespace tomo::bench::fdk_projector

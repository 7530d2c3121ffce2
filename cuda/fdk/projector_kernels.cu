// Cone-beam projector pair on CUDA (see projector_kernels.hpp): A gathers trilinear samples
// along each pixel's ray from a 3D texture, Aᵀ scatters the same samples with the same weights.
#include <cuda_runtime.h>

#include "compute/fdk/kernel_math.hpp"
#include "cuda/core/check.hpp"
#include "cuda/fdk/projector_kernels.hpp"

namespace tomo::fdk::cuda_detail {
namespace {

// The ray of pixel (i, j) of stack entry k, cut as the cpu reference cuts it (double), then
// walked in float in index coordinates (|p| ≤ n: float keeps 1e-5 voxel).
struct FloatRay {
  float start[3], step[3], weight;
  int count;
};

__device__ __forceinline__ FloatRay ray_of(const RayLaunch& l, int i, int j, int k) {
  const int view = l.views[k];
  const RaySamples s = ray_samples(l.rays[view], l.dims, i, j, l.step_mm);
  FloatRay r;
  for (int a = 0; a < 3; ++a) {
    r.start[a] = static_cast<float>(s.start[a]);
    r.step[a] = static_cast<float>(s.step[a]);
  }
  r.weight = static_cast<float>(s.weight_mm);
  r.count = s.count;
  return r;
}

// Trilinear sample at index point p with fp32 weights: eight point fetches at texel centres,
// the border reads 0 for taps outside (ray_model's skipped taps).
__device__ __forceinline__ float trilinear_exact(cudaTextureObject_t tex, float px, float py, float pz) {
  const float fx = floorf(px), fy = floorf(py), fz = floorf(pz);
  const float ax = px - fx, ay = py - fy, az = pz - fz;
  const float x0 = fx + 0.5f, y0 = fy + 0.5f, z0 = fz + 0.5f;
  const float c000 = tex3D<float>(tex, x0, y0, z0), c100 = tex3D<float>(tex, x0 + 1, y0, z0);
  const float c010 = tex3D<float>(tex, x0, y0 + 1, z0), c110 = tex3D<float>(tex, x0 + 1, y0 + 1, z0);
  const float c001 = tex3D<float>(tex, x0, y0, z0 + 1), c101 = tex3D<float>(tex, x0 + 1, y0, z0 + 1);
  const float c011 = tex3D<float>(tex, x0, y0 + 1, z0 + 1), c111 = tex3D<float>(tex, x0 + 1, y0 + 1, z0 + 1);
  const float c00 = fmaf(ax, c100 - c000, c000), c10 = fmaf(ax, c110 - c010, c010);
  const float c01 = fmaf(ax, c101 - c001, c001), c11 = fmaf(ax, c111 - c011, c011);
  const float c0 = fmaf(ay, c10 - c00, c00), c1 = fmaf(ay, c11 - c01, c01);
  return fmaf(az, c1 - c0, c0);
}

template <bool kHardware>
__global__ void forward_kernel(const RayLaunch l, cudaTextureObject_t tex, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= l.sx || j >= l.sy) return;
  const FloatRay r = ray_of(l, i, j, k);
  float sum = 0.0f;
#pragma unroll 4
  for (int n = 0; n < r.count; ++n) {  // unrolled: four independent fetches in flight
    const float fn = static_cast<float>(n);
    const float px = fmaf(fn, r.step[0], r.start[0]);
    const float py = fmaf(fn, r.step[1], r.start[1]);
    const float pz = fmaf(fn, r.step[2], r.start[2]);
    if constexpr (kHardware)
      sum += tex3D<float>(tex, px + 0.5f, py + 0.5f, pz + 0.5f);
    else
      sum += trilinear_exact(tex, px, py, pz);
  }
  y[(static_cast<size_t>(k) * l.sy + j) * l.sx + i] = sum * r.weight;
}

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
  float acc[8];
  int cx = 0, cy = 0, cz = 0;
  bool open = false;
  for (int n = 0; n < r.count; ++n) {
    const float fn = static_cast<float>(n);
    const float px = fmaf(fn, r.step[0], r.start[0]);
    const float py = fmaf(fn, r.step[1], r.start[1]);
    const float pz = fmaf(fn, r.step[2], r.start[2]);
    const float fx = floorf(px), fy = floorf(py), fz = floorf(pz);
    const float ax = px - fx, ay = py - fy, az = pz - fz;
    const int ix = static_cast<int>(fx), iy = static_cast<int>(fy), iz = static_cast<int>(fz);
    if (!open || ix != cx || iy != cy || iz != cz) {
      if (open) flush_cell(x, nx, ny, nz, cx, cy, cz, acc);
      cx = ix;
      cy = iy;
      cz = iz;
      open = true;
#pragma unroll
      for (int q = 0; q < 8; ++q) acc[q] = 0.0f;
    }
    const float w0 = c * (1.0f - az), w1 = c * az;
    const float w00 = w0 * (1.0f - ay), w01 = w0 * ay, w10 = w1 * (1.0f - ay), w11 = w1 * ay;
    acc[0] = fmaf(w00, 1.0f - ax, acc[0]);
    acc[1] = fmaf(w00, ax, acc[1]);
    acc[2] = fmaf(w01, 1.0f - ax, acc[2]);
    acc[3] = fmaf(w01, ax, acc[3]);
    acc[4] = fmaf(w10, 1.0f - ax, acc[4]);
    acc[5] = fmaf(w10, ax, acc[5]);
    acc[6] = fmaf(w11, 1.0f - ax, acc[6]);
    acc[7] = fmaf(w11, ax, acc[7]);
  }
  if (open) flush_cell(x, nx, ny, nz, cx, cy, cz, acc);
}

dim3 grid_of(const RayLaunch& l) {
  return dim3((l.sx + l.block.x - 1) / l.block.x, (l.sy + l.block.y - 1) / l.block.y, l.count);
}

// Calls launch(part, offset) over pieces of at most 65535 projections (the grid's z limit).
template <class Launch>
void in_pieces(const RayLaunch& l, Launch&& launch) {
  constexpr int kMaxZ = 65535;
  for (int k0 = 0; k0 < l.count; k0 += kMaxZ) {
    RayLaunch part = l;
    part.views = l.views + k0;
    part.count = l.count - k0 < kMaxZ ? l.count - k0 : kMaxZ;
    launch(part, static_cast<size_t>(k0) * l.sx * l.sy);
  }
}

}  // namespace

void launch_forward(const RayLaunch& l, cudaTextureObject_t volume, bool hardware, float* y, cudaStream_t stream) {
  in_pieces(l, [&](const RayLaunch& p, size_t offset) {
    if (hardware)
      forward_kernel<true><<<grid_of(p), p.block, 0, stream>>>(p, volume, y + offset);
    else
      forward_kernel<false><<<grid_of(p), p.block, 0, stream>>>(p, volume, y + offset);
    TOMO_CUDA_CHECK_LAST();
  });
}

void launch_back(const RayLaunch& l, const float* y, float* x, cudaStream_t stream) {
  in_pieces(l, [&](const RayLaunch& p, size_t offset) {
    back_kernel<<<grid_of(p), p.block, 0, stream>>>(p, y + offset, x);
    TOMO_CUDA_CHECK_LAST();
  });
}

}  // namespace tomo::fdk::cuda_detail

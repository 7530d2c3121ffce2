// Device helpers of the projector pair's ray walk (projector_kernels.cu, and the bench's
// comparison kernels): a pixel's ray as floats, and a sample's trilinear weights.
#pragma once
#include <cuda_runtime.h>

#include "cuda/fdk/projector_kernels.hpp"

namespace tomo::fdk::cuda_detail {

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

// A sample of weight c at fractions (ax, ay, az) of its cell, added to the cell's 8 corner sums
// (corner index dx + 2·dy + 4·dz): the forward's trilinear weights in fp32.
__device__ __forceinline__ void add_sample(float* acc, float c, float ax, float ay, float az) {
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

// The corner sums of the cell a ray is in: add() sums a sample into them, first handing the
// previous cell's sums to flush(x, y, z, sums) when the ray has stepped into another cell, so
// that the consecutive samples of a cell (two per voxel at half-voxel steps) reach memory once.
struct CellSums {
  float acc[8];
  int x = 0, y = 0, z = 0;
  bool open = false;

  template <class Flush>
  __device__ __forceinline__ void add(int ix, int iy, int iz, float c, float ax, float ay, float az, Flush&& flush) {
    if (!open || ix != x || iy != y || iz != z) {
      if (open) flush(x, y, z, acc);
      x = ix;
      y = iy;
      z = iz;
      open = true;
#pragma unroll
      for (int q = 0; q < 8; ++q) acc[q] = 0.0f;
    }
    add_sample(acc, c, ax, ay, az);
  }
  template <class Flush>
  __device__ __forceinline__ void close(Flush&& flush) {
    if (open) flush(x, y, z, acc);
  }
};

}  // namespace tomo::fdk::cuda_detail

// fdk CUDA kernels: voxel-driven RabbitCT back-projection ([Hofmann2010] Algorithm 1, one thread per
// (x, y) column segment of kVoxelsPerThread z-voxels, all projections of a launch from a layered
// texture, matrices from constant memory).
#include <cuda_runtime.h>

#include "compute/fdk/kernel_math.hpp"
#include "cuda/core/check.hpp"
#include "cuda/fdk/kernels.hpp"

namespace tomo::fdk::cuda_detail {
namespace {

// Kernel parameters live in the constant bank: uniform matrix reads are broadcasts.
struct MatrixBlock {
  float m[kMaxProjectionsPerLaunch * 12];
};

__device__ __forceinline__ float bilinear_exact(cudaTextureObject_t tex, float u, float v, int layer) {
  // Point-sampled taps at texel centres (fu + 0.5, fv + 0.5); border mode reads 0 outside.
  return bilinear_sample(u, v, [&](float fu, float fv, int di, int dj) {
    const float x0 = fu + 0.5f, y0 = fv + 0.5f;
    return tex2DLayered<float>(tex, di ? x0 + 1.0f : x0, dj ? y0 + 1.0f : y0, layer);
  });
}

template <bool kExact>
__global__ void __launch_bounds__(kBlockX* kBlockY) backproject_kernel(SlabView s, cudaTextureObject_t tex,
                                                                          const __grid_constant__ MatrixBlock mats,
                                                                          int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kb = blockIdx.z * kVoxelsPerThread;  // first slab-local z of this thread
  if (i >= s.nx || j >= s.ny) return;
  const float x = s.origin[0] + i * s.voxel[0];
  const float y = s.origin[1] + j * s.voxel[1];
  const float z0 = s.origin[2] + (s.k0 + kb) * s.voxel[2];
  float acc[kVoxelsPerThread];
#pragma unroll
  for (int q = 0; q < kVoxelsPerThread; ++q) acc[q] = 0.0f;

  for (int n = 0; n < count; ++n) {
    const float* A = mats.m + 12 * n;
    // The x/y part of u, v, w is shared by the thread's z-voxels ([Hofmann2010] §3.3 idea).
    const float cu = fmaf(A[0], x, fmaf(A[3], y, A[9]));
    const float cv = fmaf(A[1], x, fmaf(A[4], y, A[10]));
    const float cw = fmaf(A[2], x, fmaf(A[5], y, A[11]));
#pragma unroll
    for (int q = 0; q < kVoxelsPerThread; ++q) {
      const float z = z0 + q * s.voxel[2];
      const float rw = __fdividef(1.0f, fmaf(A[8], z, cw));  // w ∈ (0.5, 2): the fast reciprocal is exact to ~2 ulp
      const float u = fmaf(A[6], z, cu) * rw;
      const float v = fmaf(A[7], z, cv) * rw;
      float p;
      if constexpr (kExact)
        p = bilinear_exact(tex, u, v, n);
      else
        p = tex2DLayered<float>(tex, u + 0.5f, v + 0.5f, n);
      acc[q] = fmaf(rw * rw, p, acc[q]);  // RabbitCT update: f += p / w²
    }
  }
#pragma unroll
  for (int q = 0; q < kVoxelsPerThread; ++q)
    if (kb + q < s.nz) s.volume[(static_cast<size_t>(kb + q) * s.ny + j) * s.nx + i] += acc[q];
}

dim3 grid_for(int nx, int ny, int nz) {
  return dim3((nx + kBlockX - 1) / kBlockX, (ny + kBlockY - 1) / kBlockY,
              (nz + kVoxelsPerThread - 1) / kVoxelsPerThread);
}

}  // namespace

void launch_backproject(const SlabView& slab, cudaTextureObject_t tex, const float* matrices, int count, bool exact,
                        cudaStream_t stream) {
  MatrixBlock block_m{};
  for (int e = 0; e < 12 * count; ++e) block_m.m[e] = matrices[e];
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid = grid_for(slab.nx, slab.ny, slab.nz);
  if (exact)
    backproject_kernel<true><<<grid, block, 0, stream>>>(slab, tex, block_m, count);
  else
    backproject_kernel<false><<<grid, block, 0, stream>>>(slab, tex, block_m, count);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::fdk::cuda_detail

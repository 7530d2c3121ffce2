// oat FBP CUDA kernels read through the texture path: the fused discrete formula ([Wang2013]), one
// thread per column of kFbpVoxelsPerThread z-voxels, transducers staged through shared memory in
// tiles, the data (M_k, D_k) read with one float2 fetch per voxel and transducer, k̃ recomputed in
// double for the pairs next to a sample boundary; and the data table built from device pressure.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/core/check.hpp"
#include "cuda/oat/fbp_kernels.hpp"
#include "cuda/oat/fbp_math.cuh"

namespace tomo::oat::cuda_detail {
namespace {

constexpr int kThreads = kFbpBlockX * kFbpBlockY * kFbpBlockZ;
constexpr int kV = kFbpVoxelsPerThread;
// Loads transducers [q0, q0 + n) into `tile` (all threads of the block take part).
__device__ __forceinline__ void load_tile(float4* tile, const float4* __restrict__ tr, int q0, int n, int tid) {
  __syncthreads();  // the previous tile is no longer read
  for (int t = tid; t < n; t += kThreads) tile[t] = tr[q0 + t];
  __syncthreads();
}

// This thread's voxel column: (i, j, kb … kb + kV − 1), and its index in the block.
struct Column {
  int i, j, kb, tid;
};
__device__ __forceinline__ Column column(const FbpParams&) {
  return {static_cast<int>(blockIdx.x * kFbpBlockX + threadIdx.x), static_cast<int>(blockIdx.y * kFbpBlockY + threadIdx.y),
          static_cast<int>((blockIdx.z * kFbpBlockZ + threadIdx.z) * kV),
          static_cast<int>(threadIdx.x + kFbpBlockX * (threadIdx.y + kFbpBlockY * threadIdx.z))};
}

template <FbpFetch kFetch>
__global__ void __launch_bounds__(kThreads) fbp_kernel(FbpParams p, const float4* __restrict__ tr,
                                                        cudaTextureObject_t tex, const float2* __restrict__ table,
                                                        float* __restrict__ image) {
  __shared__ float4 tile[kFbpTile];
  const Column c = column(p);
  const int i = c.i, j = c.j, kb = c.kb, tid = c.tid;
  const float x = i * p.voxel, y = j * p.voxel, z0 = kb * p.voxel;
  const float near = 0.5f - p.eps;  // |g| beyond: k̃ within eps of an integer
  float a1[kV], a2[kV];
#pragma unroll
  for (int v = 0; v < kV; ++v) a1[v] = a2[v] = 0.0f;
  // Threads outside the grid compute too (they take part in the tile loads) but write nothing.
  for (int q0 = 0; q0 < p.transducers; q0 += kFbpTile) {
    const int n = min(kFbpTile, p.transducers - q0);
    load_tile(tile, tr, q0, n, tid);
    for (int t = 0; t < n; ++t) {
      const float4 s = tile[t];  // a broadcast: every thread reads the same transducer
      const float2* row = table + static_cast<size_t>(q0 + t) * p.width;
      const float dx = x - s.x, dy = y - s.y, dz0 = z0 - s.z;
      const float dxy2 = fmaf(dx, dx, dy * dy);
#pragma unroll
      for (int v = 0; v < kV; ++v) {
        const float dz = fmaf(static_cast<float>(v), p.voxel, dz0);
        const float d2 = fmaf(dz, dz, dxy2);
        const float inv = fbp_rsqrt(d2);  // 1/d (and d = d²/d): one special-function op per update
        const float kh = fmaf(d2 * inv, p.inv_c0dt, -p.tau0h);  // k̃ − ½ = (d/c₀ − t_min)/Δt − ½
        FbpSplit sp = fbp_split(kh);
        if (!(fabsf(sp.g) <= near))
          sp = fbp_refine(p.positions, p.voxel_d, p.inv_c0dt_d, p.tau0_d, q0 + t, i, j, kb + v);
        float2 T;
        if constexpr (kFetch == FbpFetch::texture)
          T = tex2D<float2>(tex, sp.kf + 0.5f, s.w);  // border: 0 outside k = 0..K−2
        else
          T = static_cast<unsigned>(sp.k) < static_cast<unsigned>(p.width) ? __ldg(row + sp.k)
                                                                           : make_float2(0.0f, 0.0f);
        a1[v] = fmaf(fmaf(sp.g, T.y, T.x), inv, a1[v]);
        a2[v] += T.y;
      }
    }
  }
  if (i >= p.nx || j >= p.ny) return;
#pragma unroll
  for (int v = 0; v < kV; ++v)
    if (kb + v < p.nz)
      image[(static_cast<size_t>(kb + v) * p.ny + j) * p.nx + i] = fmaf(p.lin_scale, a1[v], p.diff_scale * a2[v]);
}

// FbpDevice::upload's table, from float pressure on the device: entry (k, q) = w_q·(½(p_k + p_{k+1}),
// p_{k+1} − p_k) in double, then float (the same operations as the host's).
__global__ void fbp_table_kernel(const float* __restrict__ p, const double* __restrict__ w, int K, size_t n,
                                 float2* __restrict__ table) {
  const size_t width = static_cast<size_t>(K) - 1;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t q = i / width, k = i - q * width;
    const double a = p[q * K + k], b = p[q * K + k + 1];
    table[i] = make_float2(static_cast<float>(w[q] * 0.5 * (a + b)), static_cast<float>(w[q] * (b - a)));
  }
}

dim3 fbp_grid(const FbpParams& p) {
  constexpr int z_per_block = kFbpBlockZ * kV;
  return dim3((p.nx + kFbpBlockX - 1) / kFbpBlockX, (p.ny + kFbpBlockY - 1) / kFbpBlockY,
              (p.nz + z_per_block - 1) / z_per_block);
}

}  // namespace

void launch_fbp(const FbpParams& p, const float4* transducers, cudaTextureObject_t data, const float2* table,
                float* image, FbpFetch fetch, cudaStream_t stream) {
  if (p.nx <= 0 || p.ny <= 0 || p.nz <= 0 || p.transducers <= 0) return;
  const dim3 block(kFbpBlockX, kFbpBlockY, kFbpBlockZ);
  if (fetch == FbpFetch::texture)
    fbp_kernel<FbpFetch::texture><<<fbp_grid(p), block, 0, stream>>>(p, transducers, data, table, image);
  else
    fbp_kernel<FbpFetch::ldg><<<fbp_grid(p), block, 0, stream>>>(p, transducers, data, table, image);
  TOMO_CUDA_CHECK_LAST();
}

void launch_fbp_table(const float* pressure, const double* weights, int transducers, int samples, float2* table,
                      cudaStream_t stream) {
  const size_t n = static_cast<size_t>(samples - 1) * static_cast<size_t>(transducers);
  if (n == 0) return;
  const int threads = 256;
  const int blocks = static_cast<int>(std::min<size_t>((n + threads - 1) / threads, 65535));
  fbp_table_kernel<<<blocks, threads, 0, stream>>>(pressure, weights, samples, n, table);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::oat::cuda_detail

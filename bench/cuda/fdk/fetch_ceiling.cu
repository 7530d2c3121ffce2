// Texture-fetch ceiling for bench_fdk (see fetch_ceiling.hpp): the back-projection's grid and
// number of hardware-filtered fetches, with affine coordinates instead of projective ones.
#include "bench/cuda/fdk/fetch_ceiling.hpp"

#include <cuda_runtime.h>

#include <vector>

#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/fdk/kernels.hpp"

namespace tomo::bench::fdk {
namespace {

using tomo::fdk::cuda_detail::kBlockX;
using tomo::fdk::cuda_detail::kBlockY;
using tomo::fdk::cuda_detail::kVoxelsPerThread;

__global__ void __launch_bounds__(kBlockX* kBlockY) fetch_only_kernel(float* out, cudaTextureObject_t tex,
                                                                         int count, int nx, int ny, int nz,
                                                                         float su, float sv, float sz) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kb = blockIdx.z * kVoxelsPerThread;
  if (i >= nx || j >= ny) return;
  float acc[kVoxelsPerThread];
#pragma unroll
  for (int q = 0; q < kVoxelsPerThread; ++q) acc[q] = 0.0f;
  for (int n = 0; n < count; ++n) {
    const float u = i * su + 0.37f * n + 0.5f;
#pragma unroll
    for (int q = 0; q < kVoxelsPerThread; ++q) acc[q] += tex2DLayered<float>(tex, u, j * sv + (kb + q) * sz + 0.5f, n);
  }
#pragma unroll
  for (int q = 0; q < kVoxelsPerThread; ++q)
    if (kb + q < nz) out[(static_cast<size_t>(kb + q) * ny + j) * nx + i] = acc[q];
}

// G fetches/s of one launch of `count` layers over an nx·ny·nz grid, timed with events (best of
// `repeats`).
double fetch_ceiling_gfetches(cudaTextureObject_t tex, int sx, int sy, int count, int nx, int ny, int nz,
                              float* scratch, int repeats) {
  cudaEvent_t a, b;
  TOMO_CUDA_CHECK(cudaEventCreate(&a));
  TOMO_CUDA_CHECK(cudaEventCreate(&b));
  // In-image coordinates with the back-projection's neighbourhood: x along u, y and z along v.
  const float su = 0.8f * sx / nx, sv = 0.75f * sy / ny, sz = 0.2f * sy / nz;
  const dim3 grid((nx + kBlockX - 1) / kBlockX, (ny + kBlockY - 1) / kBlockY,
                  (nz + kVoxelsPerThread - 1) / kVoxelsPerThread);
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    TOMO_CUDA_CHECK(cudaEventRecord(a));
    fetch_only_kernel<<<grid, dim3(kBlockX, kBlockY)>>>(scratch, tex, count, nx, ny, nz, su, sv, sz);
    TOMO_CUDA_CHECK_LAST();
    TOMO_CUDA_CHECK(cudaEventRecord(b));
    TOMO_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    TOMO_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    best = ms < best ? ms : best;
  }
  TOMO_CUDA_LOG(cudaEventDestroy(a));
  TOMO_CUDA_LOG(cudaEventDestroy(b));
  return static_cast<double>(nx) * ny * nz * count / (best * 1e6);
}

}  // namespace

FetchCeiling measure_fetch_ceiling(int sx, int sy, int layers, int n) {
  using namespace tomo::cuda;
  CudaArray array = CudaArray::of<float>(
      ArrayExtent{static_cast<std::size_t>(sx), static_cast<std::size_t>(sy), static_cast<std::size_t>(layers)},
      cudaArrayLayered);
  std::vector<float> host(static_cast<std::size_t>(sx) * sy * layers);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
  array.copy_from_host(host.data());
  TextureObject tex(array, TextureOptions::linear_clamp().with_address(cudaAddressModeBorder));
  DeviceBuffer<float> scratch(static_cast<std::size_t>(n) * n * n);
  FetchCeiling c;
  c.layers = layers;
  c.sx = sx;
  c.sy = sy;
  c.n = n;
  c.gfetches_per_s = fetch_ceiling_gfetches(tex, sx, sy, layers, n, n, n, scratch.data(), 3);
  return c;
}

}  // namespace tomo::bench::fdk

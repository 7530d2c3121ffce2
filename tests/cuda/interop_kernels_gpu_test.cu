// Kernels for interop_gpu_test.cpp (no tests here: the file name only places it in test_cuda_gpu).
#include "tests/cuda/interop_kernels.hpp"

#include "cuda/core/check.hpp"

namespace tomo::cuda::test {
namespace {

__global__ void affine_kernel(float* v, std::size_t n, float a, float b) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) v[i] = a * v[i] + b;
}

__global__ void pattern_kernel(cudaSurfaceObject_t surf, int w, int h, int d, int z0) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = d == 0 ? z0 : int(blockIdx.z);
  if (x >= w || y >= h) return;
  const float v = float(z * 100000 + y * w + x);
  if (d == 0)
    surf2Dwrite(v, surf, x * int(sizeof(float)), y);
  else
    surf3Dwrite(v, surf, x * int(sizeof(float)), y, z);
}

__global__ void read_kernel(cudaTextureObject_t tex, float* out, int w, int h, int d) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x >= w || y >= h) return;
  const float v = d == 0 ? tex2D<float>(tex, x + 0.5f, y + 0.5f) : tex3D<float>(tex, x + 0.5f, y + 0.5f, z + 0.5f);
  out[(std::size_t(z) * h + y) * w + x] = v;
}

dim3 grid_of(int w, int h, int d) { return dim3((w + 15) / 16, (h + 15) / 16, d == 0 ? 1 : d); }

}  // namespace

void launch_affine(float* v, std::size_t n, float a, float b, cudaStream_t stream) {
  affine_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(v, n, a, b);
  TOMO_CUDA_CHECK_LAST();
}

void launch_write_pattern(cudaSurfaceObject_t surf, int w, int h, int d, int z0, cudaStream_t stream) {
  pattern_kernel<<<grid_of(w, h, d), dim3(16, 16), 0, stream>>>(surf, w, h, d, z0);
  TOMO_CUDA_CHECK_LAST();
}

void launch_read_texture(cudaTextureObject_t tex, float* out, int w, int h, int d, cudaStream_t stream) {
  read_kernel<<<grid_of(w, h, d), dim3(16, 16), 0, stream>>>(tex, out, w, h, d);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::cuda::test

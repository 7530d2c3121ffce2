// Bench-only: em_ratio.hpp.
#include "bench/cuda/pet/em_ratio.hpp"
#include "cuda/core/check.hpp"

namespace tomo::pet::probes {

namespace {

__global__ void ratio_kernel(const float* __restrict__ y, const float* __restrict__ q, float* __restrict__ r, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) r[i] = q[i] > 0.f ? y[i] / q[i] : 0.f;
}

}  // namespace

void launch_em_ratio(const float* y, const float* q, float* r, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  ratio_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(y, q, r, n);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::pet::probes

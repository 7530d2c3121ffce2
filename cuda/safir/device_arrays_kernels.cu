// The permutations between the caller's event order and the label-sorted order of the cuda
// backend's device-memory calls (DeviceOperator): values out to event order, values in to sorted
// order; the check of events given in device memory, the sensitivity's pair lists made on the
// device, and the image fill of Python's ML-EM.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/core/check.hpp"
#include "cuda/safir/device_arrays_kernels.hpp"

namespace tomo::safir::cuda_impl {

namespace {
constexpr int kPermuteThreads = 256;

// y[order[i]] = i < first ? 0 : sorted[i]: label-0 events (outside the box) get 0.
__global__ void scatter_to_events(const float* sorted, const std::uint32_t* order, std::size_t first, std::size_t n,
                                  float* y) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[order[i]] = i < first ? 0.0f : sorted[i];
}

__global__ void gather_from_events(const float* v, const std::uint32_t* order, std::size_t n, float* sorted) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) sorted[i] = v[order[i]];
}

// The lowest row with an id beyond the scanner: label_and_sort reads crystals[id] unchecked.
__global__ void find_bad_events(const std::uint32_t* ids, std::size_t n, std::uint32_t crystals,
                                unsigned long long* first_bad) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && (ids[2 * i] >= crystals || ids[2 * i + 1] >= crystals))
    atomicMin(first_bad, static_cast<unsigned long long>(i));
}

__global__ void pair_events(const std::uint32_t* first, std::size_t n, std::uint32_t crystals, uint2* ids) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= n) return;
  const std::uint32_t a = first[e / (crystals - 1)];
  const std::uint32_t k = static_cast<std::uint32_t>(e % (crystals - 1));
  ids[e] = make_uint2(a, k < a ? k : k + 1);
}

__global__ void fill(float* f, std::size_t n, float value) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f[i] = value;
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kPermuteThreads - 1) / kPermuteThreads); }
}  // namespace

void launch_scatter_to_events(const float* sorted, const std::uint32_t* order, std::size_t first, std::size_t n,
                              float* y, cudaStream_t stream) {
  if (n == 0) return;
  scatter_to_events<<<blocks_for(n), kPermuteThreads, 0, stream>>>(sorted, order, first, n, y);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

void launch_gather_from_events(const float* v, const std::uint32_t* order, std::size_t n, float* sorted,
                               cudaStream_t stream) {
  if (n == 0) return;
  gather_from_events<<<blocks_for(n), kPermuteThreads, 0, stream>>>(v, order, n, sorted);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

void launch_find_bad_events(const std::uint32_t* ids, std::size_t n, std::uint32_t crystals,
                            unsigned long long* first_bad, cudaStream_t stream) {
  if (n == 0) return;
  find_bad_events<<<blocks_for(n), kPermuteThreads, 0, stream>>>(ids, n, crystals, first_bad);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

void launch_pair_events(const std::uint32_t* first, std::size_t n_first, std::uint32_t crystals, std::uint32_t* ids,
                        cudaStream_t stream) {
  const std::size_t n = n_first * (crystals - 1);
  if (n == 0) return;
  pair_events<<<blocks_for(n), kPermuteThreads, 0, stream>>>(first, n, crystals, reinterpret_cast<uint2*>(ids));
  TOMO_CUDA_CHECK(cudaGetLastError());
}

void launch_fill(float* f, std::size_t n, float value, cudaStream_t stream) {
  if (n == 0) return;
  fill<<<blocks_for(n), kPermuteThreads, 0, stream>>>(f, n, value);
  TOMO_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tomo::safir::cuda_impl

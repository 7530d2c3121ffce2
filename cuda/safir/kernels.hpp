// Launchers of the safir CUDA kernels ([Locans2017] §5.3): labels and sort by key (CUB radix sort
// from the toolkit's CCCL), forward projection (gather), back-projection (atomicAdd), the fused
// ML-EM pass, the image update and the sphere sums. Host-callable; the kernels are in kernels.cu.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "compute/safir/kernel_math.hpp"

namespace tomo::safir::cuda_impl {

inline constexpr int kThreads = 256;

// A window of events: labels → keys, indices 0..n−1 → values, both sorted by key (stable), then
// the sorted events packed as {a | label << 30, b}. `counts` (device, 4 entries) receives the
// label histogram. `temp` must hold sort_temp_bytes(n).
struct SortArgs {
  const uint2* events = nullptr;  // window start, acquisition order
  std::size_t n = 0;
  const float4* crystals = nullptr;
  BoxParams<float> box{};
  std::uint8_t *keys_in = nullptr, *keys_out = nullptr;
  std::uint32_t *order_in = nullptr, *order_out = nullptr;
  uint2* sorted = nullptr;
  unsigned long long* counts = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
};
std::size_t sort_temp_bytes(std::size_t n);
void label_and_sort(const SortArgs& a, cudaStream_t stream);

struct ProjectArgs {
  const uint2* sorted = nullptr;  // labelled events (label 0 ones first; skipped by `first`)
  std::size_t first = 0, n = 0;   // [first, n) are processed
  const float4* crystals = nullptr;
  BoxParams<float> box{};
  const float* f = nullptr;       // image
  float* values = nullptr;        // per sorted event: forward out, back in (null: ones)
  float* acc = nullptr;           // back-projection accumulator (zeroed by the caller)
  float randoms = 0;
};
void launch_forward(const ProjectArgs& a, cudaStream_t stream);
void launch_back(const ProjectArgs& a, cudaStream_t stream);
void launch_mlem(const ProjectArgs& a, cudaStream_t stream);
// f ← s > 0 ? f · c / s : 0 (eq. (10)).
void launch_update(float* f, const float* c, const float* s, std::size_t voxels, cudaStream_t stream);
// The same, and c ← 0 (one pass instead of a clear before each subset's back-projection), and
// y[0, n) ← 0 (ȳ of the next tiled forward pass; y null: none).
void launch_update_clear(float* f, float* c, const float* s, std::size_t voxels, float* y, std::size_t n,
                         cudaStream_t stream);
// sums[v] = (inner, shell, n_inner, n_shell) over `offsets` = (di, dj, dk, shell).
void launch_sphere_sums(const float* f, const int4* offsets, int n_offsets, int nx, int ny, int nz, float4* sums,
                        cudaStream_t stream);

}  // namespace tomo::safir::cuda_impl

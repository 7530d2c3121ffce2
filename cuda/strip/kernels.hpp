// Launchers of the strip ML-EM CUDA kernels ([Bialas2015] §4.2): thread granularity (one event per
// thread) and warp granularity (one event per warp). Host-callable; the kernels live in kernels.cu.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "compute/strip/kernel_math.hpp"

namespace tomo::strip::cuda_impl {

struct IterationArgs {
  const float* events = nullptr;  // n × {z̃u, z̃d, Δl̃}
  std::size_t n = 0;
  cudaTextureObject_t rho = 0;    // ρ' of the previous iteration: 2D float texture, nz wide, ny high
  float* rho_new = nullptr;       // ny·nz, zeroed by the caller; receives eq. (5)
  GridParams<float> grid{};
  KernelParams<float> kp{};
};

// Warp granularity: lane r takes row j0 + r of the event's ellipse and walks its z interval; the first
// kRowCachePerLane values of the row stay in registers for the second pass.
inline constexpr int kRowCachePerLane = 11;
inline constexpr int kThreadsPerBlock = 256;

void launch_thread_granularity(const IterationArgs& a, int blocks, cudaStream_t stream);
// shared_accumulation: each block sums ρ_new in shared memory (ny·nz floats) and adds it to the
// global image once at the end; otherwise every contribution is a global atomicAdd.
void launch_warp_granularity(const IterationArgs& a, int blocks, bool shared_accumulation, cudaStream_t stream);
// Resident blocks per SM of the warp kernel for a given dynamic shared memory size (0 when it cannot run).
int warp_blocks_per_sm(bool shared_accumulation, std::size_t shared_bytes);
int thread_blocks_per_sm();

}  // namespace tomo::strip::cuda_impl

// Launcher of the strip Monte-Carlo's CUDA kernel (simulator.cu): one thread per event slot,
// each on its own CounterRng stream, the per-event physics of compute/strip/simulator_math.hpp.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "compute/strip/simulator_math.hpp"

namespace tomo::strip::cuda_impl {

struct SlotLaunch {
  SlotParams params{};
  const EllipseTerm* rows = nullptr;  // device memory, n_rows
  int n_rows = 0;
  std::uint64_t seed = 0;
  std::uint64_t first = 0;  // the first slot's index (its stream)
  std::uint64_t n = 0;      // slots in this launch
  float* events = nullptr;  // n × {z̃u, z̃d, Δl̃}, float32
  // Device counters, added to: {emitted pairs, sampled points, slots that found no event}.
  unsigned long long* sums = nullptr;
};

void launch_slots(const SlotLaunch& a, cudaStream_t stream);

}  // namespace tomo::strip::cuda_impl

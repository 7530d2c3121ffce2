// Launcher of safir's Monte-Carlo CUDA kernel (simulator.cu): one thread per prompt event, each on
// its own CounterRng stream, the per-event physics of compute/safir/simulator_math.hpp.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "compute/safir/simulator_math.hpp"

namespace tomo::safir::cuda_impl {

struct EventLaunch {
  mc::Params params{};
  const double* cdf = nullptr;    // device memory, params.n_sources
  const mc::Ball* balls = nullptr;  // device memory, params.n_sources − 1
  std::uint64_t seed = 0;
  std::uint64_t first = 0;  // the first event's index (its stream)
  std::uint64_t n = 0;      // events in this launch
  // Under mpirun only this process's chunks (chunk c of `chunk` events when c mod size = rank).
  std::uint64_t chunk = 1;
  int rank = 0, size = 1;
  std::uint32_t* events = nullptr;  // 2 × (first + n) crystal ids {a, b}, event k at 2k
  // Device counters, added to: {annihilations, randoms, scattered, events that gave up}.
  unsigned long long* sums = nullptr;
};

void launch_events(const EventLaunch& a, cudaStream_t stream);

// The time stamps of `events` prompts over [0, duration_s) into t (device, `events` values), the
// host's time_stamps() bit for bit: each block of mc::kGapBlock gaps drawn in parallel and summed
// in order by one thread, the blocks' totals added in order, then offset and scaled. `sums` is
// device scratch of stamp_sums_size(events) doubles.
std::uint64_t stamp_sums_size(std::uint64_t events);
void launch_time_stamps(std::uint64_t events, double duration_s, std::uint64_t seed, double* t, double* sums,
                        cudaStream_t stream);

}  // namespace tomo::safir::cuda_impl

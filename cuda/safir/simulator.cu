// safir's Monte-Carlo on the GPU: one thread per prompt event, in double precision as the cpu
// (compute/safir/simulator_math.hpp, one copy of the physics), the crystal pair written in place
// and the event's counts summed per warp before one atomic add each.
#include "cuda/safir/simulator_kernels.hpp"

#include "cuda/core/check.hpp"

namespace tomo::safir::cuda_impl {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) event_kernel(EventLaunch a) {
  const std::uint64_t e = a.first + std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned emissions = 0, randoms = 0, scattered = 0, unseen = 0;
  if (e < a.first + a.n && (a.size <= 1 || (e / a.chunk) % std::uint64_t(a.size) == std::uint64_t(a.rank))) {
    CounterRng rng(a.seed, e);
    const mc::EventResult r = mc::simulate_event(rng, a.params, a.cdf, a.balls);
    a.events[2 * e] = r.a;
    a.events[2 * e + 1] = r.b;
    emissions = r.emissions;
    randoms = r.kind == mc::kRandom;
    scattered = r.kind == mc::kScattered;
    unseen = r.detected ? 0u : 1u;
  }
  // An event draws at most Params::max_tries (2^17) annihilations: a warp's sum fits 32 bits.
  emissions = __reduce_add_sync(0xffffffffu, emissions);
  randoms = __reduce_add_sync(0xffffffffu, randoms);
  scattered = __reduce_add_sync(0xffffffffu, scattered);
  unseen = __reduce_add_sync(0xffffffffu, unseen);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(a.sums + 0, (unsigned long long)emissions);
    if (randoms) atomicAdd(a.sums + 1, (unsigned long long)randoms);
    if (scattered) atomicAdd(a.sums + 2, (unsigned long long)scattered);
    if (unseen) atomicAdd(a.sums + 3, (unsigned long long)unseen);
  }
}

}  // namespace

void launch_events(const EventLaunch& a, cudaStream_t stream) {
  if (a.n == 0) return;
  const std::uint64_t blocks = (a.n + kThreads - 1) / kThreads;
  event_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::safir::cuda_impl

// The strip Monte-Carlo on the GPU: one thread per event slot, in double precision as the cpu
// (compute/strip/simulator_math.hpp, one copy of the physics), the event written in place as
// float32 and the slot's counts summed per warp before one atomic add.
#include "cuda/strip/simulator_kernels.hpp"

#include "cuda/core/check.hpp"

namespace tomo::strip::cuda_impl {

namespace {

constexpr int kThreads = 256;

struct KeepAll {
  __device__ bool operator()(CounterRng&, double, double) const { return true; }
};

__global__ void __launch_bounds__(kThreads) slot_kernel(SlotLaunch a) {
  const std::uint64_t k = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned emitted = 0, tries = 0, starved = 0;
  if (k < a.n) {
    CounterRng rng(a.seed, a.first + k);
    const SlotResult r = simulate_slot(rng, a.params, a.rows, a.n_rows, KeepAll{});
    float* e = a.events + 3 * k;
    e[0] = r.z_u;
    e[1] = r.z_d;
    e[2] = r.dl;
    emitted = r.emitted;
    tries = r.tries;
    starved = r.detected ? 0u : 1u;
  }
  // A slot takes at most SlotParams::max_tries points: a warp's sums fit 32 bits.
  emitted = __reduce_add_sync(0xffffffffu, emitted);
  tries = __reduce_add_sync(0xffffffffu, tries);
  starved = __reduce_add_sync(0xffffffffu, starved);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(a.sums + 0, (unsigned long long)emitted);
    atomicAdd(a.sums + 1, (unsigned long long)tries);
    if (starved) atomicAdd(a.sums + 2, (unsigned long long)starved);
  }
}

}  // namespace

void launch_slots(const SlotLaunch& a, cudaStream_t stream) {
  if (a.n == 0) return;
  const std::uint64_t blocks = (a.n + kThreads - 1) / kThreads;
  slot_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::strip::cuda_impl

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

// Block b of kGapBlock gaps: each thread draws two gaps per Philox block of stream kGapStreams + b
// (the host's draws 2j and 2j + 1), then one thread adds them in order, as the host's loop does,
// and leaves the running sums in t and the block's total in sums[b]. The last gap closes the
// process: summed, not stored.
__global__ void __launch_bounds__(kThreads) gap_sums_kernel(std::uint64_t events, std::uint64_t seed, double* t,
                                                            double* sums) {
  __shared__ double closing;
  const std::uint64_t b = blockIdx.x, gaps = events + 1, first = b * mc::kGapBlock;
  const std::uint64_t n = gaps - first < mc::kGapBlock ? gaps - first : mc::kGapBlock;
  for (std::uint64_t j = threadIdx.x; 2 * j < n; j += blockDim.x) {
    CounterRng rng(seed, mc::kGapStreams + b, std::uint32_t(j));
    const double g0 = mc::exponential_gap(rng.uniform());
    const double g1 = mc::exponential_gap(rng.uniform());
    const std::uint64_t i = first + 2 * j;
    if (i < events) t[i] = g0;
    else closing = g0;
    if (2 * j + 1 < n) {
      if (i + 1 < events) t[i + 1] = g1;
      else closing = g1;
    }
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  const std::uint64_t stored = first + n <= events ? n : n - 1;  // the closing gap is not in t
  double* at = t + first;
  double sum = 0;
  std::uint64_t k = 0;
  // Eight loads in flight before their eight dependent additions.
  for (; k + 8 <= stored; k += 8) {
    double v[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) v[q] = at[k + q];
#pragma unroll
    for (int q = 0; q < 8; ++q) at[k + q] = sum += v[q];
  }
  for (; k < stored; ++k) at[k] = sum += at[k];
  if (stored < n) sum += closing;
  sums[b] = sum;
}

// The blocks' offsets in order (sums[b] becomes the total before block b; sums[blocks] the
// total of every gap), then scale = duration / total in sums[blocks + 1].
__global__ void gap_offsets_kernel(std::uint64_t blocks, double duration_s, double* sums) {
  double acc = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const double s = sums[b];
    sums[b] = acc;
    acc += s;
  }
  sums[blocks] = acc;
  sums[blocks + 1] = duration_s / acc;
}

__global__ void __launch_bounds__(kThreads) stamp_scale_kernel(std::uint64_t events, const double* sums,
                                                               std::uint64_t blocks, double* t) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= events) return;
  t[i] = (sums[i / mc::kGapBlock] + t[i]) * sums[blocks + 1];
}

}  // namespace

std::uint64_t stamp_sums_size(std::uint64_t events) { return (events + mc::kGapBlock) / mc::kGapBlock + 2; }

void launch_time_stamps(std::uint64_t events, double duration_s, std::uint64_t seed, double* t, double* sums,
                        cudaStream_t stream) {
  if (events == 0) return;
  const std::uint64_t blocks = (events + mc::kGapBlock) / mc::kGapBlock;  // of events + 1 gaps
  gap_sums_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(events, seed, t, sums);
  TOMO_CUDA_CHECK_LAST();
  gap_offsets_kernel<<<1, 1, 0, stream>>>(blocks, duration_s, sums);
  TOMO_CUDA_CHECK_LAST();
  stamp_scale_kernel<<<unsigned((events + kThreads - 1) / kThreads), kThreads, 0, stream>>>(events, sums, blocks, t);
  TOMO_CUDA_CHECK_LAST();
}

void launch_events(const EventLaunch& a, cudaStream_t stream) {
  if (a.n == 0) return;
  const std::uint64_t blocks = (a.n + kThreads - 1) / kThreads;
  event_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(a);
  TOMO_CUDA_CHECK_LAST();
}

}  // namespace tomo::safir::cuda_impl

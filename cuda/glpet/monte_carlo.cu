// glpet's Monte-Carlo on CUDA: one thread per history (grid-stride), the history of
// compute/glpet/mc_history.hpp in double as on the host, the LOR histogram by atomicAdd on 32-bit
// counts. This process's chunks are dealt to its devices in turn, each device on its own host
// thread, a batch of chunks per launch between which progress shows and interruption is polled.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "compute/core/error.hpp"
#include "compute/core/interrupt.hpp"
#include "compute/core/log.hpp"
#include "compute/core/mpi_world.hpp"
#include "compute/core/progress.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/glpet/monte_carlo_kernels.hpp"
#include "cuda/multi/nccl_team.hpp"

namespace tomo::glpet::cuda_impl {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kBatchChunks = 32;  // 2·10⁶ histories a launch: about 0.1 s on an H200
constexpr int kDeviceCached = 16;          // module hits kept per thread (a ring has 12 modules)

// Adds one count to a LOR: atomicAdd on the device (the host form is never called).
struct CountLor {
  std::uint32_t* hist;
  TOMO_HD void operator()(std::size_t lor) const {
#ifdef __CUDA_ARCH__
    atomicAdd(hist + lor, 1u);
#else
    ++hist[lor];
#endif
  }
};

// Histories of chunks first, first + stride, … (`chunks` of them), h < histories; pair counts
// summed per block into totals[0] (geometric) and totals[1] (detected).
__global__ void histories_kernel(mc::Scene sc, mc::Source src, std::uint64_t seed, std::int64_t histories,
                                 std::int64_t first, std::int64_t stride, std::int64_t chunks, std::uint32_t* hist,
                                 unsigned long long* totals) {
  mc::HitCache<kDeviceCached> hits;
  std::int64_t geometric = 0, detected = 0;
  const std::int64_t n = chunks * kMcChunk;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t h = (first + (k / kMcChunk) * stride) * kMcChunk + k % kMcChunk;
    if (h >= histories) continue;
    mc::history(sc, src, seed, std::uint64_t(h), hits, geometric, detected, CountLor{hist});
  }
  __shared__ unsigned long long sums[2];
  if (threadIdx.x == 0) sums[0] = sums[1] = 0;
  __syncthreads();
  if (geometric) atomicAdd(&sums[0], (unsigned long long)geometric);
  if (detected) atomicAdd(&sums[1], (unsigned long long)detected);
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&totals[0], sums[0]);
    atomicAdd(&totals[1], sums[1]);
  }
}

template <class T>
cuda::DeviceBuffer<T> upload(const T* p, std::size_t n) {
  cuda::DeviceBuffer<T> b(std::max<std::size_t>(n, 1));
  if (n) b.upload(p, n);
  return b;
}

// One device's part: chunks first + stride·k < nchunks. chunks_done counts every device's.
McTally run_device(int device, const McTables& t, const McOptions& opt, std::int64_t first, std::int64_t stride,
                   std::atomic<std::int64_t>& chunks_done) {
  cuda::select_device(device);
  const std::int64_t nchunks = (opt.histories + kMcChunk - 1) / kMcChunk;
  const std::int64_t mine = first < nchunks ? (nchunks - first + stride - 1) / stride : 0;
  McTally tally;
  tally.hist.assign(t.lor_count, 0.0);
  if (mine == 0) return tally;
  auto modules = upload(t.modules.data(), t.modules.size());
  auto pairs = upload(t.pairs.data(), t.pairs.size());
  auto sigma = upload(t.sigma.data(), t.sigma.size());
  const mc::Source& s = t.source;
  auto cdf = upload(s.cdf, s.n);
  auto guide = upload(s.guide, s.n ? s.n + 1 : 0);
  auto index = upload(s.index, s.n);
  cuda::DeviceBuffer<std::uint32_t> hist(t.lor_count);
  cuda::DeviceBuffer<unsigned long long> totals(2);
  TOMO_CUDA_CHECK(cudaMemset(hist.data(), 0, hist.bytes()));
  TOMO_CUDA_CHECK(cudaMemset(totals.data(), 0, totals.bytes()));
  mc::Scene sc = t.scene;
  sc.modules = modules.data();
  sc.pairs = pairs.data();
  sc.sigma = t.sigma.empty() ? nullptr : sigma.data();
  mc::Source src = s;
  if (s.n) src.cdf = cdf.data(), src.guide = guide.data(), src.index = index.data();
  int sms = 0;
  TOMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int per_sm = 0;
  TOMO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histories_kernel, kThreads, 0));
  for (std::int64_t k = 0; k < mine && !interrupted(); k += kBatchChunks) {
    const std::int64_t chunks = std::min(kBatchChunks, mine - k);
    const std::int64_t blocks = std::min<std::int64_t>((chunks * kMcChunk + kThreads - 1) / kThreads,
                                                       std::int64_t(sms) * std::max(per_sm, 1));
    histories_kernel<<<unsigned(blocks), kThreads>>>(sc, src, opt.seed, opt.histories, first + k * stride, stride,
                                                     chunks, hist.data(), totals.data());
    TOMO_CUDA_CHECK(cudaGetLastError());
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    chunks_done += chunks;
  }
  std::vector<std::uint32_t> h(t.lor_count);
  hist.download(h.data(), h.size());
  for (std::size_t l = 0; l < h.size(); ++l) tally.hist[l] = h[l];
  unsigned long long n[2];
  totals.download(n, 2);
  tally.geometric = std::int64_t(n[0]);
  tally.detected = std::int64_t(n[1]);
  return tally;
}

}  // namespace

McTally tally_on_devices(const McTables& t, const McOptions& opt, const std::string& gpus, const ProcessShare& share) {
  check_histories(opt);
  if (!cuda::have_device()) throw UnavailableError("glpet: glpet.mc.device = \"cuda\" but there is no CUDA device");
  const std::vector<int> devices =
      gpus.empty() ? std::vector<int>{cuda::current_device()} : cuda::resolve_gpus(gpus, process_group());
  const std::int64_t nchunks = (opt.histories + kMcChunk - 1) / kMcChunk;
  const int D = int(devices.size());
  log_info("glpet Monte-Carlo on ", D, " CUDA device", D > 1 ? "s" : "");
  Progress progress("Monte-Carlo (CUDA)", share.count(nchunks));
  std::atomic<std::int64_t> chunks_done{0};
  std::vector<McTally> parts(devices.size());
  std::vector<std::exception_ptr> errors(devices.size());
  std::atomic<int> running{D};
  std::vector<std::thread> threads;
  // This process's chunks are rank, rank + P, …; device d takes every D-th of them.
  for (int d = 0; d < D; ++d)
    threads.emplace_back([&, d] {
      try {
        parts[std::size_t(d)] = run_device(devices[std::size_t(d)], t, opt, share.rank + std::int64_t(share.size) * d,
                                           std::int64_t(share.size) * D, chunks_done);
      } catch (...) {
        errors[std::size_t(d)] = std::current_exception();
      }
      --running;
    });
  // Progress is drawn here (it is not thread-safe); the device threads stop at an interrupt.
  std::int64_t shown = 0;
  auto show = [&] {
    const std::int64_t done = chunks_done.load();
    if (done <= shown) return;
    try {
      progress.step(long(done - shown));
    } catch (const Interrupted&) {  // thrown again below, once the device threads stopped
    }
    shown = done;
  };
  while (running.load() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    show();
  }
  for (auto& th : threads) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  throw_if_interrupted();
  show();
  progress.finish();
  McTally sum = std::move(parts[0]);
  for (std::size_t d = 1; d < parts.size(); ++d) {
    for (std::size_t l = 0; l < sum.hist.size(); ++l) sum.hist[l] += parts[d].hist[l];
    sum.geometric += parts[d].geometric;
    sum.detected += parts[d].detected;
  }
  return sum;
}

}  // namespace tomo::glpet::cuda_impl

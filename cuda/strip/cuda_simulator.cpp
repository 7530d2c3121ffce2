// The `cuda` generator of strip's events (strip.simulator): simulate_phantom's slots on the GPU in
// batches, each batch's events copied to the host while the next batch is simulated: through two
// page-locked staging buffers, the GPU filling one while the host's cores copy the other out.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/strip/simulator.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/pinned_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/strip/simulator_kernels.hpp"

namespace tomo::strip {

namespace {

using namespace tomo::strip::cuda_impl;

// The first batch is small: a phantom the strips (almost) do not see is found after it, before
// a large batch spends every slot's SlotParams::max_tries points.
constexpr std::uint64_t kFirstBatch = std::uint64_t(1) << 16;
constexpr std::uint64_t kBatch = std::uint64_t(1) << 24;  // slots per launch: 2 × 192 MiB of events
constexpr std::uint64_t kStage = std::uint64_t(1) << 21;  // events per staging buffer (24 MiB)

// n floats from page-locked `src` to `dst` on all cores (the pages of dst are touched in parallel).
void copy_out(float* dst, const float* src, std::uint64_t n) {
  constexpr std::int64_t kBlock = 1 << 16;
  const auto blocks = static_cast<std::int64_t>((n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::uint64_t at = std::uint64_t(b) * kBlock;
    std::memcpy(dst + at, src + at, std::min<std::uint64_t>(kBlock, n - at) * sizeof(float));
  }
}

class CudaPhantomGenerator final : public PhantomGenerator {
 public:
  std::vector<Event> simulate(const StripGeometry& g, const Resolution& res, const StripPhantom& phantom,
                              std::uint64_t count, std::uint64_t seed, SimulationStats* stats) override {
    const SlotSetup setup = slot_setup(g, res, phantom);
    cuda::select_device(runtime_options().cuda_device);
    device_ = cuda::current_device();
    const std::uint64_t batch = std::min(count, kBatch);
    cuda::require_device_memory(2 * 12.0 * double(batch), "strip cuda simulator: two batches of events");
    cuda::DeviceBuffer<EllipseTerm> rows{std::span<const EllipseTerm>(setup.rows)};
    cuda::DeviceBuffer<unsigned long long> sums(3);
    sums.fill_zero();
    std::array<cuda::DeviceBuffer<float>, 2> buf{cuda::DeviceBuffer<float>(3 * batch),
                                                 cuda::DeviceBuffer<float>(3 * batch)};
    std::array<cuda::Stream, 2> streams{cuda::Stream(), cuda::Stream()};
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the zeroed sums before the non-blocking streams

    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Event> out(count);  // left unset (Event's constructor): copy_out touches its pages on all cores
    const auto t1 = std::chrono::steady_clock::now();
    std::array<cuda::PinnedBuffer<float>, 2> stage{cuda::PinnedBuffer<float>(3 * std::min(count, kStage)),
                                                   cuda::PinnedBuffer<float>(3 * std::min(count, kStage))};
    std::array<cuda::Event, 2> staged{cuda::Event(false), cuda::Event(false)};
    std::array<unsigned long long, 3> host{0, 0, 0};
    // Batch k: slots [first[k], first[k] + size[k]) on buffer and stream k % 2.
    const auto batch_first = [&](std::uint64_t k) {
      return k == 0 ? 0 : std::min(count, std::min(count, kFirstBatch) + (k - 1) * batch);
    };
    const auto launch = [&](std::uint64_t k) {
      const std::uint64_t first = batch_first(k), n = batch_first(k + 1) - first;
      SlotLaunch a;
      a.params = setup.params;
      a.rows = rows.data();
      a.n_rows = int(setup.rows.size());
      a.seed = seed;
      a.first = first;
      a.n = n;
      a.events = buf[k % 2].data();
      a.sums = sums.data();
      launch_slots(a, streams[k % 2]);
    };
    // Batch k's events to out, kStage at a time: piece j goes to stage j % 2 while the host copies
    // piece j − 1 out of the other.
    const auto copy_batch = [&](std::uint64_t k) {
      const std::uint64_t first = batch_first(k), n = batch_first(k + 1) - first;
      struct Piece {
        std::uint64_t at = 0, n = 0;
        int slot = 0;
      } pending;
      const auto finish = [&] {
        if (pending.n == 0) return;
        staged[pending.slot].synchronize();
        copy_out(reinterpret_cast<float*>(out.data() + pending.at), stage[pending.slot].data(), 3 * pending.n);
        pending.n = 0;
      };
      int slot = 0;
      for (std::uint64_t at = 0; at < n; at += kStage, slot ^= 1) {
        const std::uint64_t m = std::min(kStage, n - at);
        buf[k % 2].download_async(stage[slot].data(), 3 * m, streams[k % 2], 3 * at);
        staged[slot].record(streams[k % 2]);
        finish();  // the previous piece, in the other stage
        pending = {first + at, m, slot};
      }
      finish();
    };
    launch(0);
    for (std::uint64_t k = 0; batch_first(k) < count; ++k) {
      if (batch_first(k + 1) < count) {
        if (k == 0) {  // the first batch decides whether to go on
          streams[0].synchronize();
          sums.download(host.data(), 3);
          if (host[2] > 0) throw_starved(g);
        }
        launch(k + 1);  // its buffer's last copy has finished: runs while batch k is copied
      }
      copy_batch(k);
    }
    log_debug("strip cuda simulator: ", count, " events, host vector ",
              std::chrono::duration<double, std::milli>(t1 - t0).count(), " ms, simulation and copy ",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count(), " ms");
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());
    sums.download(host.data(), 3);
    if (host[2] > 0 || starved_rate(host[1], count)) throw_starved(g);
    if (stats) *stats = {std::uint64_t(host[0]), count, std::uint64_t(host[1])};
    return out;
  }

  std::string describe() const override { return str_cat("cuda generator on CUDA ", device_); }

 private:
  int device_ = 0;
};

const BackendRegistrar<PhantomGenerator> kRegister({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                    [] { return std::make_unique<CudaPhantomGenerator>(); }});

}  // namespace

}  // namespace tomo::strip

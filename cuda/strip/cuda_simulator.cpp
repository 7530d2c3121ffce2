// The `cuda` generator of strip's events (strip.simulator): simulate_phantom's slots on the GPU in
// batches, each batch's events copied to the host while the next batch is simulated.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <memory>

#include "compute/core/error.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/strip/simulator.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/strip/simulator_kernels.hpp"

namespace tomo::strip {

namespace {

using namespace tomo::strip::cuda_impl;

// The first batch is small: a phantom the strips (almost) do not see is found after it, before
// a large batch spends every slot's SlotParams::max_tries points.
constexpr std::uint64_t kFirstBatch = std::uint64_t(1) << 16;
constexpr std::uint64_t kBatch = std::uint64_t(1) << 24;  // slots per launch: 2 × 192 MiB of events

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

    std::vector<Event> out(count);
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
    launch(0);
    for (std::uint64_t k = 0; batch_first(k) < count; ++k) {
      if (batch_first(k + 1) < count) {
        if (k == 0) {  // the first batch decides whether to go on
          streams[0].synchronize();
          sums.download(host.data(), 3);
          if (host[2] > 0) throw_starved(g);
        }
        launch(k + 1);  // its buffer's last download has finished: runs while batch k is copied
      }
      const std::uint64_t first = batch_first(k), n = batch_first(k + 1) - first;
      buf[k % 2].download_async(reinterpret_cast<float*>(out.data() + first), 3 * n, streams[k % 2]);
      streams[k % 2].synchronize();
    }
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

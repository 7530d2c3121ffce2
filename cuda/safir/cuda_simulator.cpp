// The `cuda` generator of safir's list mode (safir.simulator): simulate()'s events on the GPU, one
// thread per event, and its time stamps after them (the host's bits: simulator_math.hpp
// exponential_gap); the host allocates the list meanwhile. Under mpirun this process runs its
// chunks only and the processes then gather them, as the host does; every process makes all the
// stamps (they are one running sum). The host's arrays are FillVectors, paged in by all threads
// while the kernels run and page-locked for the downloads.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <span>

#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/multi/process_share.hpp"
#include "compute/safir/simulator.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/event.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/safir/simulator_kernels.hpp"

namespace tomo::safir {

namespace {

using namespace tomo::safir::cuda_impl;

static_assert(sizeof(Event) == 2 * sizeof(std::uint32_t), "Event is the kernel's pair of crystal ids");

// Page-locks [p, p + bytes) for the copy engine while it lives; where the driver refuses, the
// copies stage through its pageable path instead.
class Registration {
 public:
  Registration(void* p, std::size_t bytes) {
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) {
      p_ = p;
    } else {
      (void)cudaGetLastError();
      log_debug("safir cuda simulator: could not page-lock ", bytes, " bytes; pageable downloads");
    }
  }
  ~Registration() {
    if (p_) (void)cudaHostUnregister(p_);
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

 private:
  void* p_ = nullptr;
};

// The first launch is small: a phantom the scanner (almost) does not see is found after it,
// before every event of a large run spends Params::max_tries attempts.
constexpr std::uint64_t kFirstBatch = std::uint64_t(1) << 12;

// Makes the caller's current device current again when it goes: an operator configured before
// the simulation on another device (an mpirun process on its own GPU) keeps launching there.
class RestoreDevice {
 public:
  RestoreDevice() : device_(cuda::current_device()) {}
  ~RestoreDevice() { (void)cudaSetDevice(device_); }
  RestoreDevice(const RestoreDevice&) = delete;
  RestoreDevice& operator=(const RestoreDevice&) = delete;

 private:
  int device_;
};

class CudaEventGenerator final : public EventGenerator {
 public:
  ListMode simulate(const Scanner& scanner, const Phantom& phantom, const SimulationOptions& o,
                    SimulationStats* stats) override {
    const RestoreDevice restore;  // first: the buffers below are freed on the generator's device
    const auto t_setup = std::chrono::steady_clock::now();
    const EventSetup setup = event_setup(scanner, phantom, o);
    cuda::select_device(runtime_options().cuda_device);
    device_ = cuda::current_device();
    const std::uint64_t count = o.events;
    cuda::require_device_memory(double(sizeof(Event) + sizeof(double)) * double(count),
                                "safir cuda simulator: the events and their time stamps");
    const ProcessShare share = process_share();
    if (share.size > 1)
      log_info("safir Monte-Carlo (cuda): process ", share.rank, " of ", share.size, " runs ",
               share.count(std::int64_t((count + kChunkEvents - 1) / kChunkEvents)), " chunks");
    cuda::DeviceBuffer<double> cdf{std::span<const double>(setup.cdf)};
    cuda::DeviceBuffer<mc::Ball> balls{std::span<const mc::Ball>(setup.balls)};
    cuda::DeviceBuffer<unsigned long long> sums(4);
    sums.fill_zero();
    cuda::DeviceBuffer<std::uint32_t> pairs(2 * count);
    cuda::DeviceBuffer<double> stamps(count), stamp_sums(stamp_sums_size(count));
    cuda::Stream stream;
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the zeroed sums before the non-blocking stream

    const auto t0 = std::chrono::steady_clock::now();
    EventLaunch a;
    a.params = setup.params;
    a.cdf = cdf.data();
    a.balls = balls.data();
    a.seed = o.seed;
    a.chunk = kChunkEvents;
    a.rank = share.rank;
    a.size = share.size;
    a.events = pairs.data();
    a.sums = sums.data();
    std::array<unsigned long long, 4> host{0, 0, 0, 0};  // the sums
    // Alone, the first batch decides whether to go on (under mpirun every process goes on to the
    // collective sums below, which carry the refusal).
    a.first = 0;
    a.n = share.size > 1 ? count : std::min(count, kFirstBatch);
    cuda::Event gpu_start, gpu_stop;
    gpu_start.record(stream);
    launch_events(a, stream);
    if (a.n < count) {
      stream.synchronize();
      sums.download(host.data(), 4);
      if (host[3] > 0) throw_unseen();
      a.first = a.n;
      a.n = count - a.n;
      launch_events(a, stream);
    }
    cuda::Event events_done;
    events_done.record(stream);
    launch_time_stamps(count, o.duration_s, o.seed, stamps.data(), stamp_sums.data(), stream);
    gpu_stop.record(stream);
    // While the GPU works: the host's arrays paged in by every thread, then page-locked.
    ListMode lm;
    lm.duration_s = o.duration_s;
    lm.events.resize(count);  // FillVectors: written by the downloads below
    lm.time_s.resize(count);
    touch_pages(lm.events.data(), count * sizeof(Event));
    touch_pages(lm.time_s.data(), count * sizeof(double));
    using Clock = std::chrono::steady_clock;
    const auto t_touched = Clock::now();
    Clock::time_point t_locked, t_gpu, t_down;
    std::array<double, 4> n{};
    {
      Registration locked_events(lm.events.data(), count * sizeof(Event));
      Registration locked_stamps(lm.time_s.data(), count * sizeof(double));
      t_locked = Clock::now();
      stream.synchronize();
      t_gpu = Clock::now();
      sums.download(host.data(), 4);
      n = {double(host[0]), double(host[1]), double(host[2]), double(host[3])};
      if (share.size > 1) sum_over_processes(n);  // whole numbers: exact in any order
      if (n[3] > 0) throw_unseen();
      pairs.download_async(reinterpret_cast<std::uint32_t*>(lm.events.data()), 2 * count, stream);
      stamps.download_async(lm.time_s.data(), count, stream);
      stream.synchronize();
      t_down = Clock::now();
    }
    if (share.size > 1)  // every process gets every event, as one process would have made them
      gather_chunks(std::as_writable_bytes(std::span<Event>(lm.events)), kChunkEvents * sizeof(Event));
    const auto ms = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    log_debug("safir cuda simulator: ", count, " events; set-up ", ms(t_setup, t0), " ms; kernels ",
              gpu_start.elapsed_ms(gpu_stop), " ms (time stamps ", events_done.elapsed_ms(gpu_stop),
              " ms); host arrays paged in ", ms(t0, t_touched), " ms, page-locked ", ms(t_touched, t_locked),
              " ms; GPU done after ", ms(t0, t_gpu), " ms; downloads ", ms(t_gpu, t_down),
              " ms; events on the host after ", ms(t0, Clock::now()), " ms");
    lm.delayed = std::uint64_t(n[1]);  // the delayed window sees as many randoms as the prompt window
    if (stats) *stats = {std::uint64_t(n[0]), std::uint64_t(n[1]), std::uint64_t(n[2])};
    return lm;
  }

  std::string describe() const override { return str_cat("cuda generator on CUDA ", device_); }

 private:
  int device_ = 0;
};

const BackendRegistrar<EventGenerator> kRegister({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                  [] { return std::make_unique<CudaEventGenerator>(); }});

}  // namespace

}  // namespace tomo::safir

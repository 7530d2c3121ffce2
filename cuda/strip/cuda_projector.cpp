// The `cuda` backend of the strip operator (float32): events uploaded once and resident on the GPU
// for all iterations; ρ' read through a texture; thread or warp granularity by ProjectorOptions.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>

#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "compute/core/error.hpp"
#include "compute/core/log.hpp"
#include "compute/core/registry.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "compute/strip/projector.hpp"
#include "cuda/strip/device_operator.hpp"
#include "cuda/strip/kernels.hpp"
#include "cuda/strip/projection_kernels.hpp"

namespace tomo::strip {

namespace {

using namespace tomo::strip::cuda_impl;

class CudaProjector final : public ListModeProjector, public DeviceOperator {
 public:
  std::string describe() const override {
    return str_cat("cuda (", to_string(opt_.granularity), " granularity",
                   warp_shared_ ? ", block-shared ρ_new" : "",
                   ", float32): ", device_);
  }

  void synchronize() override {
    if (stream_) stream_->synchronize();
  }

  void configure(const StripGeometry& g, const Resolution& res, const ProjectorOptions& o) override {
    cuda::select_device(runtime_options().cuda_device);
    const auto devices = cuda::list_devices();
    const int dev = cuda::current_device();
    for (const auto& d : devices)
      if (d.index == dev) {
        device_ = cuda::describe(d);
        sm_count_ = d.sm_count;
        smem_optin_ = d.shared_mem_per_block_optin;
      }
    geom_ = g;
    opt_ = o;
    args_ = {};
    args_.grid = g.grid<float>();
    args_.kp = make_kernel_params<float>(g.R, res.sigma_z, res.sigma_dl, o.nsigma);
    stream_ = std::make_unique<cuda::Stream>();
    events_.clear();
    cuda::require_device_memory(3 * 4.0 * double(g.pixel_count()), "strip cuda: 3 float images (strip.n_y, strip.n_z)");
    rho_.resize(g.pixel_count());
    rho_new_.resize(g.pixel_count());
    // ρ' read through the texture cache ([Bialas2015] §4.2): point sampling, clamped, unnormalised.
    rho_texture_ = {};  // before its array goes
    rho_array_ = cuda::CudaArray::of<float>({std::size_t(g.n_z), std::size_t(g.n_y), 0});
    rho_texture_ = cuda::TextureObject(rho_array_, cuda::TextureOptions::point_clamp());
    const std::size_t image_bytes = sizeof(float) * g.pixel_count();
    warp_shared_ = o.granularity == Granularity::warp && image_bytes <= smem_optin_ &&
                   warp_blocks_per_sm(true, image_bytes) > 0;
    const int per_sm = o.granularity == Granularity::thread ? thread_blocks_per_sm()
                                                 : warp_blocks_per_sm(warp_shared_, warp_shared_ ? image_bytes : 0);
    resident_blocks_ = std::max(1, per_sm) * std::max(1, sm_count_);
    log_debug("strip cuda: ", describe(), ", ", per_sm, " blocks/SM");
  }

  void set_events(std::span<const Event> events) override {
    stream_->synchronize();  // uploads go through the legacy stream: order them after queued work
    // The old list is freed before the new one is allocated, so only the growth must be free.
    const double grow = 12.0 * double(events.size()) - 4.0 * double(events_.size());
    if (grow > 0) cuda::require_device_memory(grow, "strip cuda: the event list (strip.events)");
    events_.resize(events.size() * 3);
    if (!events.empty()) events_.upload(reinterpret_cast<const float*>(events.data()), events.size() * 3);
  }

  void set_image(std::span<const double> rho) override {
    if (rho.size() != geom_.pixel_count())
      throw Error(str_cat("strip cuda: image of ", rho.size(), " pixels, grid has ", geom_.pixel_count()));
    std::vector<float> f(rho.begin(), rho.end());
    stream_->synchronize();
    rho_.upload(f);
  }

  std::vector<double> image() const override {
    if (stream_) stream_->synchronize();  // a take_image() copy may still be queued
    std::vector<float> f(rho_.size());
    rho_.download(f.data());
    return {f.begin(), f.end()};
  }

  // iterate() and set_image() return with `from`'s work done, so a copy on this stream suffices.
  bool take_image(ListModeProjector& from) override {
    auto* o = dynamic_cast<CudaProjector*>(&from);
    if (!o || o == this || o->rho_.size() != rho_.size()) return o == this;
    o->stream_->synchronize();
    TOMO_CUDA_CHECK(cudaMemcpyAsync(rho_.data(), o->rho_.data(), rho_.size() * sizeof(float), cudaMemcpyDeviceToDevice,
                                    *stream_));
    return true;
  }

  void set_events_device(const float* events, std::size_t n) override {
    if (n && !events) throw Error("strip cuda: null events");
    TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of the events, on any stream
    events_.clear();  // the old list goes before the new one is allocated
    cuda::require_device_memory(12.0 * double(n), "strip cuda: the event list");
    events_.resize(3 * n);
    if (n) TOMO_CUDA_CHECK(cudaMemcpyAsync(events_.data(), events, 12 * n, cudaMemcpyDeviceToDevice, *stream_));
    stream_->synchronize();
  }
  std::size_t event_count() const override { return events_.size() / 3; }
  std::vector<Event> events_to_host() const override {
    std::vector<Event> out(event_count());
    if (!out.empty()) events_.download_async(reinterpret_cast<float*>(out.data()), 3 * out.size(), *stream_);
    stream_->synchronize();
    return out;
  }

  void forward_device(const float* events, std::size_t n, const float* x, float* y) override {
    EventPassArgs a = pass_args();
    a.events = events;
    a.n = n;
    launch_event_forward(a, x, y, *stream_);
    stream_->synchronize();
  }
  void back_device(const float* events, std::size_t n, const float* w, float* b) override {
    TOMO_CUDA_CHECK(cudaMemsetAsync(b, 0, geom_.pixel_count() * sizeof(float), *stream_));
    EventPassArgs a = pass_args();
    a.events = events;
    a.n = n;
    launch_event_back(a, w, b, *stream_);
    stream_->synchronize();
  }
  void iterate_device(const float* rho_prime, float* rho_new) override {
    cudaStream_t s = *stream_;
    rho_array_.copy_from_device(rho_prime, s);  // first: rho_new may overwrite rho_prime now
    TOMO_CUDA_CHECK(cudaMemsetAsync(rho_new, 0, geom_.pixel_count() * sizeof(float), s));
    launch_iteration(rho_new, s);
    stream_->synchronize();
  }

  std::vector<double> forward(std::span<const double> x) override {
    if (x.size() != geom_.pixel_count())
      throw Error(str_cat("strip cuda: image of ", x.size(), " pixels, grid has ", geom_.pixel_count()));
    const std::vector<float> xf(x.begin(), x.end());
    stream_->synchronize();
    rho_new_.upload(xf);  // scratch: iterate() zeroes it first
    cuda::DeviceBuffer<float> y(events_.size() / 3);
    launch_event_forward(pass_args(), rho_new_.data(), y.data(), *stream_);
    std::vector<float> yf(y.size());
    y.download_async(yf.data(), yf.size(), *stream_);
    stream_->synchronize();
    return {yf.begin(), yf.end()};
  }

  std::vector<double> back(std::span<const double> w) override {
    if (w.size() != events_.size() / 3)
      throw Error(str_cat("strip cuda: ", w.size(), " values for ", events_.size() / 3, " events"));
    const std::vector<float> wf(w.begin(), w.end());
    stream_->synchronize();
    cuda::DeviceBuffer<float> wd{std::span<const float>(wf)};
    rho_new_.fill_zero(*stream_);
    launch_event_back(pass_args(), wd.data(), rho_new_.data(), *stream_);
    std::vector<float> bf(rho_new_.size());
    rho_new_.download_async(bf.data(), bf.size(), *stream_);
    stream_->synchronize();
    return {bf.begin(), bf.end()};
  }

  void iterate() override {
    cudaStream_t s = *stream_;
    rho_array_.copy_from_device(rho_.data(), s);
    rho_new_.fill_zero(s);
    launch_iteration(rho_new_.data(), s);
    std::swap(rho_, rho_new_);
    stream_->synchronize();
  }

 private:
  // Eq. (5) from the texture's ρ' into rho_new (zeroed by the caller) over the resident events.
  void launch_iteration(float* rho_new, cudaStream_t s) {
    args_.events = events_.data();
    args_.n = events_.size() / 3;
    args_.rho = rho_texture_.get();
    args_.rho_new = rho_new;
    if (opt_.granularity == Granularity::thread) {
      const std::size_t needed = (args_.n + kThreadsPerBlock - 1) / kThreadsPerBlock;
      launch_thread_granularity(args_, static_cast<int>(std::min<std::size_t>(needed, resident_blocks_ * 4)), s);
    } else {
      // Persistent warps: as many blocks as fit at once, but no more than one warp per event.
      const std::size_t needed = (args_.n * 32 + kThreadsPerBlock - 1) / kThreadsPerBlock;
      launch_warp_granularity(args_, static_cast<int>(std::min<std::size_t>(needed, resident_blocks_)), warp_shared_, s);
    }
  }

  EventPassArgs pass_args() const {
    EventPassArgs a;
    a.events = events_.data();
    a.n = events_.size() / 3;
    a.grid = args_.grid;
    a.kp = args_.kp;
    return a;
  }

  StripGeometry geom_;
  ProjectorOptions opt_;
  std::string device_ = "no device";
  int sm_count_ = 1;
  std::size_t smem_optin_ = 0;
  bool warp_shared_ = false;
  std::size_t resident_blocks_ = 1;
  IterationArgs args_{};
  std::unique_ptr<cuda::Stream> stream_;
  cuda::DeviceBuffer<float> events_, rho_, rho_new_;
  cuda::CudaArray rho_array_;
  cuda::TextureObject rho_texture_;  // declared after its array: destroyed first
};

const BackendRegistrar<ListModeProjector> kRegisterCuda({"cuda", kPriorityCuda, [] { return cuda::cuda_availability(); },
                                                         [] { return std::make_unique<CudaProjector>(); }});

}  // namespace

}  // namespace tomo::strip

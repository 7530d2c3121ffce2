// DeviceArrayProjector (see device_arrays.hpp): the per-event forward/back kernels of
// device_arrays_kernels.cu, and the cuda backend's ML-EM launchers (kernels.hpp) on the caller's
// ρ'. The backend class keeps its buffers private, so its launch configuration (resident blocks,
// block-shared ρ_new when the image fits in shared memory) is repeated here.
#include "cuda/strip/device_arrays.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "compute/core/error.hpp"
#include "compute/core/runtime_options.hpp"
#include "compute/core/sensitivity_mask.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/cuda_array.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/core/texture.hpp"
#include "cuda/strip/projection_kernels.hpp"
#include "cuda/strip/kernels.hpp"

namespace tomo::strip {

using namespace tomo::strip::cuda_impl;

struct DeviceArrayProjector::State {
  StripGeometry geom;
  ProjectorOptions opt;
  EventPassArgs pass{};
  IterationArgs it{};
  bool warp_shared = false;
  std::size_t resident_blocks = 1;
  cuda::Stream stream;
  cuda::DeviceBuffer<float> events, inv_s;  // inv_s: 1/s in the field of view, 0 outside
  cuda::CudaArray rho_array;
  cuda::TextureObject rho_texture;  // declared after its array: destroyed first
};

DeviceArrayProjector::DeviceArrayProjector(const StripGeometry& g, const Resolution& res, const ProjectorOptions& o,
                                           double sensitivity_threshold, int device) {
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>();
  State& s = *s_;
  s.geom = g;
  s.opt = o;
  s.pass.grid = g.grid<float>();
  s.pass.kp = make_kernel_params<float>(g.R, res.sigma_z, res.sigma_dl, o.nsigma);
  s.it.grid = s.pass.grid;
  s.it.kp = s.pass.kp;
  const std::vector<double> sens = sensitivity_image(g);
  const double floor = sensitivity_floor<double>(sens, sensitivity_threshold);
  std::vector<float> inv(sens.size(), 0.f);
  for (std::size_t i = 0; i < sens.size(); ++i)
    if (sens[i] > 0 && sens[i] >= floor) inv[i] = float(1.0 / sens[i]);
  s.inv_s = cuda::DeviceBuffer<float>(std::span<const float>(inv));
  s.rho_array = cuda::CudaArray::of<float>({std::size_t(g.n_z), std::size_t(g.n_y), 0});
  s.rho_texture = cuda::TextureObject(s.rho_array, cuda::TextureOptions::point_clamp());
  int sm_count = 1;
  std::size_t smem_optin = 0;
  for (const auto& d : cuda::list_devices())
    if (d.index == device_) sm_count = d.sm_count, smem_optin = d.shared_mem_per_block_optin;
  const std::size_t image_bytes = sizeof(float) * g.pixel_count();
  s.warp_shared = o.granularity == Granularity::warp && image_bytes <= smem_optin &&
                  warp_blocks_per_sm(true, image_bytes) > 0;
  const int per_sm = o.granularity == Granularity::thread
                         ? thread_blocks_per_sm()
                         : warp_blocks_per_sm(s.warp_shared, s.warp_shared ? image_bytes : 0);
  s.resident_blocks = std::size_t(std::max(1, per_sm)) * std::size_t(std::max(1, sm_count));
}

DeviceArrayProjector::~DeviceArrayProjector() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->stream.get()));
}

void DeviceArrayProjector::forward(const float* x, const float* events, std::size_t n, float* y) {
  if (n == 0) return;
  if (!x || !events || !y) throw Error("strip device arrays: null image, events or output");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes, on whatever stream
  EventPassArgs a = s_->pass;
  a.events = events;
  a.n = n;
  launch_event_forward(a, x, y, s_->stream.get());
  s_->stream.synchronize();
}

void DeviceArrayProjector::back(const float* w, const float* events, std::size_t n, float* b) {
  if (!b || (n && (!w || !events))) throw Error("strip device arrays: null values, events or image");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  State& s = *s_;
  TOMO_CUDA_CHECK(cudaMemsetAsync(b, 0, s.geom.pixel_count() * sizeof(float), s.stream.get()));
  EventPassArgs a = s.pass;
  a.events = events;
  a.n = n;
  launch_event_back(a, w, b, s.stream.get());
  s.stream.synchronize();
}

void DeviceArrayProjector::set_events(const float* events, std::size_t n) {
  if (n && !events) throw Error("strip device arrays: null events");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  State& s = *s_;
  s.events.clear();  // the old list goes before the new one is allocated
  cuda::require_device_memory(12.0 * double(n), "strip device arrays: the event list");
  s.events.resize(3 * n);
  if (n) TOMO_CUDA_CHECK(cudaMemcpy(s.events.data(), events, 12 * n, cudaMemcpyDeviceToDevice));
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
}

void DeviceArrayProjector::set_events(std::span<const Event> events) {
  cuda::select_device(device_);
  State& s = *s_;
  s.stream.synchronize();
  s.events.clear();
  cuda::require_device_memory(12.0 * double(events.size()), "strip device arrays: the event list");
  s.events.resize(3 * events.size());
  if (!events.empty()) s.events.upload(reinterpret_cast<const float*>(events.data()), 3 * events.size());
}

std::vector<Event> DeviceArrayProjector::events_to_host() const {
  cuda::select_device(device_);
  std::vector<Event> out(events());
  if (!out.empty()) s_->events.download(reinterpret_cast<float*>(out.data()), 3 * out.size());
  return out;
}

std::size_t DeviceArrayProjector::events() const { return s_->events.size() / 3; }

void DeviceArrayProjector::iterate(const float* rho_prime, float* rho_new) {
  if (!rho_prime || !rho_new) throw Error("strip device arrays: null image");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  State& s = *s_;
  cudaStream_t st = s.stream.get();
  // ρ' into the texture's array first: after this copy rho_new may overwrite it.
  s.rho_array.copy_from_device(rho_prime, st);
  TOMO_CUDA_CHECK(cudaMemsetAsync(rho_new, 0, s.geom.pixel_count() * sizeof(float), st));
  IterationArgs a = s.it;
  a.events = s.events.data();
  a.n = events();
  a.rho = s.rho_texture.get();
  a.rho_new = rho_new;
  if (s.opt.granularity == Granularity::thread) {
    const std::size_t needed = (a.n + kThreadsPerBlock - 1) / kThreadsPerBlock;
    launch_thread_granularity(a, int(std::min<std::size_t>(needed, s.resident_blocks * 4)), st);
  } else {
    // Persistent warps, as the backend: as many blocks as fit at once, at most a warp per event.
    const std::size_t needed = (a.n * 32 + kThreadsPerBlock - 1) / kThreadsPerBlock;
    launch_warp_granularity(a, int(std::min<std::size_t>(needed, s.resident_blocks)), s.warp_shared, st);
  }
  s.stream.synchronize();
}

void DeviceArrayProjector::rho(const float* rho_prime, float* out) {
  if (!rho_prime || !out) throw Error("strip device arrays: null image");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  launch_multiply(rho_prime, s_->inv_s.data(), out, s_->geom.pixel_count(), s_->stream.get());
  s_->stream.synchronize();
}

void DeviceArrayProjector::fill_ones(float* image) {
  if (!image) throw Error("strip device arrays: null image");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  launch_fill(image, s_->geom.pixel_count(), 1.0f, s_->stream.get());
  s_->stream.synchronize();
}

}  // namespace tomo::strip

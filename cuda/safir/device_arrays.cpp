// DeviceArrayProjector (see device_arrays.hpp): the cuda backend's label sort and fused
// forward/back/ML-EM launchers (kernels.hpp) on the caller's image and values; the cuda backend's
// class keeps its buffers private, so the sequence of its fused pass is repeated here.
#include "cuda/safir/device_arrays.hpp"

#include <cuda_runtime.h>
#include <vector_functions.h>

#include <algorithm>
#include <vector>

#include "compute/core/error.hpp"
#include "compute/core/runtime_options.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/core/stream.hpp"
#include "cuda/safir/device_arrays_kernels.hpp"
#include "cuda/safir/kernels.hpp"
#include "cuda/safir/sort_buffers.hpp"

namespace tomo::safir {

using namespace tomo::safir::cuda_impl;

struct DeviceArrayProjector::State {
  BoxParams<float> box{};
  std::size_t voxels = 0, n = 0;
  std::size_t sorted_count = 0, first = 0;  // the sorted window [0, sorted_count); label-0 ones first
  bool sorted = false;
  cuda::Stream stream;
  cuda::DeviceBuffer<float4> crystals;
  cuda::DeviceBuffer<uint2> events;
  SortBuffers sort;
  cuda::DeviceBuffer<float> values, sensitivity, acc;

  // The projection of the sorted window's events [first, count) through `values`.
  ProjectArgs project_args(std::size_t count) {
    ProjectArgs a;
    a.sorted = sort.sorted.data();
    a.first = first;
    a.n = count;
    a.crystals = crystals.data();
    a.box = box;
    a.values = values.data();
    return a;
  }
};

void DeviceArrayProjector::init(const Scanner& scanner, const ImageBox& box, int device, std::size_t n) {
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>();
  State& s = *s_;
  s.box = box.params<float>();
  s.voxels = box.count();
  s.n = n;
  s.crystals = crystal_buffer(scanner);
  cuda::require_device_memory(30.0 * double(n), "safir device arrays: the event list");
  const std::size_t n1 = std::max<std::size_t>(1, n);
  s.events.resize(n1);
  s.sort.resize(n1);
  s.values.resize(n1);
}

DeviceArrayProjector::DeviceArrayProjector(const Scanner& scanner, const ImageBox& box, std::span<const Event> events,
                                           int device) {
  init(scanner, box, device, events.size());
  // On the path's own (non-blocking) stream, so the sort below is ordered after the copy.
  if (s_->n) s_->events.upload_async(reinterpret_cast<const uint2*>(events.data()), s_->n, s_->stream.get());
  sort(s_->n);
}

DeviceArrayProjector::DeviceArrayProjector(const Scanner& scanner, const ImageBox& box,
                                           const std::uint32_t* device_events, std::size_t n, int device) {
  if (n && !device_events) throw Error("safir device arrays: null events");
  init(scanner, box, device, n);
  State& s = *s_;
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes of the events, on any stream
  cudaStream_t st = s.stream.get();
  if (n) TOMO_CUDA_CHECK(cudaMemcpyAsync(s.events.data(), device_events, n * sizeof(uint2), cudaMemcpyDeviceToDevice, st));
  const unsigned long long none = n;
  s.sort.counts.upload_async(&none, 1, st);  // a scratch word before the first sort
  launch_find_bad_events(reinterpret_cast<const std::uint32_t*>(s.events.data()), n, scanner.crystal_count(),
                         s.sort.counts.data(), st);
  unsigned long long bad = none;
  s.sort.counts.download_async(&bad, 1, st);
  s.stream.synchronize();
  if (bad < n)
    throw InputError(str_cat("events: row ", bad, " names a crystal id not below the scanner's ",
                             scanner.crystal_count(), " crystals"));
  sort(n);
}

DeviceArrayProjector::~DeviceArrayProjector() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->stream.get()));
}

std::size_t DeviceArrayProjector::events() const { return s_->n; }

std::vector<Event> DeviceArrayProjector::events_to_host() const {
  cuda::select_device(device_);
  std::vector<Event> out(s_->n);
  if (!out.empty()) s_->events.download(reinterpret_cast<uint2*>(out.data()), out.size());
  return out;
}

void DeviceArrayProjector::sort(std::size_t count) {
  State& s = *s_;
  if (count > s.n) throw Error(str_cat("safir device arrays: window of ", count, " beyond ", s.n, " events"));
  if (s.sorted && s.sorted_count == count) return;
  s.first = s.sort.sort(s.events.data(), count, s.crystals.data(), s.box, s.stream.get())[0];
  s.sorted_count = count;
  s.sorted = true;
}

void DeviceArrayProjector::forward(const float* image, float* y, float randoms) {
  if (!image || (!y && s_->n)) throw Error("safir device arrays: null image or output");
  cuda::select_device(device_);
  State& s = *s_;
  if (s.n == 0) return;
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  sort(s.n);
  ProjectArgs a = s.project_args(s.n);
  a.f = image;
  a.randoms = randoms;
  launch_forward(a, s.stream.get());
  launch_scatter_to_events(s.values.data(), s.sort.order_out.data(), s.first, s.n, y, s.stream.get());
  s.stream.synchronize();
}

void DeviceArrayProjector::back(const float* v, float* image) {
  if (!image || (!v && s_->n)) throw Error("safir device arrays: null values or image");
  cuda::select_device(device_);
  State& s = *s_;
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  TOMO_CUDA_CHECK(cudaMemsetAsync(image, 0, s.voxels * sizeof(float), s.stream.get()));
  if (s.n > 0) {
    sort(s.n);
    launch_gather_from_events(v, s.sort.order_out.data(), s.n, s.values.data(), s.stream.get());
    ProjectArgs a = s.project_args(s.n);
    a.acc = image;
    launch_back(a, s.stream.get());
  }
  s.stream.synchronize();
}

void DeviceArrayProjector::set_sensitivity(std::span<const double> sens) {
  State& s = *s_;
  if (sens.size() != s.voxels)
    throw Error(str_cat("safir device arrays: sensitivity of ", sens.size(), " voxels, box has ", s.voxels));
  cuda::select_device(device_);
  const std::vector<float> f(sens.begin(), sens.end());
  s.sensitivity.resize(s.voxels);
  s.sensitivity.upload(f);
  s.acc.resize(s.voxels);
}

void DeviceArrayProjector::iterate(float* image, std::size_t count, float randoms) {
  State& s = *s_;
  if (!image) throw Error("safir device arrays: null image");
  if (s.sensitivity.size() != s.voxels) throw Error("safir device arrays: set_sensitivity before iterate");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  sort(count);
  cudaStream_t st = s.stream.get();
  s.acc.fill_zero(st);
  ProjectArgs a = s.project_args(count);
  a.f = image;
  a.acc = s.acc.data();
  a.randoms = randoms;
  launch_mlem(a, st);
  launch_update(image, s.acc.data(), s.sensitivity.data(), s.voxels, st);
  s.stream.synchronize();
}

void DeviceArrayProjector::fill(float* image, float value) {
  if (!image) throw Error("safir device arrays: null image");
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  launch_fill(image, s_->voxels, value, s_->stream.get());
  s_->stream.synchronize();
}

}  // namespace tomo::safir

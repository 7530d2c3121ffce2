// DeviceArrayProjector (see device_arrays.hpp): the cuda backend's label sort and fused
// forward/back launchers (kernels.hpp) on the caller's image and values; the cuda backend's class
// keeps its buffers private, so the sequence of its fused pass is repeated here.
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

namespace tomo::safir {

using namespace tomo::safir::cuda_impl;

struct DeviceArrayProjector::State {
  BoxParams<float> box{};
  std::size_t voxels = 0, n = 0, first = 0;  // events; label-0 ones sort first
  cuda::Stream stream;
  cuda::DeviceBuffer<float4> crystals;
  cuda::DeviceBuffer<uint2> events, sorted;
  cuda::DeviceBuffer<std::uint8_t> keys_in, keys_out, temp;
  cuda::DeviceBuffer<std::uint32_t> order_in, order_out;
  cuda::DeviceBuffer<float> values;
  cuda::DeviceBuffer<unsigned long long> counts;
};

DeviceArrayProjector::DeviceArrayProjector(const Scanner& scanner, const ImageBox& box, std::span<const Event> events,
                                           int device) {
  device_ = device >= 0 ? device : runtime_options().cuda_device;
  cuda::select_device(device_);
  s_ = std::make_unique<State>();
  State& s = *s_;
  s.box = box.params<float>();
  s.voxels = box.count();
  s.n = events.size();
  std::vector<float4> pos;
  for (const auto& p : scanner.positions()) pos.push_back(make_float4(float(p[0]), float(p[1]), float(p[2]), 0.f));
  s.crystals = cuda::DeviceBuffer<float4>(std::span<const float4>(pos));
  cuda::require_device_memory(30.0 * double(s.n), "safir device arrays: the event list");
  const std::size_t n1 = std::max<std::size_t>(1, s.n);
  s.events.resize(n1);
  if (s.n) s.events.upload(reinterpret_cast<const uint2*>(events.data()), s.n);
  s.keys_in.resize(n1);
  s.keys_out.resize(n1);
  s.order_in.resize(n1);
  s.order_out.resize(n1);
  s.sorted.resize(n1);
  s.values.resize(n1);
  s.counts.resize(4);
  s.temp.resize(std::max<std::size_t>(1, sort_temp_bytes(n1)));
  if (s.n == 0) return;
  SortArgs a;
  a.events = s.events.data();
  a.n = s.n;
  a.crystals = s.crystals.data();
  a.box = s.box;
  a.keys_in = s.keys_in.data();
  a.keys_out = s.keys_out.data();
  a.order_in = s.order_in.data();
  a.order_out = s.order_out.data();
  a.sorted = s.sorted.data();
  a.counts = s.counts.data();
  a.temp = s.temp.data();
  a.temp_bytes = s.temp.size();
  label_and_sort(a, s.stream.get());
  unsigned long long c[4] = {};
  s.counts.download_async(c, 4, s.stream.get());
  s.stream.synchronize();
  s.first = static_cast<std::size_t>(c[0]);
}

DeviceArrayProjector::~DeviceArrayProjector() {
  if (s_) TOMO_CUDA_LOG(cudaStreamSynchronize(s_->stream.get()));
}

std::size_t DeviceArrayProjector::events() const { return s_->n; }

void DeviceArrayProjector::forward(const float* image, float* y, float randoms) {
  if (!image || (!y && s_->n)) throw Error("safir device arrays: null image or output");
  cuda::select_device(device_);
  State& s = *s_;
  if (s.n == 0) return;
  // The caller's arrays may have been written on any stream of this device (CuPy's, PyTorch's).
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  ProjectArgs a;
  a.sorted = s.sorted.data();
  a.first = s.first;
  a.n = s.n;
  a.crystals = s.crystals.data();
  a.box = s.box;
  a.f = image;
  a.values = s.values.data();
  a.randoms = randoms;
  launch_forward(a, s.stream.get());
  launch_scatter_to_events(s.values.data(), s.order_out.data(), s.first, s.n, y, s.stream.get());
  s.stream.synchronize();
}

void DeviceArrayProjector::back(const float* v, float* image) {
  if (!image || (!v && s_->n)) throw Error("safir device arrays: null values or image");
  cuda::select_device(device_);
  State& s = *s_;
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
  TOMO_CUDA_CHECK(cudaMemsetAsync(image, 0, s.voxels * sizeof(float), s.stream.get()));
  if (s.n > 0) {
    launch_gather_from_events(v, s.order_out.data(), s.n, s.values.data(), s.stream.get());
    ProjectArgs a;
    a.sorted = s.sorted.data();
    a.first = s.first;
    a.n = s.n;
    a.crystals = s.crystals.data();
    a.box = s.box;
    a.values = s.values.data();
    a.acc = image;
    launch_back(a, s.stream.get());
  }
  s.stream.synchronize();
}

}  // namespace tomo::safir

// DeviceArrayProjector (device_arrays.hpp): each call selects the device, waits for the caller's
// streams and hands the pointers to the cuda backend's DeviceOperator calls.
#include "cuda/safir/device_arrays.hpp"

#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/safir/device_arrays_kernels.hpp"
#include "cuda/safir/device_operator.hpp"

namespace tomo::safir {

namespace {
DeviceOperator& device_operator(ListModeOperator& op) {
  auto* d = dynamic_cast<DeviceOperator*>(&op);
  if (!d) throw Error("safir device arrays: the operator is not the cuda backend");
  return *d;
}
}  // namespace

DeviceArrayProjector::DeviceArrayProjector(ListModeOperator& op, std::size_t voxels, int device)
    : dev_(device_operator(op)), device_(device), voxels_(voxels) {}

void DeviceArrayProjector::wait_for_caller() const {
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes, on whatever stream
}

void DeviceArrayProjector::set_events(const std::uint32_t* device_events, std::size_t n) {
  cuda::select_device(device_);
  dev_.set_events_device(device_events, n);
}

std::size_t DeviceArrayProjector::events() const { return dev_.event_count(); }

std::vector<Event> DeviceArrayProjector::events_to_host() const {
  cuda::select_device(device_);
  return dev_.events_to_host();
}

void DeviceArrayProjector::forward(const float* image, float* y) {
  if (!image || (!y && events())) throw Error("safir device arrays: null image or output");
  wait_for_caller();
  dev_.use_window(0, events());
  dev_.forward_device(image, y);
}

void DeviceArrayProjector::back(const float* v, float* image) {
  if (!image || (!v && events())) throw Error("safir device arrays: null values or image");
  wait_for_caller();
  dev_.use_window(0, events());
  dev_.back_device(v, image);
}

void DeviceArrayProjector::iterate(float* image, std::size_t count) {
  if (!image) throw Error("safir device arrays: null image");
  if (count > events()) throw Error(str_cat("safir device arrays: window of ", count, " beyond ", events(), " events"));
  wait_for_caller();
  dev_.use_window(0, count);
  dev_.iterate_device(image);
}

void DeviceArrayProjector::fill(float* image, float value) {
  if (!image) throw Error("safir device arrays: null image");
  wait_for_caller();
  cuda_impl::launch_fill(image, voxels_, value, nullptr);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace tomo::safir

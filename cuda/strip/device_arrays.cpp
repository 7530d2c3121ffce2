// DeviceArrayProjector (see device_arrays.hpp): each call selects the device, waits for the
// caller's streams and hands the pointers to the cuda backend's DeviceOperator calls; ρ'/s and
// the fill are two small kernels of projection_kernels.cu.
#include "cuda/strip/device_arrays.hpp"

#include <cuda_runtime.h>

#include "compute/core/error.hpp"
#include "compute/core/sensitivity_mask.hpp"
#include "cuda/core/check.hpp"
#include "cuda/core/device.hpp"
#include "cuda/core/device_buffer.hpp"
#include "cuda/strip/device_operator.hpp"
#include "cuda/strip/projection_kernels.hpp"

namespace tomo::strip {

using namespace tomo::strip::cuda_impl;

namespace {
DeviceOperator& device_operator(ListModeProjector& op) {
  auto* d = dynamic_cast<DeviceOperator*>(&op);
  if (!d) throw Error("strip device arrays: the operator is not the cuda backend");
  return *d;
}
}  // namespace

struct DeviceArrayProjector::State {
  std::size_t pixels = 0;
  cuda::DeviceBuffer<float> inv_s;  // 1/s in the field of view, 0 outside
};

DeviceArrayProjector::DeviceArrayProjector(ListModeProjector& op, const StripGeometry& g, double sensitivity_threshold,
                                           std::span<const std::uint8_t> outside_fov, int device)
    : dev_(device_operator(op)), device_(device), s_(std::make_unique<State>()) {
  cuda::select_device(device_);
  s_->pixels = g.pixel_count();
  const std::vector<double> sens = sensitivity_image(g);
  const double floor = sensitivity_floor<double>(sens, sensitivity_threshold);
  std::vector<float> inv(sens.size(), 0.f);
  for (std::size_t i = 0; i < sens.size(); ++i)
    if (sens[i] > 0 && sens[i] >= floor && !(i < outside_fov.size() && outside_fov[i])) inv[i] = float(1.0 / sens[i]);
  s_->inv_s = cuda::DeviceBuffer<float>(std::span<const float>(inv));
}

DeviceArrayProjector::~DeviceArrayProjector() = default;

void DeviceArrayProjector::wait_for_caller() const {
  cuda::select_device(device_);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());  // the caller's writes, on whatever stream
}

void DeviceArrayProjector::forward(const float* x, const float* events, std::size_t n, float* y) {
  if (n == 0) return;
  if (!x || !events || !y) throw Error("strip device arrays: null image, events or output");
  wait_for_caller();
  dev_.forward_device(events, n, x, y);
}

void DeviceArrayProjector::back(const float* w, const float* events, std::size_t n, float* b) {
  if (!b || (n && (!w || !events))) throw Error("strip device arrays: null values, events or image");
  wait_for_caller();
  dev_.back_device(events, n, w, b);
}

void DeviceArrayProjector::set_events(const float* events, std::size_t n) {
  cuda::select_device(device_);
  dev_.set_events_device(events, n);
}

std::vector<Event> DeviceArrayProjector::events_to_host() const {
  cuda::select_device(device_);
  return dev_.events_to_host();
}

std::size_t DeviceArrayProjector::events() const { return dev_.event_count(); }

void DeviceArrayProjector::iterate(const float* rho_prime, float* rho_new) {
  if (!rho_prime || !rho_new) throw Error("strip device arrays: null image");
  wait_for_caller();
  dev_.iterate_device(rho_prime, rho_new);
}

void DeviceArrayProjector::rho(const float* rho_prime, float* out) {
  if (!rho_prime || !out) throw Error("strip device arrays: null image");
  wait_for_caller();
  launch_multiply(rho_prime, s_->inv_s.data(), out, s_->pixels, nullptr);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
}

void DeviceArrayProjector::fill_ones(float* image) {
  if (!image) throw Error("strip device arrays: null image");
  wait_for_caller();
  launch_fill(image, s_->pixels, 1.0f, nullptr);
  TOMO_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace tomo::strip

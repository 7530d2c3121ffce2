// The strip cuda backend on device memory the caller owns (CuPy/PyTorch arrays through
// cuda/strip/device_arrays): the same kernels and launch configuration as its
// ListModeProjector calls, with events, images and values read and written in place instead of
// through host vectors. The cuda backend implements it; nothing else does.
#pragma once
#include <cstddef>
#include <vector>

#include "compute/strip/geometry.hpp"

namespace tomo::strip {

class DeviceOperator {
 public:
  virtual ~DeviceOperator() = default;

  // The events of iterate (n × 3 floats in device memory), copied device to device.
  virtual void set_events_device(const float* events, std::size_t n) = 0;
  virtual std::size_t event_count() const = 0;
  virtual std::vector<Event> events_to_host() const = 0;

  // As forward()/back(), over the n events at `events` (device memory; not the resident ones):
  // y[e] = Σ_i P(ẽ_e|i) x_i; b (pixel_count floats, overwritten) = Σ_e P(ẽ_e|·) w_e.
  virtual void forward_device(const float* events, std::size_t n, const float* x, float* y) = 0;
  virtual void back_device(const float* events, std::size_t n, const float* w, float* b) = 0;
  // As set_image(ρ'), iterate(), image(): rho_new = one step of eq. (5) from rho_prime over the
  // resident events; rho_new may be rho_prime (ρ' is copied into the backend's texture first).
  virtual void iterate_device(const float* rho_prime, float* rho_new) = 0;
};

}  // namespace tomo::strip

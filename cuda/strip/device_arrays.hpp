// strip's cuda backend on arrays the caller owns on the GPU (CuPy/PyTorch through DLPack in the
// Python module): a thin adapter over the registered `cuda` ListModeProjector (its
// DeviceOperator calls), so Python's GPU arrays run the CLI's kernels, plus ρ = ρ'/s and the
// ML-EM start on the caller's images.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "compute/strip/geometry.hpp"
#include "compute/strip/projector.hpp"

namespace tomo::strip {

class DeviceOperator;

class DeviceArrayProjector {
 public:
  // `op`: the configured `cuda` backend (Error for any other), used for as long as this object
  // lives, with its events; `sensitivity_threshold`: the field of view of rho()
  // (strip.sensitivity_threshold, as rho_from_rho_prime) with the pixels `outside_fov` marks
  // (strip.fov_mask; empty: none) held at 0; `device`: the CUDA device of `op`.
  DeviceArrayProjector(ListModeProjector& op, const StripGeometry& g, double sensitivity_threshold,
                       std::span<const std::uint8_t> outside_fov, int device);
  ~DeviceArrayProjector();
  DeviceArrayProjector(const DeviceArrayProjector&) = delete;
  DeviceArrayProjector& operator=(const DeviceArrayProjector&) = delete;

  // All pointers below are device memory of this device. Each call waits for the device's queued
  // work first (the caller's writes on any stream) and returns when its output is written.
  // y[e] = Σ_i P(ẽ_e|i) x_i for the n events at `events` (n × 3 floats), in event order.
  void forward(const float* x, const float* events, std::size_t n, float* y);
  // b (pixel_count floats, overwritten) = Σ_e P(ẽ_e|·) w_e.
  void back(const float* w, const float* events, std::size_t n, float* b);

  // The backend's events for iterate(), copied device to device from `events` (n × 3 floats).
  void set_events(const float* events, std::size_t n);
  std::vector<Event> events_to_host() const;
  std::size_t events() const;
  // One step of eq. (5) over the backend's events: rho_new = ρ'·Σ_j P(ẽ_j|·)/Σ_i P(ẽ_j|i)ρ'_i;
  // rho_new may be rho_prime (in place).
  void iterate(const float* rho_prime, float* rho_new);
  // out = ρ'/s (eq. 6) where s is at least the threshold × max s, else 0.
  void rho(const float* rho_prime, float* out);
  // image = 1 everywhere (ML-EM's start).
  void fill_ones(float* image);
  int device() const { return device_; }

 private:
  void wait_for_caller() const;
  struct State;
  DeviceOperator& dev_;
  int device_;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::strip

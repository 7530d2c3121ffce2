// strip's list-mode operator on arrays the caller owns on the GPU (CuPy/PyTorch through DLPack in
// the Python module): A x and Aᵀ w over device events, and the cuda backend's ML-EM step (its
// kernel launchers, kernels.hpp) on the caller's ρ' with events resident on the GPU.
#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "compute/strip/geometry.hpp"
#include "compute/strip/projector.hpp"

namespace tomo::strip {

class DeviceArrayProjector {
 public:
  // On CUDA device `device` (the runtime's when < 0). `sensitivity_threshold`: the field of view
  // of rho() (strip.sensitivity_threshold, as rho_from_rho_prime).
  DeviceArrayProjector(const StripGeometry& g, const Resolution& res, const ProjectorOptions& o,
                       double sensitivity_threshold, int device);
  ~DeviceArrayProjector();
  DeviceArrayProjector(const DeviceArrayProjector&) = delete;
  DeviceArrayProjector& operator=(const DeviceArrayProjector&) = delete;

  // All pointers below are device memory of this device. Each call waits for the device's queued
  // work first (the caller's writes on any stream) and returns when its output is written.
  // y[e] = Σ_i P(ẽ_e|i) x_i for the n events at `events` (n × 3 floats), in event order.
  void forward(const float* x, const float* events, std::size_t n, float* y);
  // b (pixel_count floats, overwritten) = Σ_e P(ẽ_e|·) w_e.
  void back(const float* w, const float* events, std::size_t n, float* b);

  // The events of iterate(): copied device-to-device from `events` (n × 3 floats), or uploaded.
  void set_events(const float* events, std::size_t n);
  void set_events(std::span<const Event> events);
  std::vector<Event> events_to_host() const;
  std::size_t events() const;
  // One step of eq. (5) over the resident events: rho_new = ρ'·Σ_j P(ẽ_j|·)/Σ_i P(ẽ_j|i)ρ'_i, by
  // the cuda backend's launcher and options (granularity, warp layout). ρ' is read through a
  // texture copied first, so rho_new may be rho_prime (in place).
  void iterate(const float* rho_prime, float* rho_new);
  // out = ρ'/s (eq. 6) where s is at least the threshold × max s, else 0.
  void rho(const float* rho_prime, float* out);
  // image = 1 everywhere (ML-EM's start).
  void fill_ones(float* image);
  int device() const { return device_; }

 private:
  struct State;
  int device_ = 0;
  std::unique_ptr<State> s_;
};

}  // namespace tomo::strip

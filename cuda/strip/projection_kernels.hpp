// Launchers of the cuda backend's forward and back projection (projection_kernels.cu) and the
// small image kernels around the ML-EM step of Python's device arrays.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "compute/strip/kernel_math.hpp"

namespace tomo::strip::cuda_impl {

struct EventPassArgs {
  const float* events = nullptr;  // n × {z̃u, z̃d, Δl̃}
  std::size_t n = 0;
  GridParams<float> grid{};
  KernelParams<float> kp{};
};

// y[e] = Σ_i P(ẽ_e|i) x_i over the 3σ ellipse of event e (one thread per event, no atomics).
void launch_event_forward(const EventPassArgs& a, const float* x, float* y, cudaStream_t stream);
// b[i] += Σ_e P(ẽ_e|i) w_e (float atomics; b zeroed by the caller).
void launch_event_back(const EventPassArgs& a, const float* w, float* b, cudaStream_t stream);
// out[i] = a[i] · b[i].
void launch_multiply(const float* a, const float* b, float* out, std::size_t n, cudaStream_t stream);
// out[i] = value.
void launch_fill(float* out, std::size_t n, float value, cudaStream_t stream);

}  // namespace tomo::strip::cuda_impl

// Where one PLS-int iteration's time goes on the cuda backend (bench_oat): H and Hᵀ as ModelDevice
// kernels (CUDA events, data resident), the same calls through the `cuda` Model as run_pls makes
// them (double vectors converted, copied to and from the host), and one iteration of run_pls, so
// that the host's share (conversions, transfers, CG vector work, the iteration report) is the
// difference.
#pragma once
#include <span>

#include "compute/oat/geometry.hpp"

namespace tomo::oat {

struct PlsBreakdown {
  double forward_kernels_ms = 0, adjoint_kernels_ms = 0;  // ModelDevice::forward / adjoint on the device
  double forward_call_ms = 0, adjoint_call_ms = 0;        // Model::forward / adjoint from host vectors
  // run_pls (quadratic, μ = 0, CG): (time of `iterations` − time of 0) / iterations; its first
  // iteration reuses the scale's H·b, so the mean holds one Hᵀ and (n − 1)/n of an H.
  double iteration_ms = 0;
  int iterations = 0;
  // iteration_ms − adjoint_call_ms − (n − 1)/n·forward_call_ms: CG vector work and reports.
  double cg_host_ms = 0;
  // An iteration in steady state (one H and one Hᵀ call and the CG's host work).
  double steady_iteration_ms = 0;
};

PlsBreakdown time_pls_breakdown(const OatGeometry& g, std::span<const double> alpha, std::span<const double> u,
                                int reps, int iterations);

}  // namespace tomo::oat

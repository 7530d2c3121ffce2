// Bench support for oat on CUDA (plain C++ interface, so bench/ needs no nvcc): the operators
// timed with the data resident on the device (no host transfers), beside the probes that measure
// the ceiling each is bound by, in the same run and on the same workload.
#pragma once
#include <span>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

// Best-of-`reps` kernel times (ms, CUDA events) of one FBP: the table read by the texture unit
// and by __ldg, the fetch-only probe (texture ceiling) and the no-fetch probe (arithmetic ceiling).
struct CudaFbpTimes {
  double exact_ms = 0, exact_ldg_ms = 0, fetch_probe_ms = 0, compute_probe_ms = 0;
};
CudaFbpTimes time_cuda_fbp(const OatGeometry& g, std::span<const double> pressure, int reps);

// Best-of-`reps` times (ms) of one u = H_int α (exact and hardware fetch) and one α = H_intᵀ u,
// and of their probes: the forward with fast patch positions and only the loads (exact) or only
// the texture fetches (hardware), the transpose with fast positions and only the atomics.
struct CudaModelTimes {
  double forward_exact_ms = 0, forward_hardware_ms = 0, adjoint_ms = 0;
  double probe_loads_ms = 0, probe_texture_ms = 0, probe_atomics_ms = 0;
};
CudaModelTimes time_cuda_model(const OatGeometry& g, const ModelOptions& o, std::span<const double> alpha,
                               std::span<const double> u, int reps);

}  // namespace tomo::oat

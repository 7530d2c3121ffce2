// Bench support for oat on CUDA (plain C++ interface, so bench/ needs no nvcc): the operators
// timed with the data resident on the device (no host transfers), beside the probes that measure
// the ceiling each is bound by, in the same run and on the same workload.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compute/oat/geometry.hpp"
#include "compute/oat/model.hpp"

namespace tomo::oat {

// Best-of-`reps` kernel times (ms, CUDA events) of one FBP in every variant, each beside the
// probes of its kernel: the texture kernel read by the texture unit and by __ldg, its fetch-only
// probe (texture ceiling) and no-fetch probe (arithmetic ceiling); the shared-memory kernel with
// 4 and 8 voxels per thread ([0], [1]), its shared-read-only probe (shared-memory ceiling) and
// no-shared-read probe (arithmetic ceiling), and the batched kernels (batched_ms, the same reads
// and arithmetic, so the same probes); the lean kernel (fbp_kernels.hpp "The lean variant") with
// 8 and 16 voxels per thread ([0], [1]), exact (lean_ms), pinned (pinned_ms, and unrolled_ms: its
// transducer loop unrolled by two) and fast (fast_ms),
// beside its shared-read probe and its no-shared-read probe (fast's arithmetic); the deferred kernel
// (deferred_ms: main kernel and fix-up pass, fbp_kernels.hpp "The deferred variant") with the
// fix-up pass timed alone (fixup_ms), the list entries it used and whether its lists overflowed
// (then deferred_ms is the pinned kernel's). 0: not requested or unavailable on this geometry.
struct CudaFbpTimes {
  double exact_ms = 0, exact_ldg_ms = 0, fetch_probe_ms = 0, compute_probe_ms = 0;
  double shared_ms[2] = {0, 0}, shared_probe_ms[2] = {0, 0}, shared_compute_ms[2] = {0, 0};
  double batched_ms[2] = {0, 0};
  double lean_ms[2] = {0, 0}, pinned_ms[2] = {0, 0}, unrolled_ms[2] = {0, 0}, fast_ms[2] = {0, 0};
  double lean_probe_ms[2] = {0, 0}, lean_compute_ms[2] = {0, 0};
  double deferred_ms[2] = {0, 0}, fixup_ms[2] = {0, 0};
  std::size_t deferred_entries[2] = {0, 0}, deferred_capacity = 0;  // entries used; capacity per block
  bool deferred_overflow[2] = {false, false};
  int slot = 0, tile = 0;           // the shared kernel's window length and transducers per tile
  std::string default_variant;      // what the cuda backend runs (FbpDevice::best())
  // (variant, CudaFbpRequest::error of its image) for every timed variant, when error is set.
  std::vector<std::pair<std::string, double>> errors;
};
struct CudaFbpRequest {
  bool texture = true, ldg = true, shared4 = true, shared8 = true, shared4b = true, shared8b = true;
  bool lean8 = true, lean16 = true, pinned8 = true, pinned16 = true, fast8 = true, fast16 = true;
  bool unrolled8 = true, unrolled16 = true, deferred8 = true, deferred16 = true;
  // Called with each timed variant's image (grid order) after its timing: e.g. rel. L2 vs the cpu.
  std::function<double(const std::vector<float>&)> error;
};

CudaFbpTimes time_cuda_fbp(const OatGeometry& g, std::span<const double> pressure, int reps,
                           const CudaFbpRequest& request = {});

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

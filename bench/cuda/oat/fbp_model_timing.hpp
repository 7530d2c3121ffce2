// bench_oat's CUDA timings (plain C++ interface, so the bench's own sources need no nvcc): the
// oat operators timed with the data resident on the device (no host transfers), each FBP kernel
// the product ships side by side beside the bench-only probes of the texture kernel, and H_int /
// H_intᵀ beside their bench-only ceiling probes.
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

// Best-of-`reps` kernel times (ms, CUDA events) of one FBP through each kernel of FbpDevice
// (deferred, pinned, texture, ldg; 0 where not requested or unavailable on this geometry); the
// deferred kernel's list entries, their capacity per block and whether they overflowed (then its
// time is the pinned kernel's); the texture kernel's two ceiling probes (bench/cuda/oat/fbp_probes.hpp:
// texture fetches only, arithmetic only; 0 where the table exceeds the texture limits).
struct CudaFbpTimes {
  double deferred_ms = 0, pinned_ms = 0, texture_ms = 0, ldg_ms = 0;
  double fetch_probe_ms = 0, arithmetic_probe_ms = 0;
  std::size_t deferred_entries = 0, deferred_capacity = 0;
  bool deferred_overflow = false;
  int slot = 0;                 // the shared-memory kernels' window length
  std::string default_kernel;   // what the cuda backend runs (FbpDevice::choose())
  // (kernel, CudaFbpRequest::error of its image) for every timed kernel, when error is set.
  std::vector<std::pair<std::string, double>> errors;
};
struct CudaFbpRequest {
  std::vector<std::string> kernels;  // names (kernel_name); empty: all
  // Called with each timed kernel's image (grid order) after its timing: e.g. rel. L2 vs the cpu.
  std::function<double(const std::vector<float>&)> error;
};

CudaFbpTimes time_cuda_fbp(const OatGeometry& g, std::span<const double> pressure, int reps,
                           const CudaFbpRequest& request = {});

// Best-of-`reps` times (ms) of one u = H_int α (exact and hardware fetch) and one α = H_intᵀ u
// (the gather), of the bench-only H_srtᵀ forms, and of their bench-only probes (bench/cuda/oat/srt_probes.cu): the forward with fast patch
// positions and only the loads (exact) or only the texture fetches (hardware), the transpose with
// fast positions and only the atomics.
// adjoint_ms is the product's (ModelDevice: the symmetric scatter where the geometry allows, else the gather); `adjoints` every bench-only H_srtᵀ form
// in the same pipeline (srt_adjoint_variants.hpp: the scatter, other gather tiles, the gather
// without its adds) with its image's rel. L2 against the scatter's; gather_vs_scatter the
// product's image against the scatter's.
// identity: |⟨Hα, u⟩ − ⟨α, Hᵀu⟩|/(‖Hα‖‖u‖) with the exact forward; *_vs_default: against the
// product's gather (ModelDevice's image), max_rel as max|Δ|/max|ref|.
struct AdjointTime {
  std::string name;
  double ms = 0, rel_l2_vs_scatter = -1, rel_l2_vs_default = -1, max_rel_vs_default = -1, identity = -1;
  int chunks = 1;
};
struct CudaModelTimes {
  double forward_exact_ms = 0, forward_hardware_ms = 0, adjoint_ms = 0;
  std::string adjoint_form;  // the product's H_srtᵀ here: "symmetric" (merged float4 scatter) or "gather"
  double probe_loads_ms = 0, probe_texture_ms = 0, probe_atomics_ms = 0;
  // the exact forward with the gather's azimuth table (bench/cuda/oat/srt_probes.hpp forward_table)
  // and its u's rel. L2 against the product's forward
  double forward_table_ms = 0, forward_table_vs_exact = -1;
  std::vector<AdjointTime> adjoints;
  double gather_vs_scatter = -1;
  double identity = -1;  // the product's pair (ModelDevice forward exact, adjoint)
};
CudaModelTimes time_cuda_model(const OatGeometry& g, const ModelOptions& o, std::span<const double> alpha,
                               std::span<const double> u, int reps, std::span<const std::string> adjoints = {});

}  // namespace tomo::oat

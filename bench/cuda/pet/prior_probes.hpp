// Bench-only (never product code): device-resident timings of the relative difference prior's
// stencil kernel (cuda/pet/rdp_kernels.cu) beside a device-to-device copy of the same image in
// the same run, the ceiling the pass is bound by (a plain C++ interface: the bench's C++ needs
// no CUDA headers).
#pragma once
#include <array>
#include <string>
#include <vector>

namespace tomo::pet::probes {

struct PriorPassTimes {
  double value_ms = 0, gradient_ms = 0, hessian_ms = 0;  // one pass each, medians
  // Gradient and Hessian from one pass (RdpTerm::derivatives), and its two results against the
  // separate passes' (largest |difference| over the largest |value|).
  double derivatives_ms = 0, derivatives_gradient_max_rel = 0, derivatives_hessian_max_rel = 0;
  // A lab variant of the gradient pass (never product code): the 26 weights computed once on the
  // host, 3D thread blocks (no index division), read-only loads, one reciprocal per neighbour.
  double lean_gradient_ms = 0;
  double lean_rel_l2 = 0;  // its result against the previous product kernel's
  // The previous product kernel (prior_tiled.cu: 26 neighbour terms gathered per voxel from
  // shared-memory planes), and the product's gradient against it (relative L2).
  double tiled_value_ms = 0, tiled_gradient_ms = 0, tiled_hessian_ms = 0, tiled_rel_l2 = 0;
  // The first pair kernel (prior_pairs_v1.cu: every pair guarded, values unshifted): its gradient
  // pass and its result against the previous product kernel's.
  double v1_gradient_ms = 0, v1_rel_l2 = 0;
  // The pair-kernel candidates (prior_pairs_v3.cu): gradient pass and result against the
  // previous product kernel's (relative L2) and against the product's (largest |difference|
  // over the largest |product value|).
  struct Candidate {
    std::string name;
    double gradient_ms = 0, rel_l2 = 0, max_rel = 0;
    double smooth_ms = 0, smooth_max_rel = 0;  // with κ varying everywhere (no warp skips)
    double ones_ms = 0, zeros_ms = 0;          // κ = 1 everywhere; κ = 0 everywhere (loads only)
  };
  std::vector<Candidate> v3;
  double smooth_gradient_ms = 0;  // the product's gradient pass with that κ
  double copy_ms = 0;                                    // cudaMemcpy D2D of one image, median
  double copy_gbps = 0;                                  // its bytes read + written per second
};

// An image of dims (x fastest) with values in [0.5, 1.5) and κ = 1 inside a centred cylinder,
// 0 outside (as the problems set it); each kernel launched `reps` times after a warm-up,
// timed by CUDA events.
PriorPassTimes time_cuda_prior(std::array<int, 3> dims, int reps);

}  // namespace tomo::pet::probes

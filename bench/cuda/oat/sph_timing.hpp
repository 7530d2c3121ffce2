// bench_oat_sph's CUDA timings (plain C++ interface, so the bench's own sources need no nvcc): one
// forward and one adjoint with the vectors resident on the device, beside the paper's layout of
// the same sums and the probe of their compute ceiling (__sincosf plus complex multiply-adds in
// the forward's mix), both bench-only (sph_baselines.cu), in the same run.
#pragma once
#include <complex>
#include <span>

#include "compute/oat/sph_model.hpp"

namespace tomo::oat {

struct CudaSphTimes {
  double forward_ms = 0, adjoint_ms = 0;  // best of reps, CUDA events
  double seed_forward_ms = 0, seed_adjoint_ms = 0;  // the paper's layout of the same sums
  double seed_rel_l2 = 0;                 // |ours − paper layout| / |paper layout| of the forward
  double probe_ms = 0;                    // the probe's kernel time
  double probe_updates = 0;               // phasor updates the probe did (its rate is the ceiling)
};
// On the current CUDA device.
CudaSphTimes time_cuda_sph(const OatGeometry& g, const SphOptions& o, std::span<const double> alpha,
                           std::span<const std::complex<double>> u, int reps);

}  // namespace tomo::oat

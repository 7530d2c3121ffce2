// Bench-only CUDA for bench_oat_sph: [Wang2013]'s layout of the H_sph sums (the baselines our
// kernels, cuda/oat/sph_kernels.cu, are measured against) and the probe of their compute ceiling.
#pragma once
#include <cstdint>

#include "cuda/oat/sph_kernels.hpp"

namespace tomo::oat::bench_cuda {

// The paper's forward layout: a block per transducer, a thread per frequency, one __sincosf per
// (voxel, frequency), all voxels (u fully written).
void launch_sph_forward_paper(const cuda_detail::SphParams& p, const float* alpha, float2* u, cudaStream_t stream);
// The adjoint with every phase by its own __sincosf instead of the recurrence, over all
// transducers; `w` is scratch of Q·L float2.
void launch_sph_adjoint_paper(const cuda_detail::SphParams& p, const float2* u, float2* w, float* alpha,
                              cudaStream_t stream);
// The ceiling: `threads` threads each doing `iterations` × (one __sincosf + `per_sincos` complex
// multiply-adds), the mix of the forward's inner loop; out gets one float per thread.
void launch_sph_probe(int threads, int iterations, int per_sincos, float* out, cudaStream_t stream);

}  // namespace tomo::oat::bench_cuda

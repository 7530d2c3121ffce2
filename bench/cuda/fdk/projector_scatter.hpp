// The exact transpose Aᵀ of the cone-beam projector as a global-atomic scatter (bench_fdk
// --projector): each ray adds its samples' trilinear weights to their 8 voxels with atomic adds
// in global memory. It was the product's Aᵀ until the tiled form (cuda/fdk/projector_kernels.hpp)
// measured faster (docs/perf/fdk.md); kept to compare the two on the same stack.
#pragma once
#include <cuda_runtime_api.h>

#include "cuda/fdk/projector_kernels.hpp"

namespace tomo::bench::fdk_projector {

// x += Aᵀ y for the views of `l` (x zeroed by the caller).
void launch_back_scatter(const fdk::cuda_detail::RayLaunch& l, const float* y, float* x, cudaStream_t stream);

}  // namespace tomo::bench::fdk_projector

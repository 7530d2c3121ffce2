// The shared-memory tiled candidates of B (Variant::tiled; bench_fdk --b-variants): per view, or
// per pass of several views between one pair of barriers, each block copies its voxel box's
// detector footprint from the zero-bordered weighted copy into shared memory and samples it there
// with fp32 weights. Measured slower than the texture gather (docs/perf/fdk.md).
#pragma once
#include <cuda_runtime_api.h>

#include "bench/cuda/fdk/back_voxel_args.hpp"
#include "bench/cuda/fdk/back_voxel_variants.hpp"

namespace tomo::bench::fdk_b {

// x = B y by tiled variant v over `views` views (host matrices `mats`, 12 a view, texel centres
// not folded in); false (nothing run) where it does not apply (not z-invariant, too many views).
bool run_tiled(const Variant& v, const Args& a, const float* mats, int views, cudaStream_t s);

}  // namespace tomo::bench::fdk_b
